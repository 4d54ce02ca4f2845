"""Hostile input to population training, through the CLI and the Python API: every refusal is one
line that names what is wrong, with the documented exit code (2: usage, 1: failure), before any
training, and nothing is left behind (no model file, no checkpoint, inputs untouched)."""

import os
import subprocess

import pytest

import zeroflow as zf
from zeroflow import population


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "r.csv"
    zf.synth.write_ecg_csv(path, hours=0.05, seed=3, anomaly_rate=0.05)
    return str(path)


def cli(zeroflow_bin, *args):
    env = {k: v for k, v in os.environ.items() if k != "ZEROFLOW_PYTHON"}
    return subprocess.run(
        [str(zeroflow_bin), "train-population", *map(str, args)], capture_output=True, text=True, env=env, timeout=120
    )


CASES = [
    # (arguments after the recording and --out, exit code, words of the one error line)
    (["--batch", "0"], 2, "--batch: 0 is not in [1,"),
    (["--batch", "-5"], 2, "--batch"),
    (["--epochs", "0"], 2, "--epochs: 0 is not in [1,"),
    (["--threads", "-1"], 2, "--threads: -1 is not in [0,"),
    (["--sample-rate", "0"], 2, "--sample-rate: 0 is not in [50,"),
    (["--checkpoint-every", "-1"], 2, "--checkpoint-every"),
    (["--backend", "nccl"], 2, "--backend"),
    (["--batch", "100000"], 1, "training rows make no whole batch of 100000 rows"),
    (["--resume"], 1, "there is no checkpoint"),
    (["--gpus", "2"], 2, "--gpus and --max-device-memory need GPUs"),
]


@pytest.mark.parametrize("extra, code, words", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_cli_refuses_in_one_line(zeroflow_bin, recording, tmp_path, extra, code, words):
    out = tmp_path / "m.safetensors"
    proc = cli(zeroflow_bin, recording, "--out", out, "--device", "cpu", *extra)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("zeroflow: error:")]
    assert proc.returncode == code, proc.stderr
    assert len(errors) == 1 and words in errors[0], proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_cli_refuses_missing_folders_and_folder_outputs_before_training(zeroflow_bin, recording, tmp_path):
    for args, words in [
        (["--out", tmp_path / "no" / "m.safetensors"], "the folder"),
        (["--out", tmp_path / "m.safetensors", "--checkpoint", tmp_path], "is a folder; give a file in it"),
        (["--out", tmp_path], "is a folder"),
        (["--out", tmp_path / "m.safetensors", "--checkpoint", tmp_path / "no" / "c"], "does not exist"),
    ]:
        proc = cli(zeroflow_bin, recording, *args, "--device", "cpu", "--force")
        assert proc.returncode == 2 and words in proc.stderr, (args, proc.stderr)
        assert "epoch" not in proc.stderr  # refused before any training
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_cli_survives_recordings_that_give_no_beats(zeroflow_bin, tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("heartbeats\n")
    text = tmp_path / "text.csv"
    text.write_text("heartbeats\nhello\nworld\n")
    flat = tmp_path / "flat.csv"
    flat.write_text("heartbeats\n" + "0.0\n" * 5000)
    proc = cli(zeroflow_bin, empty, text, flat, "--out", tmp_path / "m.safetensors", "--device", "cpu")
    assert proc.returncode == 1, proc.stderr
    assert "no recording gave beats" in proc.stderr and proc.stderr.count("zeroflow: error:") == 1
    assert not (tmp_path / "m.safetensors").exists() and not (tmp_path / "m.safetensors.checkpoint").exists()


@pytest.mark.parametrize(
    "change, words",
    [
        (dict(batch=0), "batch"),
        (dict(epochs=0), "epochs"),
        (dict(learning_rate=-1.0), "learning_rate"),
        (dict(test_fraction=1.0), "test_fraction"),
        (dict(device="cuda:99"), ""),
        (dict(resume=True), "there is no checkpoint"),
    ],
)
def test_python_refuses_with_a_clear_error(recording, tmp_path, change, words):
    options = {**dict(epochs=1, batch=32, device="cpu"), **change}
    with pytest.raises((ValueError, zf.Error)) as refused:
        population.train([recording], tmp_path / "m.safetensors", **options)
    assert words in str(refused.value) and "\n" not in str(refused.value).strip()
    assert not (tmp_path / "m.safetensors").exists() and not (tmp_path / "m.safetensors.checkpoint").exists()


def test_python_refuses_missing_folders_before_training(recording, tmp_path):
    with pytest.raises(ValueError, match="the folder .* does not exist"):
        population.train([recording], tmp_path / "no" / "m.safetensors", epochs=1, batch=32, device="cpu")
    with pytest.raises(ValueError, match="is a folder; give a file in it"):
        population.train([recording], tmp_path / "m.safetensors", checkpoint=tmp_path, epochs=1, batch=32, device="cpu")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
