"""zeroflow.dask.run_many and `zeroflow run --scheduler` against sequential `zeroflow run`: a local
Dask cluster of two worker processes gives the same beats and scores, names folders the same, and
reports a broken recording without leaving anything of it behind."""

import csv
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import zeroflow as zf

distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")
zdask = pytest.importorskip("zeroflow.dask")

from conftest import RUN_RESULTS, run_cli  # noqa: E402

EPOCHS = 3
# The CLI and the Dask workers train with one LibTorch thread each (Dask's nanny sets
# OMP_NUM_THREADS=1), so that CPU training is bit-reproducible between them.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    """Four short recordings (two with the same file name in different folders) and a broken one."""
    folder = tmp_path_factory.mktemp("many")
    (folder / "b").mkdir()
    paths = [folder / "r1.csv", folder / "r2.csv", folder / "b" / "r1.csv", folder / "R3.csv"]
    for seed, path in enumerate(paths, start=11):
        zf.synth.write_ecg_csv(path, hours=0.05, seed=seed, anomaly_rate=0.05)
    broken = folder / "broken.csv"
    broken.write_text("heartbeats\n0.1\n0.2\nnot-a-number\n")
    return [str(p) for p in paths], str(broken)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def sequential(zeroflow_bin, recordings, tmp_path_factory):
    """`zeroflow run A B C D broken --out DIR` in one process, one recording after another."""
    paths, broken = recordings
    out = tmp_path_factory.mktemp("sequential") / "out"
    proc = subprocess.run(
        [str(zeroflow_bin), "run", *paths, broken, "--out", str(out), "--device", "cpu", "--epochs", str(EPOCHS)],
        capture_output=True,
        text=True,
        env={**os.environ, **ONE_THREAD},
        timeout=600,
    )
    assert proc.returncode == 1, proc.stderr  # one recording failed
    return out


def read_beats(folder):
    return pd.read_csv(pathlib.Path(folder) / "beats.csv")


