"""End-to-end tests of the command-line tool against independent references (NumPy)."""

import csv
import json
import math
import shutil

import numpy as np
import pytest
from conftest import run_cli, score_on_cpu
from seed_reference import segment

# The outputs contract's columns come first and keep their meaning; the rhythm columns follow.
BEATS_COLUMNS = [
    "beat",
    "start",
    "peak",
    "length",
    "kept",
    "split",
    "score",
    "mu0",
    "mu1",
    "rr_before",
    "rr_after",
    "local_rr",
    "morphology",
    "rhythm",
    "flags",
    "class",
    "similarity",
    "prematurity",
    "af",
    "p_similarity",
    "p_coherence",
    "clarity",
    "family",
    "other_lead_similarity",
    "other_lead_deviation",
    "f_wave_rate",
]


def read_beats(folder):
    with open(folder / "beats.csv", newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == BEATS_COLUMNS
        return list(reader)


def test_generate_writes_signal_and_labels(short_recording):
    values = np.loadtxt(short_recording, skiprows=1, dtype=np.float64)
    assert values.shape == (int(0.2 * 3600 * 250),)
    labels = np.genfromtxt(
        short_recording.with_suffix(".labels.csv"), delimiter=",", names=True, dtype=None, encoding="utf-8"
    )
    assert set(labels["symbol"]) <= {"N", "V"}  # the fixture asks for no atrial premature beats
    assert 0.02 < np.mean(labels["symbol"] == "V") < 0.09
    # Mean heart rate near the requested 90 bpm.
    bpm = 60 * 250 / np.mean(np.diff(labels["sample"]))
    assert 85 < bpm < 95


def test_run_outputs_follow_the_contract(short_run):
    out, proc = short_run
    rows = read_beats(out)
    summary = json.loads((out / "summary.json").read_text())
    for key in [
        "input",
        "samples",
        "sample_rate",
        "device",
        "beats_found",
        "beats_kept",
        "stages_ms",
        "peak_host_bytes",
        "peak_device_bytes",
        "loss_per_epoch",
        "test_loss",
    ]:
        assert key in summary, key
    assert summary["device"] == "cpu"
    assert summary["beats_found"] == len(rows)
    kept = [r for r in rows if r["kept"] == "1"]
    assert summary["beats_kept"] == len(kept)
    assert len(summary["loss_per_epoch"]) == 8
    assert len(kept) == len(rows)  # every detected beat is embedded and scored
    assert all(r["score"] != "" and r["split"] in ("train", "test") for r in kept)
    for r in rows:  # the rhythm columns: R-R intervals in seconds at ~90 bpm, a local rhythm, z-scores
        assert 0.2 < float(r["rr_before"]) < 2.0 and 0.2 < float(r["rr_after"]) < 2.0
        assert 0.5 < float(r["local_rr"]) < 0.8
        float(r["morphology"]), float(r["rhythm"])
    n_test = sum(r["split"] == "test" for r in kept)
    assert abs(n_test - 0.25 * len(kept)) <= 1
    assert (out / "model.safetensors").exists() and (out / "report.html").exists()
    assert "epoch 8/8" in proc.stderr  # progress reaches the user
    # Loss goes down during training.
    assert summary["loss_per_epoch"][-1] < summary["loss_per_epoch"][0]


def test_beats_match_the_seed_numpy_reference(zeroflow_bin, short_recording, tmp_path):
    # The seed's method is one option away, and gives the seed's beats.
    out = tmp_path / "seed"
    run_cli(
        zeroflow_bin,
        "run",
        short_recording,
        "--out",
        out,
        "--device",
        "cpu",
        "--epochs",
        1,
        "--segmentation",
        "gate-to-gate",
    )
    signal = np.loadtxt(short_recording, skiprows=1, dtype=np.float32)
    _, indices, lengths, kept = segment(signal)  # with zeroflow's weak-peak filter (ratio 0.1)
    rows = read_beats(out)
    starts = np.array([int(r["start"]) for r in rows])
    ours_lengths = np.array([int(r["length"]) for r in rows])
    ours_kept = np.array([r["kept"] == "1" for r in rows])
    # Same candidates: float32 direct convolution vs float64 FFT may only flip exact near-ties.
    common = np.intersect1d(starts, indices[:-1])
    assert len(common) >= 0.995 * len(indices[:-1]), (len(common), len(indices))
    assert abs(len(starts) - len(indices[:-1])) <= 0.005 * len(indices)
    if len(starts) == len(indices) - 1 and np.array_equal(starts, indices[:-1]):
        assert np.array_equal(ours_lengths, lengths)
        assert np.array_equal(ours_kept, kept)


def test_detection_and_ranking_quality_on_synthetic_data(short_run):
    out, _ = short_run
    quality = json.loads((out / "summary.json").read_text())["evaluation"]
    assert quality["sensitivity"] >= 0.995
    assert quality["positive_predictivity"] >= 0.995
    v = quality["classes"]["V"]
    assert v["unscored_beats"] == 0  # every detected beat is scored
    assert v["beats"] >= 0.8 * quality["labelled_beats"] * 0.05 * 0.5
    assert v["auroc"] >= 0.9  # only 8 epochs here; the demo measures the full schedule


def test_score_with_saved_model_reproduces_scores(zeroflow_bin, short_recording, short_run, tmp_path):
    out, _ = short_run
    score_on_cpu(zeroflow_bin, short_recording, out / "model.safetensors", tmp_path)
    trained = {r["beat"]: r for r in read_beats(out)}
    scored = read_beats(tmp_path)
    assert len(scored) == len(trained)
    for r in scored:
        if r["kept"] == "1":
            assert math.isclose(float(r["score"]), float(trained[r["beat"]]["score"]), rel_tol=1e-4, abs_tol=1e-6)
            assert r["split"] == "-"


@pytest.mark.parametrize(
    "content, needle",
    [
        ("heartbeats\n1.0\n2.0\nabc\n4.0\n", ":4"),
        ("heartbeats\n", "no data"),
        ("", "empty"),
    ],
)
def test_bad_input_is_one_readable_line(zeroflow_bin, tmp_path, content, needle):
    bad = tmp_path / "bad.csv"
    bad.write_text(content)
    out = tmp_path / "out"
    proc = run_cli(zeroflow_bin, "run", bad, "--out", out, "--device", "cpu", check=False)
    assert proc.returncode == 1
    lines = [l for l in proc.stderr.splitlines() if l.startswith("zeroflow: error:")]
    assert len(lines) == 1 and "bad.csv" in lines[0] and needle in lines[0].lower(), proc.stderr
    assert not (out / "beats.csv").exists() and not (out / "summary.json").exists()


def test_missing_file_and_bad_flags(zeroflow_bin, tmp_path):
    proc = run_cli(zeroflow_bin, "run", tmp_path / "nope.csv", check=False)
    assert proc.returncode != 0 and "nope.csv" in proc.stderr
    proc = run_cli(zeroflow_bin, "run", "--device", "tpu", tmp_path / "x.csv", check=False)
    assert proc.returncode != 0


def test_help_lists_every_command(zeroflow_bin):
    text = run_cli(zeroflow_bin, "--help").stdout
    for command in ["run", "score", "generate", "demo", "info"]:
        assert command in text


def test_many_recordings_one_folder_each_and_a_failure_skipped(zeroflow_bin, short_recording, short_run, tmp_path):
    (tmp_path / "sub").mkdir()
    first, second = tmp_path / "a.csv", tmp_path / "sub" / "a.csv"  # the same name twice
    shutil.copy(short_recording, first)
    shutil.copy(short_recording, second)
    bad = tmp_path / "bad.csv"
    bad.write_text("heartbeats\n1.0\n2.0\nabc\n")
    out = tmp_path / "out"
    proc = run_cli(zeroflow_bin, "run", first, bad, second, "--out", out, "--device", "cpu", "--epochs", 2, check=False)
    assert proc.returncode == 1
    errors = [l for l in proc.stderr.splitlines() if l.startswith("zeroflow: error:")]
    assert errors == [f"zeroflow: error: 1 of 3 recordings failed (see {out / 'runs.csv'})"], proc.stderr
    with open(out / "runs.csv", newline="") as f:
        runs = list(csv.DictReader(f))
    assert [r["status"] for r in runs] == ["ok", "failed", "ok"]
    assert [r["out"] for r in runs] == [str(out / "a"), str(out / "bad"), str(out / "a-2")]
    assert "bad.csv:4" in runs[1]["error"] and "abc" in runs[1]["error"]
    assert not (out / "bad").exists()  # nothing half-written for the failed recording
    single, _ = short_run
    expected = [(r["start"], r["peak"], r["length"], r["kept"]) for r in read_beats(single)]
    for folder in ("a", "a-2"):
        for name in ("beats.csv", "summary.json", "report.html", "model.safetensors"):
            assert (out / folder / name).exists(), f"{folder}/{name}"
        beats = [(r["start"], r["peak"], r["length"], r["kept"]) for r in read_beats(out / folder)]
        assert beats == expected  # the same segmentation as a run on its own
        assert int(runs[0]["beats_found"]) == len(expected)


def test_labels_flag_names_one_recording(zeroflow_bin, short_recording, tmp_path):
    proc = run_cli(
        zeroflow_bin,
        "run",
        short_recording,
        short_recording,
        "--labels",
        short_recording,
        "--out",
        tmp_path,
        check=False,
    )
    assert proc.returncode == 2  # a usage error
    assert "--labels names one file, but 2 recordings were given" in proc.stderr
