"""The command-line tool against hostile inputs: file names that would lead outputs (or the clean-up of a
failure) out of --out, names that collide, links planted in --out. Every case checks the exit code, the
single error line, and every file around the run before and after it."""
import csv
import hashlib
import json
import os
import pathlib
import shutil

import pytest

from conftest import run_cli

BAD_CSV = "x\nabc\n"  # a header, then a value that is no number: the recording fails to load


@pytest.fixture(scope="module")
def recording(zeroflow_bin, tmp_path_factory):
    """Three minutes of synthetic ECG (250 Hz), enough for a run of one epoch."""
    csv_path = tmp_path_factory.mktemp("hostile") / "rec.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 0.05, "--seed", 3, "--out", csv_path)
    return csv_path


def snapshot(root):
    """Every entry under root (links not followed): relative path -> what it is and holds."""
    root = pathlib.Path(root)
    entries = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = pathlib.Path(folder) / name
            key = str(path.relative_to(root))
            if path.is_symlink():
                entries[key] = ("link", os.readlink(path))
            elif path.is_dir():
                entries[key] = ("dir",)
            else:
                entries[key] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
    return entries


def run(zeroflow_bin, *args):
    return run_cli(zeroflow_bin, "run", *args, "--device", "cpu", "--epochs", 1, check=False)


def error_lines(proc):
    return [line for line in proc.stderr.splitlines() if line.startswith("zeroflow: error:")]


def read_runs(out):
    with open(out / "runs.csv", newline="") as f:
        return list(csv.DictReader(f))


def check_folders(out, runs):
    """Every recording's folder is a real folder directly in out; the names differ even ignoring case,
    and none is hidden, '.', '..', or holds a control character."""
    names = [pathlib.Path(r["out"]).name for r in runs]
    assert len({n.lower() for n in names}) == len(names), names
    for r, name in zip(runs, names):
        assert pathlib.Path(r["out"]).parent == out
        assert name and not name.startswith(".") and all(ord(c) >= 0x20 and c not in "/\\" for c in name), name
        folder = out / name
        if r["status"] == "ok":
            assert folder.is_dir() and not folder.is_symlink()
            assert json.loads((folder / "summary.json").read_text())["input"] == r["input"]
    return names


def test_dot_stem_cannot_reach_the_parent_of_out(zeroflow_bin, recording, tmp_path):
    # The reproduction: "...csv" has the stem "..", so out/".." was the project folder, and the
    # failed recording's clean-up removed it with notes.txt.
    project, inputs = tmp_path / "project", tmp_path / "in"
    project.mkdir()
    inputs.mkdir()
    (project / "notes.txt").write_text("important\n")
    (inputs / "...csv").write_text(BAD_CSV)
    shutil.copy(recording, inputs / "b.csv")
    before = snapshot(tmp_path)
    out = project / "results"
    proc = run(zeroflow_bin, inputs / "...csv", inputs / "b.csv", "--out", out)
    assert proc.returncode == 1, proc.stderr
    assert error_lines(proc) == [f"zeroflow: error: 1 of 2 recordings failed (see {out / 'runs.csv'})"]
    after = snapshot(tmp_path)
    outside = {k: v for k, v in after.items() if not k.startswith("project/results")}
    assert outside == {k: v for k, v in before.items()}
    assert (project / "notes.txt").read_text() == "important\n"
    runs = read_runs(out)
    assert [r["status"] for r in runs] == ["failed", "ok"]
    names = check_folders(out, runs)
    assert sorted(p.name for p in out.iterdir()) == sorted([names[1], "runs.csv"])  # the failure left nothing


def test_unsafe_names_become_safe_distinct_folders(zeroflow_bin, recording, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    names = ["...csv", "..csv", ".hidden.csv", "a\x01b.csv", "back\\slash.csv", "runs.csv.csv", "x. .csv",
             "colon:star*.csv"]
    for name in names:
        shutil.copy(recording, src / name)
    before = snapshot(tmp_path)
    out = tmp_path / "out"
    proc = run(zeroflow_bin, *[src / n for n in names], "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert error_lines(proc) == []
    runs = read_runs(out)
    assert [r["input"] for r in runs] == [str(src / n) for n in names]
    assert all(r["status"] == "ok" for r in runs)
    folders = check_folders(out, runs)
    assert "runs.csv" not in folders  # runs.csv stays the list of runs, not a folder
    assert sorted(p.name for p in out.iterdir()) == sorted(folders + ["runs.csv"])
    assert {k: v for k, v in snapshot(tmp_path).items() if not k.startswith("out")} == before


def test_colliding_names_each_keep_their_result(zeroflow_bin, recording, tmp_path):
    # a/x and b/x share a name; x-2 must not be taken by the second x; X differs only by case.
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        shutil.copy(recording, tmp_path / sub / "x.csv")
    shutil.copy(recording, tmp_path / "x-2.csv")
    shutil.copy(recording, tmp_path / "X.csv")
    inputs = [tmp_path / "a" / "x.csv", tmp_path / "b" / "x.csv", tmp_path / "x-2.csv", tmp_path / "X.csv"]
    out = tmp_path / "out"
    proc = run(zeroflow_bin, *inputs, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert error_lines(proc) == []
    runs = read_runs(out)
    assert [r["input"] for r in runs] == [str(p) for p in inputs]
    folders = check_folders(out, runs)
    assert folders[0] == "x" and folders[2] == "x-2"  # the first of a name and a name of its own keep it
    assert len([p for p in out.iterdir() if p.is_dir()]) == 4


def test_single_failed_run_leaves_no_folder_it_made(zeroflow_bin, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(BAD_CSV)
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, bad, "--out", tmp_path / "new" / "deeper")
    assert proc.returncode == 1
    assert len(error_lines(proc)) == 1 and "bad.csv:2" in error_lines(proc)[0]
    assert snapshot(tmp_path) == before  # neither new/ nor new/deeper/ is left


def test_single_failed_run_keeps_an_existing_out(zeroflow_bin, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(BAD_CSV)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine\n")
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, bad, "--out", out)
    assert proc.returncode == 1
    assert len(error_lines(proc)) == 1
    assert snapshot(tmp_path) == before


def test_a_link_planted_in_out_is_not_followed(zeroflow_bin, recording, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "b").symlink_to(outside, target_is_directory=True)
    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copy(recording, inputs / "b.csv")
    shutil.copy(recording, inputs / "c.csv")
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, inputs / "b.csv", inputs / "c.csv", "--out", out)
    assert proc.returncode == 1
    assert error_lines(proc) == [f"zeroflow: error: 1 of 2 recordings failed (see {out / 'runs.csv'})"]
    runs = read_runs(out)
    assert [r["status"] for r in runs] == ["failed", "ok"]
    assert "link" in runs[0]["error"]
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if k not in ("out/c", "out/runs.csv") and not k.startswith("out/c/")} \
        == before  # the link and what it points to untouched


def test_failed_recording_keeps_its_existing_folder(zeroflow_bin, recording, tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "bad.csv").write_text(BAD_CSV)
    shutil.copy(recording, inputs / "good.csv")
    out = tmp_path / "out"
    (out / "bad").mkdir(parents=True)
    (out / "bad" / "earlier.txt").write_text("an earlier run\n")
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, inputs / "bad.csv", inputs / "good.csv", "--out", out)
    assert proc.returncode == 1
    assert len(error_lines(proc)) == 1
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith(("out/good", "out/runs.csv"))} == before
