"""`zeroflow run --max-device-memory` (and zeroflow.run(max_device_memory=...)): the recording is
segmented and scored in chunks, and every output equals the in-memory run's; beat rows larger than
the budget are trained on from host memory; the flag's values and the contradictions it meets are
usage errors. GPU cases skip without one."""

import csv
import json
import shutil

import numpy as np
import pytest
from conftest import run_cli

import zeroflow as zf


@pytest.fixture(scope="module")
def long_recording(zeroflow_bin, tmp_path_factory):
    """1.7 h at 250 Hz (1.53 M samples): a 64M budget cuts it in three chunks on the host."""
    csv_path = tmp_path_factory.mktemp("chunked") / "long.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 1.7, "--apb-rate", 0.02, "--seed", 19, "--out", csv_path)
    return csv_path


def beats(folder):
    with open(folder / "beats.csv", newline="") as f:
        return list(csv.DictReader(f))


def cli_run(zeroflow_bin, recording, out, device, *extra):
    return run_cli(zeroflow_bin, "run", recording, "--out", out, "--device", device, "--epochs", 2, *extra)


def whole_and_chunked(zeroflow_bin, recording, tmp_path, device, budget):
    """The run without a budget and the run under `budget`: the chunked run's process, each run's
    beats and each run's summary."""
    whole, chunked = tmp_path / "whole", tmp_path / "chunked"
    cli_run(zeroflow_bin, recording, whole, device)
    proc = cli_run(zeroflow_bin, recording, chunked, device, "--max-device-memory", budget)
    summaries = [json.loads((folder / "summary.json").read_text()) for folder in (whole, chunked)]
    return proc, beats(whole), beats(chunked), *summaries


def test_cli_chunked_run_writes_the_same_beats(zeroflow_bin, long_recording, tmp_path):
    proc, a, b, sa, sb = whole_and_chunked(zeroflow_bin, long_recording, tmp_path, "cpu", "64M")
    assert "chunks of" in proc.stderr
    assert len(a) > 5000
    assert a == b  # every column, as text: the same beats, scores, latents and flags
    assert sa["beats_found"] == sb["beats_found"]
    assert sa["test_loss"] == sb["test_loss"]
    # The beats themselves against the generator's labels (an independent reference): every
    # labelled beat has a detected peak within 150 ms.
    labels = np.genfromtxt(
        long_recording.with_suffix(".labels.csv"), delimiter=",", names=True, dtype=None, encoding="utf-8"
    )
    peaks = np.array([int(r["peak"]) for r in b])
    nearest = np.abs(peaks[np.clip(np.searchsorted(peaks, labels["sample"]), 0, len(peaks) - 1)] - labels["sample"])
    before = np.abs(peaks[np.clip(np.searchsorted(peaks, labels["sample"]) - 1, 0, len(peaks) - 1)] - labels["sample"])
    assert np.mean(np.minimum(nearest, before) <= 0.15 * 250) > 0.99


@pytest.mark.parametrize(
    "value, why",
    [("10M", "under the 64M"), ("lots", "as a number of bytes"), ("2X", "as a number of bytes")],
)
def test_cli_refuses_bad_budgets(zeroflow_bin, long_recording, tmp_path, value, why):
    proc = run_cli(
        zeroflow_bin, "run", long_recording, "--out", tmp_path / "o", "--max-device-memory", value, check=False
    )
    assert proc.returncode == 2, proc.stderr
    assert why in proc.stderr


def test_cli_refuses_a_budget_with_the_seed_segmentation(zeroflow_bin, long_recording, tmp_path):
    proc = run_cli(
        zeroflow_bin,
        "run",
        long_recording,
        "--out",
        tmp_path / "o",
        "--max-device-memory",
        "1G",
        "--segmentation",
        "seed",
        check=False,
    )
    assert proc.returncode == 2
    assert "--segmentation gate-to-gate" in proc.stderr


def python_run(recording, device, budget):
    return zf.pipeline.run(
        recording, device=device, epochs=2, labels=None, route_torch_memory=False, max_device_memory=budget
    )


@pytest.mark.parametrize("budget", ["64M", 64 << 20])
def test_python_run_takes_the_budget(long_recording, budget):
    whole = python_run(long_recording, "cpu", None)
    chunked = python_run(long_recording, "cpu", budget)
    for name in ("peak", "start", "length", "split", "score", "mu0", "mu1", "histogram"):
        np.testing.assert_array_equal(np.asarray(getattr(chunked, name)), np.asarray(getattr(whole, name)), name)
    assert chunked.epoch_loss == whole.epoch_loss


def test_python_run_refuses_a_small_budget(long_recording):
    with pytest.raises(ValueError, match="max_device_memory=1M: 1M is under the 64M"):
        python_run(long_recording, "cpu", "1M")


@pytest.mark.skipif(not zf.cuda_available(), reason="no GPU")
def test_gpu_chunked_run_stays_under_the_budget(zeroflow_bin, long_recording, tmp_path):
    _, a, b, _, sb = whole_and_chunked(zeroflow_bin, long_recording, tmp_path, "cuda", "96M")
    assert [r["peak"] for r in a] == [r["peak"] for r in b]
    np.testing.assert_allclose([float(r["score"]) for r in b], [float(r["score"]) for r in a], rtol=1e-5, atol=1e-6)
    assert 0 < sb["peak_device_bytes"] <= 96 << 20
    shutil.rmtree(tmp_path)


@pytest.fixture(scope="module")
def many_beats_record(tmp_path_factory):
    """33 h at 250 Hz and 150 bpm as a WFDB record (format 16, read without parsing): about 290,000
    beats, whose rows (1 KiB each) take 4.4 times a 64M budget."""
    recording = zf.synth.generate_ecg(33, heart_rate=150, seed=29)
    folder = tmp_path_factory.mktemp("many_beats")
    stored = np.round(np.asarray(recording.signal) * 200).astype("<i2")
    stored.tofile(folder / "fast.dat")
    (folder / "fast.hea").write_text(f"fast 1 250 {stored.size}\nfast.dat 16 200(0)/mV 16 0 0 0 0 ECG\n")
    return folder / "fast.hea"


@pytest.mark.skipif(not zf.cuda_available(), reason="no GPU")
def test_gpu_trains_rows_four_times_the_budget_from_host_memory(zeroflow_bin, many_beats_record, tmp_path):
    proc, a, b, sa, sb = whole_and_chunked(zeroflow_bin, many_beats_record, tmp_path, "cuda", "64M")
    assert "from host memory" in proc.stderr
    assert len(a) * 1024 >= 4 * (64 << 20)  # rows of 256 float32 samples each
    assert [r["peak"] for r in a] == [r["peak"] for r in b]
    np.testing.assert_allclose([float(r["score"]) for r in b], [float(r["score"]) for r in a], rtol=1e-5, atol=1e-6)
    assert sb["test_loss"] == pytest.approx(sa["test_loss"], rel=1e-6)
    # The CLI routes LibTorch's memory through the budget: its tensors are counted here too.
    assert 0 < sb["peak_device_bytes"] <= 64 << 20
    shutil.rmtree(tmp_path)
