"""`zeroflow run` and `score` on raw recordings (NAME.f32, NAME.i16: little-endian samples without a
header): the same samples as raw and as CSV give the same beats and scores, and what the bytes cannot
say (the sample rate) or a size that is no whole number of samples is refused in one line."""

import csv
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import run_cli

RATE = 250
GAIN = 200  # ADC units per mV, as MIT-BIH stores its records


def _beats(folder):
    with open(folder / "beats.csv", newline="") as f:
        return list(csv.DictReader(f))


def _errors(proc):
    return [line for line in proc.stderr.splitlines() if line.startswith("zeroflow: error:")]


def _write_csv(path, samples):
    """One column of float32 values, each written with the fewest digits that read back as it,
    so that the CSV reader and a raw file hold the very same float32 numbers."""
    text = "\n".join(np.format_float_positional(v, unique=True, trim="-") for v in samples)
    path.write_text("mlii\n" + text + "\n")


@pytest.fixture(scope="module")
def recording(zeroflow_bin, tmp_path_factory):
    """3 minutes of synthetic ECG, quantised to int16 at GAIN units per mV, as CSV, .f32 and .i16
    (and the labels beside each); their samples are equal as float32 numbers."""
    folder = tmp_path_factory.mktemp("raw")
    generated = folder / "generated.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 0.05, "--seed", 11, "--sample-rate", RATE, "--out", generated)
    mv = np.loadtxt(generated, skiprows=1, dtype=np.float64)
    stored = np.round(mv * GAIN).astype("<i2")
    # What the reader makes of an int16 sample: (stored - 0) / gain in double, rounded once to float32.
    samples = (stored.astype(np.float64) / GAIN).astype(np.float32)
    labels = (folder / "generated.labels.csv").read_text()
    for name in ("rec", "rec32", "rec16"):
        (folder / f"{name}.labels.csv").write_text(labels)
    _write_csv(folder / "rec.csv", samples)
    samples.astype("<f4").tofile(folder / "rec32.f32")
    stored.tofile(folder / "rec16.i16")
    return folder, samples


@pytest.fixture(scope="module")
def csv_run(zeroflow_bin, recording, tmp_path_factory):
    folder, _ = recording
    out = tmp_path_factory.mktemp("csv_run")
    run_cli(zeroflow_bin, "run", folder / "rec.csv", "--out", out, "--device", "cpu", "--epochs", 3)
    return out


def _assert_same_results(got, want):
    assert len(got) == len(want) > 100
    for g, w in zip(got, want):
        assert (g["start"], g["peak"], g["length"], g["kept"], g["flags"]) == (
            w["start"],
            w["peak"],
            w["length"],
            w["kept"],
            w["flags"],
        ), g["beat"]
        if w["score"]:
            assert math.isclose(float(g["score"]), float(w["score"]), rel_tol=1e-4, abs_tol=1e-6), g["beat"]


@pytest.mark.parametrize("raw, flags", [("rec32.f32", []), ("rec16.i16", ["--gain", GAIN])])
def test_raw_recording_gives_the_beats_and_scores_of_its_csv(zeroflow_bin, recording, csv_run, tmp_path, raw, flags):
    folder, samples = recording
    out = tmp_path / "out"
    run_cli(
        zeroflow_bin, "run", folder / raw, "--sample-rate", RATE, *flags, "--out", out, "--device", "cpu", "--epochs", 3
    )
    _assert_same_results(_beats(out), _beats(csv_run))


def test_score_picks_a_channel_of_an_interleaved_raw_recording(zeroflow_bin, recording, csv_run, tmp_path):
    folder, samples = recording
    frames = np.stack([np.zeros_like(samples), samples, -samples], axis=1)  # the ECG is channel 1 of 3
    three = tmp_path / "three.f32"
    frames.astype("<f4").tofile(three)
    out = tmp_path / "out"
    run_cli(
        zeroflow_bin,
        "score",
        three,
        "--channels",
        3,
        "--lead",
        1,
        "--sample-rate",
        RATE,
        "--model",
        csv_run / "model.safetensors",
        "--out",
        out,
        "--device",
        "cpu",
    )
    _assert_same_results(_beats(out), _beats(csv_run))


def test_a_raw_recording_needs_its_sample_rate(zeroflow_bin, recording, tmp_path):
    folder, _ = recording
    out = tmp_path / "out"
    for command in (["run"], ["score", "--model", folder / "rec.csv"]):
        proc = run_cli(zeroflow_bin, *command, folder / "rec16.i16", "--out", out, check=False)
        assert proc.returncode == 2, proc.stderr
        assert _errors(proc) == proc.stderr.splitlines(), proc.stderr  # that line alone
        (line,) = _errors(proc)
        assert "rec16.i16" in line and "--sample-rate" in line, line
        assert not out.exists()


def test_raw_layout_flags_without_a_raw_recording_are_usage_errors(zeroflow_bin, recording, tmp_path):
    folder, _ = recording
    for flag in ("--channels", "--gain"):
        proc = run_cli(zeroflow_bin, "run", folder / "rec.csv", flag, 2, "--out", tmp_path / "out", check=False)
        assert proc.returncode == 2, proc.stderr
        (line,) = _errors(proc)
        assert flag in line and ".f32" in line, line


@pytest.mark.parametrize("name, size", [("cut.f32", 4 * 1000 + 3), ("cut.i16", 2 * 1000 + 1)])
def test_a_raw_recording_cut_mid_sample_is_refused(zeroflow_bin, recording, tmp_path, name, size):
    folder, _ = recording
    source = folder / ("rec32.f32" if name.endswith(".f32") else "rec16.i16")
    cut = tmp_path / name
    cut.write_bytes(source.read_bytes()[:size])
    out = tmp_path / "out"
    proc = run_cli(zeroflow_bin, "run", cut, "--sample-rate", RATE, "--out", out, "--device", "cpu", check=False)
    assert proc.returncode == 1, proc.stderr  # bad input, as a malformed CSV
    (line,) = _errors(proc)
    assert str(cut) in line and f"{size} bytes are not a whole number of" in line, line
    assert not out.exists()  # a failed run leaves no folder it made


def test_raw_layout_flags_reach_the_schedulers_workers(zeroflow_bin, recording, tmp_path):
    """`run --scheduler` forwards --gain (and every other flag): its workers read the raw recording
    as `run` does."""
    pytest.importorskip("dask.distributed")
    folder, _ = recording
    flags = [folder / "rec16.i16", "--sample-rate", RATE, "--gain", GAIN, "--device", "cpu", "--epochs", 2]
    run_cli(zeroflow_bin, "run", *flags, "--out", tmp_path / "direct")
    env = dict(os.environ, ZEROFLOW_PYTHON=sys.executable)
    proc = subprocess.run(
        [str(zeroflow_bin), "run", *map(str, flags), "--scheduler", "local", "--out", str(tmp_path / "dask")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    direct = json.loads((tmp_path / "direct" / "summary.json").read_text())
    (name,) = [d for d in os.listdir(tmp_path / "dask") if d != "runs.csv"]
    scheduled = json.loads((tmp_path / "dask" / name / "summary.json").read_text())
    assert scheduled["options"] == direct["options"]
    assert scheduled["options"]["gain"] == str(GAIN) or float(scheduled["options"]["gain"]) == float(GAIN)
    assert scheduled["beats_found"] == direct["beats_found"]
