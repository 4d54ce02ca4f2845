"""No user file is ever lost: what a command may write or delete is only what it created, only
inside its output, never a file it reads, and never without --force (issue: hardening, round
three). Each test makes the situation a user could make and checks that the command refuses with
one line that names the file, and that every file is still there, byte for byte."""

import json
import shutil

import pytest
from conftest import run_cli
from test_cli_hostile import error_lines, snapshot


def generate(zeroflow_bin, path, *extra, seed=3):
    return run_cli(zeroflow_bin, "generate", "--hours", 0.05, "--seed", seed, "--out", path, *extra, check=False)


def run(zeroflow_bin, *args):
    return run_cli(zeroflow_bin, "run", *args, "--device", "cpu", "--epochs", 1, check=False)


def test_force_never_deletes_a_recording_inside_the_results(zeroflow_bin, tmp_path):
    out = tmp_path / "o"
    assert run(zeroflow_bin, generate_into(zeroflow_bin, tmp_path / "first.csv"), "--out", out).returncode == 0
    (out / "figures").mkdir()
    recording = out / "figures" / "rec.csv"
    assert generate(zeroflow_bin, recording).returncode == 0
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, recording, "--out", out, "--force")
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert str(recording) in line and "--out" in line and str(out / "figures") in line
    assert snapshot(tmp_path) == before


def generate_into(zeroflow_bin, path):
    assert generate(zeroflow_bin, path).returncode == 0
    return path


@pytest.mark.usefixtures("png_zeroflow_bin")
def test_force_never_deletes_labels_or_a_model_inside_the_results(zeroflow_bin, tmp_path):
    out = tmp_path / "o"
    recording = generate_into(zeroflow_bin, tmp_path / "rec.csv")
    assert run(zeroflow_bin, recording, "--out", out, "--figures", "png").returncode == 0
    labels = out / "figures" / "mine.labels.csv"
    shutil.copy(recording.with_suffix(".labels.csv"), labels)
    model = out / "figures" / "kept.pt"
    shutil.copy(out / "model.safetensors", model)
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, recording, "--out", out, "--force", "--labels", labels)
    assert proc.returncode == 1 and str(labels) in error_lines(proc)[0]
    proc = run_cli(
        zeroflow_bin, "score", recording, "--model", model, "--out", out, "--force", "--device", "cpu", check=False
    )
    assert proc.returncode == 1 and str(model) in error_lines(proc)[0]
    assert snapshot(tmp_path) == before


def test_an_input_that_is_itself_an_earlier_result_is_kept(zeroflow_bin, tmp_path):
    out = tmp_path / "o"
    recording = generate_into(zeroflow_bin, tmp_path / "rec.csv")
    assert run(zeroflow_bin, recording, "--out", out).returncode == 0
    model = out / "model.safetensors"
    data = model.read_bytes()
    proc = run_cli(
        zeroflow_bin, "score", recording, "--model", model, "--out", out, "--force", "--device", "cpu", check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert model.read_bytes() == data  # scored with it, and it is still the model that was read


def test_generate_never_overwrites_without_force(zeroflow_bin, tmp_path):
    target = tmp_path / "beats.csv"
    target.write_text("beat,peak\n0,100\n")  # a user's file of that name
    labels = tmp_path / "beats.labels.csv"
    labels.write_text("sample,symbol\n100,N\n")
    before = snapshot(tmp_path)
    proc = generate(zeroflow_bin, target)
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert str(target) in line and "--force" in line
    assert snapshot(tmp_path) == before
    assert generate(zeroflow_bin, target, "--force").returncode == 0
    assert target.read_text().splitlines()[0] != "beat,peak"


def test_demo_never_takes_a_users_recording_for_its_own(zeroflow_bin, tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "recording.csv").write_text("mlii\n0.1\n0.2\n")
    (folder / "recording.labels.csv").write_text("sample,symbol\n1,N\n")
    before = snapshot(tmp_path)
    proc = run_cli(zeroflow_bin, "demo", "--hours", 0.05, "--out", folder, "--device", "cpu", check=False)
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert str(folder / "recording.csv") in line and "--force" in line
    assert snapshot(tmp_path) == before
    # A figures/ folder of the user's is not an earlier demo's either.
    (folder / "figures").mkdir()
    (folder / "figures" / "mine.png").write_bytes(b"\x89PNG")
    before = snapshot(tmp_path)
    proc = run_cli(zeroflow_bin, "demo", "--hours", 0.05, "--out", folder, "--device", "cpu", check=False)
    assert proc.returncode == 1 and "--force" in error_lines(proc)[0]
    assert snapshot(tmp_path) == before


def test_evaluate_never_writes_over_what_it_reads(zeroflow_bin, tmp_path):
    out = tmp_path / "o"
    recording = generate_into(zeroflow_bin, tmp_path / "rec.csv")
    assert run(zeroflow_bin, recording, "--out", out).returncode == 0
    labels = json.loads((out / "summary.json").read_text())["labels"]
    before = snapshot(tmp_path)
    for flag, target in (("--json", out / "beats.csv"), ("--per-beat", labels), ("--json", out / "summary.json")):
        proc = run_cli(zeroflow_bin, "evaluate", out, flag, target, check=False)
        assert proc.returncode == 1, (flag, target, proc.stderr)
        [line] = error_lines(proc)
        assert str(target) in line and "reads" in line
    assert snapshot(tmp_path) == before
