"""`zeroflow run A B C --jobs N`: recordings of a batch run at the same time in one process (threads;
on a GPU each recording on a stream of its own) and give exactly what they give one at a time: each
training run draws from generators of its own, so no recording changes another's split, shuffles
or noise. A failing recording is still reported alone. GPU cases skip without one."""

import csv
import json

import pytest
from conftest import run_cli

import zeroflow as zf

SEEDS = (3, 5, 8)


@pytest.fixture(scope="module")
def recordings(zeroflow_bin, tmp_path_factory):
    """Three different 6-minute recordings (different seeds: different beats and anomalies)."""
    folder = tmp_path_factory.mktemp("jobs")
    paths = []
    for seed in SEEDS:
        path = folder / f"rec{seed}.csv"
        run_cli(zeroflow_bin, "generate", "--hours", 0.1, "--apb-rate", 0.02, "--seed", seed, "--out", path)
        paths.append(path)
    return paths


def beats(folder):
    with open(folder / "beats.csv", newline="") as f:
        return list(csv.DictReader(f))


def run_batch(zeroflow_bin, recordings, out, device, *extra):
    return run_cli(zeroflow_bin, "run", *recordings, "--out", out, "--device", device, "--epochs", 3, *extra)


def assert_same_results(one_at_a_time, together, names, score_tolerance):
    for name in names:
        a, b = beats(one_at_a_time / name), beats(together / name)
        assert len(a) == len(b) > 100, name
        for x, y in zip(a, b):
            for column in ("start", "peak", "length", "kept", "split", "flags"):
                assert x[column] == y[column], (name, column, x["beat"])
            for column in ("score", "mu0", "mu1", "morphology", "rhythm"):
                assert float(y[column]) == pytest.approx(float(x[column]), rel=score_tolerance, abs=score_tolerance), (
                    name,
                    column,
                    x["beat"],
                )
        sa = json.loads((one_at_a_time / name / "summary.json").read_text())
        sb = json.loads((together / name / "summary.json").read_text())
        assert sb["test_loss"] == pytest.approx(sa["test_loss"], rel=score_tolerance)
        assert sb["loss_per_epoch"] == pytest.approx(sa["loss_per_epoch"], rel=score_tolerance)


def test_jobs_on_the_cpu_give_the_results_of_one_at_a_time(zeroflow_bin, recordings, tmp_path):
    run_batch(zeroflow_bin, recordings, tmp_path / "one", "cpu")
    proc = run_batch(zeroflow_bin, recordings, tmp_path / "three", "cpu", "--jobs", 3)
    names = [p.stem for p in recordings]
    # The same arithmetic on the same CPU: equal, not merely close.
    assert_same_results(tmp_path / "one", tmp_path / "three", names, 1e-12)
    # Lines of recordings that run at the same time say whose they are.
    for name in names:
        assert f"{name}: done:" in proc.stderr, proc.stderr


def test_jobs_report_a_failing_recording_and_keep_the_others(zeroflow_bin, recordings, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("heartbeats\n1.0\n2.0\nabc\n")
    out = tmp_path / "out"
    proc = run_cli(
        zeroflow_bin,
        "run",
        recordings[0],
        bad,
        recordings[1],
        "--out",
        out,
        "--device",
        "cpu",
        "--epochs",
        2,
        "--jobs",
        2,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    with open(out / "runs.csv", newline="") as f:
        runs = list(csv.DictReader(f))
    assert [r["status"] for r in runs] == ["ok", "failed", "ok"]  # in the order given, whatever finished first
    assert "bad.csv:4" in runs[1]["error"]
    assert not (out / "bad").exists()
    assert (out / recordings[1].stem / "beats.csv").exists()


@pytest.mark.parametrize("jobs", ["0", "65", "two"])
def test_jobs_out_of_range_is_a_usage_error(zeroflow_bin, recordings, tmp_path, jobs):
    proc = run_cli(zeroflow_bin, "run", recordings[0], "--out", tmp_path / "o", "--jobs", jobs, check=False)
    assert proc.returncode == 2
    assert len([l for l in proc.stderr.splitlines() if l.strip()]) == 1, proc.stderr
    assert "--jobs" in proc.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.skipif(not zf.cuda_available(), reason="no GPU")
def test_jobs_on_one_gpu_give_the_results_of_one_at_a_time(zeroflow_bin, recordings, tmp_path):
    run_batch(zeroflow_bin, recordings, tmp_path / "one", "cuda")
    run_batch(zeroflow_bin, recordings, tmp_path / "three", "cuda", "--jobs", 3)
    # Each run's own generators and streams: the same draws and kernels, whatever else runs.
    assert_same_results(tmp_path / "one", tmp_path / "three", [p.stem for p in recordings], 1e-5)