def test_run_many_matches_sequential_zeroflow_run(client, recordings, sequential, tmp_path):
    paths, broken = recordings
    out = tmp_path / "dask"
    frame = zdask.run_many(paths + [broken], out, client, device="cpu", epochs=EPOCHS, progress=False)
    assert list(frame["input"]) == paths + [broken]
    assert list(frame["status"]) == ["ok"] * 4 + ["failed"]
    # The same folders as the CLI made (a repeated file name gets -2, names keep their case).
    assert sorted(os.listdir(out)) == sorted(os.listdir(sequential))
    assert [pathlib.Path(p).name for p in frame["out"]] == ["r1", "r2", "r1-2", "R3", "broken"]
    both_workers = set(frame["worker"][:4])
    assert len(both_workers) == 2, "two workers should share four recordings"
    for row in frame.itertuples():
        if row.status != "ok":
            continue
        name = pathlib.Path(row.out).name
        ours, ref = read_beats(out / name), read_beats(sequential / name)
        for column in ("beat", "start", "peak", "length", "kept", "split"):
            assert (ours[column] == ref[column]).all(), (name, column)
        # One LibTorch thread on both sides: the same training, the same scores.
        np.testing.assert_allclose(ours["score"], ref["score"], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(ours[["mu0", "mu1"]], ref[["mu0", "mu1"]], rtol=1e-5, atol=1e-6)
        assert row.beats == len(ref) and row.samples > 0
    # runs.csv as the CLI writes it, up to the folder it names and the seconds.
    with open(out / "runs.csv") as f, open(sequential / "runs.csv") as g:
        ours, ref = list(csv.DictReader(f)), list(csv.DictReader(g))
    assert [r["status"] for r in ours] == [r["status"] for r in ref]
    assert [(r["samples"], r["beats_found"], r["beats_kept"]) for r in ours] == [
        (r["samples"], r["beats_found"], r["beats_kept"]) for r in ref
    ]


def test_a_broken_recording_is_reported_and_leaves_nothing(client, recordings, tmp_path):
    paths, broken = recordings
    out = tmp_path / "dask"
    frame = zdask.run_many([paths[0], broken], out, client, device="cpu", epochs=1, progress=False)
    failed = frame[frame["status"] == "failed"].iloc[0]
    assert "broken.csv:4" in failed["error"] and "not-a-number" in failed["error"]
    assert sorted(os.listdir(out)) == ["r1", "runs.csv"]  # no folder, no hidden staging folder
    assert sorted(os.listdir(out / "r1")) == RUN_RESULTS


def test_earlier_results_are_refused_without_force(client, recordings, tmp_path):
    paths, _ = recordings
    out = tmp_path / "dask"
    zdask.run_many(paths[:1], out, client, device="cpu", epochs=1, progress=False)
    before = (out / "r1" / "beats.csv").stat().st_mtime_ns
    with pytest.raises(FileExistsError, match="force"):
        zdask.run_many(paths[:1], out, client, device="cpu", epochs=1, progress=False)
    assert (out / "r1" / "beats.csv").stat().st_mtime_ns == before
    frame = zdask.run_many(paths[:1], out, client, device="cpu", epochs=1, progress=False, force=True)
    assert list(frame["status"]) == ["ok"] and sorted(os.listdir(out)) == ["r1", "runs.csv"]


def test_folder_names_are_the_clis():
    assert zdask.folder_names(["a/x.csv", "b/X.csv", "...csv", "runs.csv", "c/x-2.csv"]) == [
        "x",
        "X-3",
        "recording",
        "runs",
        "x-2",
    ]


def test_unknown_options_are_refused_before_anything_runs(recordings, tmp_path):
    with pytest.raises(TypeError, match="epoch"):
        zdask.run_many(recordings[0][:1], tmp_path / "o", client=object(), epoch=3)
    assert not (tmp_path / "o").exists()


def test_cli_scheduler_local(zeroflow_bin, recordings, tmp_path):
    paths, broken = recordings
    env = {**os.environ, "ZEROFLOW_PYTHON": sys.executable}
    proc = subprocess.run(
        [
            str(zeroflow_bin),
            "run",
            paths[0],
            paths[1],
            broken,
            "--out",
            str(tmp_path / "o"),
            "--scheduler",
            "local",
            "--device",
            "cpu",
            "--epochs",
            "1",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert (
        proc.stderr.strip().splitlines()[-1]
        == f"zeroflow: error: 1 of 3 recordings failed (see {tmp_path / 'o' / 'runs.csv'})"
    )
    assert sorted(os.listdir(tmp_path / "o")) == ["r1", "r2", "runs.csv"]


def test_cli_scheduler_errors(zeroflow_bin, recordings, tmp_path):
    paths, _ = recordings
    args = [str(zeroflow_bin), "run", paths[0], "--out", str(tmp_path / "o"), "--scheduler", "local"]
    missing = subprocess.run(
        args, capture_output=True, text=True, env={**os.environ, "ZEROFLOW_PYTHON": "/nonexistent"}
    )
    assert missing.returncode == 1 and "ZEROFLOW_PYTHON" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    usage = run_cli(zeroflow_bin, *args[1:], "--max-device-memory", "1M", check=False)
    assert usage.returncode == 2 and "--max-device-memory: 1M is under the 64M" in usage.stderr, usage.stderr
    assert not (tmp_path / "o").exists()


def test_a_worker_that_dies_is_replaced_and_its_recording_runs_again(recordings, sequential, tmp_path):
    """The worker running recording 2 of 4 dies (os._exit, once): Dask's nanny starts a new one, the
    scheduler runs the recording again, and every result is still there and equals the CLI's."""
    paths, _ = recordings
    marker = tmp_path / "died"

    class DieOnce(distributed.WorkerPlugin):  # defined here: pickled by value to the workers
        def __init__(self, marker):
            self.marker = str(marker)

        def transition(self, key, start, finish, **kwargs):
            if finish == "executing" and str(key).startswith("zeroflow-run-1-") and not os.path.exists(self.marker):
                open(self.marker, "w").close()
                os._exit(1)

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        with distributed.Client(cluster) as c:
            c.register_plugin(DieOnce(marker))
            frame = zdask.run_many(paths, tmp_path / "out", client=c, epochs=EPOCHS, device="cpu", progress=False)
    finally:
        cluster.close()
    assert marker.exists(), "no worker died: the test did not test anything"
    assert list(frame["status"]) == ["ok"] * len(paths), frame["error"].tolist()
    names = zdask.folder_names(paths)
    for name in names:
        got, want = read_beats(tmp_path / "out" / name), read_beats(sequential / name)
        assert got["peak"].tolist() == want["peak"].tolist(), name
        np.testing.assert_allclose(got["score"], want["score"], rtol=1e-5, atol=1e-6, err_msg=name)
    leftovers = [p.name for p in (tmp_path / "out").iterdir() if p.name not in set(names) | {"runs.csv"}]
    assert leftovers == [], leftovers
