"""The command-line tool against hostile inputs: file names that would lead outputs (or the clean-up of a
failure) out of --out, names that collide, links planted in --out. Every case checks the exit code, the
single error line, and every file around the run before and after it."""

import csv
import hashlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess

import pytest
from conftest import RUN_RESULTS, run_cli

# What `zeroflow run` leaves in --out, and nothing else.
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
            elif not path.is_file():  # a FIFO: opening it would wait for a writer
                entries[key] = ("special",)
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
    names = [
        "...csv",
        "..csv",
        ".hidden.csv",
        "a\x01b.csv",
        "back\\slash.csv",
        "runs.csv.csv",
        "x. .csv",
        "colon:star*.csv",
    ]
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
    # Refused before any recording is read (not after the long work), in one line that names the
    # folder and what to do; nothing written, the link and what it points to untouched.
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: cannot write the results of {inputs / 'b.csv'} into {out / 'b'}: it is a link or not a "
        "folder; remove it or choose another --out"
    ]
    assert snapshot(tmp_path) == before


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


# ---- fail early, leave nothing half-done, errors a person can act on ----


def hidden_or_temporary(root):
    """Entries under root that a finished command must not leave: hidden files and *.tmp."""
    return [
        k
        for k in snapshot(root)
        if any(part.startswith(".") or part.endswith(".tmp") for part in pathlib.PurePath(k).parts)
    ]


def summary_input(out):
    return json.loads((out / "summary.json").read_text())["input"]


@pytest.fixture(scope="module")
def other_recording(zeroflow_bin, tmp_path_factory):
    """Another three minutes (seed 4), to tell two runs' results apart."""
    csv_path = tmp_path_factory.mktemp("hostile-other") / "other.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 0.05, "--seed", 4, "--out", csv_path)
    return csv_path


@pytest.fixture(scope="module")
def long_recording(zeroflow_bin, tmp_path_factory):
    """Half an hour: a run long enough to be interrupted at each of its stages."""
    csv_path = tmp_path_factory.mktemp("hostile-long") / "long.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 0.5, "--seed", 5, "--out", csv_path)
    return csv_path


def test_earlier_results_are_not_replaced_without_force(zeroflow_bin, recording, other_recording, tmp_path):
    out = tmp_path / "out"
    assert run(zeroflow_bin, recording, "--out", out).returncode == 0
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, other_recording, "--out", out)
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: {out} already holds the results of an earlier run (beats.atr, "
        "beats.csv, episodes.csv, events.csv, ...); add --force to replace them all, or choose "
        "another --out"
    ]
    assert "load..." not in proc.stderr  # refused before the recording is read
    assert snapshot(tmp_path) == before


@pytest.mark.usefixtures("png_zeroflow_bin")
def test_force_replaces_every_earlier_result_together(zeroflow_bin, recording, other_recording, tmp_path):
    out = tmp_path / "out"
    assert run(zeroflow_bin, recording, "--out", out, "--figures", "png").returncode == 0
    assert run_cli(zeroflow_bin, "evaluate", out).returncode == 0
    assert {p.name for p in out.iterdir()} >= {"figures", "evaluation.json"}
    proc = run(zeroflow_bin, other_recording, "--out", out, "--force")
    assert proc.returncode == 0, proc.stderr
    assert error_lines(proc) == []
    # Stale results of the first run (figures/, evaluation.json) are gone; all that is left is the second's.
    assert sorted(p.name for p in out.iterdir()) == RUN_RESULTS
    assert summary_input(out) == str(other_recording)
    # The beats are the second recording's: its labelled R peaks, within 150 ms (38 samples at 250 Hz).
    with open(out / "beats.csv", newline="") as f:
        peaks = [int(r["peak"]) for r in csv.DictReader(f)]
    with open(other_recording.with_suffix(".labels.csv"), newline="") as f:
        labelled = [int(r["sample"]) for r in csv.DictReader(f)]
    matched = sum(1 for p in peaks if min(abs(p - q) for q in labelled) <= 38)
    assert matched >= 0.95 * len(labelled)


def test_failed_forced_run_keeps_the_earlier_results(zeroflow_bin, recording, tmp_path):
    out = tmp_path / "out"
    assert run(zeroflow_bin, recording, "--out", out).returncode == 0
    bad = tmp_path / "bad.csv"
    bad.write_text(BAD_CSV)
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, bad, "--out", out, "--force")
    assert proc.returncode == 1
    assert len(error_lines(proc)) == 1 and "bad.csv:2" in error_lines(proc)[0]
    assert snapshot(tmp_path) == before  # the earlier results, whole; nothing of the failed run


def test_two_runs_at_once_never_share_an_out(zeroflow_bin, long_recording, recording, tmp_path):
    out = tmp_path / "out"
    first = subprocess.Popen(
        [str(zeroflow_bin), "run", str(long_recording), "--out", str(out), "--device", "cpu", "--epochs", "2"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for line in first.stderr:
            if "load..." in line:
                break
        proc = run(zeroflow_bin, recording, "--out", out, "--force")
        assert proc.returncode == 1
        assert error_lines(proc) == [
            f"zeroflow: error: another zeroflow is writing into {out}; wait for it to finish or choose another --out"
        ]
    finally:
        rest = first.communicate(timeout=600)[1]
    assert first.returncode == 0, rest
    assert sorted(p.name for p in out.iterdir()) == RUN_RESULTS
    assert summary_input(out) == str(long_recording)


def interrupt_at(zeroflow_bin, args, trigger, signal_number=signal.SIGINT):
    """Runs zeroflow, sends the signal once a stderr line holds `trigger`; returns (exit code, stderr)."""
    proc = subprocess.Popen([str(zeroflow_bin), *map(str, args)], stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if trigger in line:
            proc.send_signal(signal_number)
            break
    rest = proc.communicate(timeout=600)[1]
    return proc.returncode, "".join(seen) + rest


@pytest.mark.usefixtures("png_zeroflow_bin")
@pytest.mark.parametrize("trigger", ["load...", "train...", "epoch 1/", "score...", "writing"])
def test_sigint_leaves_no_folder_and_no_temporary(zeroflow_bin, long_recording, tmp_path, trigger):
    out = tmp_path / "new" / "out"
    before = snapshot(tmp_path)
    code, stderr = interrupt_at(
        zeroflow_bin,
        ["run", long_recording, "--out", out, "--device", "cpu", "--epochs", 3, "--figures", "png"],
        trigger,
    )
    lines = [l for l in stderr.splitlines() if l.startswith("zeroflow: error:")]
    if code == 0:  # the signal came after the results were in place: all of them, nothing else
        assert trigger == "writing" and lines == []
        assert sorted(p.name for p in out.iterdir()) == [
            "beats.atr",
            "beats.csv",
            "episodes.csv",
            "events.csv",
            "figures",
            "model.safetensors",
            "report.html",
            "summary.json",
        ]
        assert hidden_or_temporary(tmp_path) == []
        return
    assert code == 130, stderr
    assert lines == ["zeroflow: error: interrupted (SIGINT); the unfinished outputs were removed"]
    assert snapshot(tmp_path) == before  # neither new/ nor a hidden staging folder or .tmp file


def test_sigterm_keeps_the_earlier_results(zeroflow_bin, recording, long_recording, tmp_path):
    out = tmp_path / "out"
    assert run(zeroflow_bin, recording, "--out", out).returncode == 0
    before = snapshot(tmp_path)
    code, stderr = interrupt_at(
        zeroflow_bin,
        ["run", long_recording, "--out", out, "--device", "cpu", "--epochs", 3, "--force"],
        "epoch 1/",
        signal.SIGTERM,
    )
    assert code == 143, stderr
    assert [l for l in stderr.splitlines() if l.startswith("zeroflow: error:")] == [
        "zeroflow: error: interrupted (SIGTERM); the unfinished outputs were removed"
    ]
    assert snapshot(tmp_path) == before


def test_sigint_during_generate_leaves_no_recording(zeroflow_bin, tmp_path):
    out = tmp_path / "made" / "rec.csv"
    before = snapshot(tmp_path)
    code, stderr = interrupt_at(zeroflow_bin, ["generate", "--hours", 50, "--out", out], "generating")
    assert code == 130, stderr
    assert snapshot(tmp_path) == before  # no CSV, no labels, no .tmp, no made/


def test_a_fifo_input_is_refused_at_once(zeroflow_bin, tmp_path):
    fifo = tmp_path / "stream.csv"
    os.mkfifo(fifo)
    before = snapshot(tmp_path)
    proc = subprocess.run(
        [str(zeroflow_bin), "run", str(fifo), "--out", str(tmp_path / "out"), "--device", "cpu"],
        capture_output=True,
        text=True,
        timeout=60,
    )  # it used to wait for a writer forever
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: {fifo} is not a regular file (a FIFO, socket or device); zeroflow "
        "reads the recording from a file: save it to one first"
    ]
    assert snapshot(tmp_path) == before


def test_a_folder_as_input_or_model_is_refused(zeroflow_bin, recording, tmp_path):
    folder = tmp_path / "a.csv"
    folder.mkdir()
    proc = run(zeroflow_bin, folder, "--out", tmp_path / "out")
    assert proc.returncode == 2  # CLI11 checks INPUT exists as a file
    assert len(error_lines(proc)) == 1 and "a.csv" in error_lines(proc)[0]
    proc = run_cli(zeroflow_bin, "score", recording, "--model", tmp_path / "fifo.pt", check=False)
    assert proc.returncode == 2
    os.mkfifo(tmp_path / "model.safetensors")
    before = snapshot(tmp_path)
    proc = subprocess.run(
        [
            str(zeroflow_bin),
            "score",
            str(recording),
            "--model",
            str(tmp_path / "model.safetensors"),
            "--out",
            str(tmp_path / "out"),
            "--device",
            "cpu",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: {tmp_path / 'model.safetensors'} is not a regular file (a FIFO, socket or "
        "device); zeroflow reads the model from a file: save it to one first"
    ]
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", ["fifo", "garbage", "missing"])
def test_unreadable_labels_are_a_warning_said_before_training(zeroflow_bin, recording, tmp_path, kind):
    labels = tmp_path / "labels.csv"
    if kind == "fifo":
        os.mkfifo(labels)
    elif kind == "garbage":
        labels.write_text("sample,symbol\nten,N\n")
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            str(zeroflow_bin),
            "run",
            str(recording),
            "--labels",
            str(labels),
            "--out",
            str(out),
            "--device",
            "cpu",
            "--epochs",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert error_lines(proc) == []
    lines = proc.stderr.splitlines()
    warnings = [i for i, l in enumerate(lines) if "warning: labels" in l]
    assert len(warnings) == 1 and "the run goes on without evaluation" in lines[warnings[0]]
    assert warnings[0] < next(i for i, l in enumerate(lines) if "train..." in l)  # said up front
    summary = json.loads((out / "summary.json").read_text())
    assert summary["labels"] is None and "evaluation" not in summary


@pytest.mark.parametrize("make", ["file", "under_a_file"])
def test_an_out_that_cannot_be_a_folder_is_refused_before_loading(zeroflow_bin, recording, tmp_path, make):
    blocker = tmp_path / "taken"
    blocker.write_text("a file\n")
    out = blocker if make == "file" else blocker / "sub"
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, recording, "--out", out)
    assert proc.returncode == 1
    assert len(error_lines(proc)) == 1 and str(out) in error_lines(proc)[0]
    assert "load..." not in proc.stderr
    assert snapshot(tmp_path) == before


def test_generate_refuses_a_recording_larger_than_the_disk_or_memory(zeroflow_bin, tmp_path):
    free = shutil.disk_usage(tmp_path).free
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGESIZE")
    rate = 100000
    hours = min(2 * free / (rate * 3600 * 8), 23)  # 8 bytes a line with 4 decimals; 23 h stays below 2^33 samples
    samples = hours * 3600 * rate
    if samples * 8 <= free and samples * 4 <= memory:
        pytest.skip("this disk and memory hold the largest recording generate takes")
    before = snapshot(tmp_path)
    proc = subprocess.run(
        [
            str(zeroflow_bin),
            "generate",
            "--hours",
            str(hours),
            "--sample-rate",
            str(rate),
            "--out",
            str(tmp_path / "new" / "big.csv"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    [line] = error_lines(proc)
    assert "GB" in line and ("disk" in line or "memory" in line), line  # before anything is generated
    assert [l for l in proc.stderr.splitlines() if l.startswith("[")] == []  # no progress: nothing generated
    assert snapshot(tmp_path) == before


def test_generate_refuses_too_many_samples_and_a_folder_as_out(zeroflow_bin, tmp_path):
    proc = run_cli(
        zeroflow_bin, "generate", "--hours", 9999, "--sample-rate", 100000, "--out", tmp_path / "x.csv", check=False
    )
    assert proc.returncode == 2
    assert error_lines(proc) == [
        "zeroflow: error: --hours 9999 at --sample-rate 100000 Hz is 3599640000000 samples; "
        "one recording holds at most 2^33 - 1 (8589934591) (see zeroflow generate --help)"
    ]
    proc = run_cli(zeroflow_bin, "generate", "--hours", 0.01, "--out", tmp_path, check=False)
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: {tmp_path} is a folder; give the CSV file to write, e.g. {tmp_path / 'recording.csv'}"
    ]
    assert list(tmp_path.iterdir()) == []


def test_generate_replacing_a_recording_drops_its_stale_artefacts(zeroflow_bin, tmp_path):
    out = tmp_path / "rec.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 0.02, "--noise-bursts-per-hour", 100, "--out", out)
    assert (tmp_path / "rec.artefacts.csv").exists()
    run_cli(zeroflow_bin, "generate", "--hours", 0.02, "--out", out, "--force")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rec.csv", "rec.labels.csv"]


@pytest.mark.parametrize(
    "value, meant", [("1024", "; did you mean 1.024 (1024 ms)?"), ("100000", ""), ("0", ""), ("-1", "")]
)
def test_max_beat_out_of_range_is_a_usage_error_said_at_once(zeroflow_bin, recording, tmp_path, value, meant):
    before = snapshot(tmp_path)
    proc = subprocess.run(
        [
            str(zeroflow_bin),
            "run",
            str(recording),
            "--max-beat",
            value,
            "--out",
            str(tmp_path / "out"),
            "--segmentation",
            "seed",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    shown = value.lstrip("-") if value != "-1" else "-1"
    assert error_lines(proc) == [
        f"zeroflow: error: --max-beat: {shown} s is no heartbeat: expected seconds in (0, 10]"
        f"{meant} (see zeroflow run --help)"
    ]
    assert snapshot(tmp_path) == before


def test_min_beat_not_below_max_beat_is_a_usage_error(zeroflow_bin, recording, tmp_path):
    proc = run(zeroflow_bin, recording, "--min-beat", 2, "--out", tmp_path / "out")
    assert proc.returncode == 2
    assert error_lines(proc) == [
        "zeroflow: error: --min-beat 2 s must be shorter than --max-beat 1.024 s (see zeroflow run --help)"
    ]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        ["run"],  # INPUT missing
        ["run", "x.csv", "--bogus"],  # unknown flag
        ["run", "REC", "--epochs", "0"],
        ["run", "REC", "--sample-rate", "1"],
        ["run", "REC", "--device", "tpu"],
        ["run", "REC", "--threads", "-1"],
        ["run", "REC", "--max-beat", "abc"],
        ["run", "REC", "--seed", "-1"],
        ["generate", "--out", "x.csv", "--anomaly-rate", "0.5"],
        ["generate", "--out", "x.csv", "--anomaly-rate", "0.3", "--apb-rate", "0.3"],
        ["generate", "--out", "x.csv", "--sample-rate", "25"],
        ["generate", "--out", "x.csv", "--noise", "-1"],
        ["evaluate", "NOWHERE"],
        ["bogus"],
        [],
    ],
)
def test_every_usage_error_exits_2_with_one_line(zeroflow_bin, recording, tmp_path, args):
    args = [str(recording) if a == "REC" else a for a in args]
    proc = subprocess.run([str(zeroflow_bin), *args], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    [line] = error_lines(proc)
    assert line.endswith("--help)"), line
    assert "\n" not in proc.stderr.strip(), proc.stderr  # the one line is all
    assert list(tmp_path.iterdir()) == []


# The first long name of a flag (the one its errors say: "--min-beat,--min-beat-seconds FLOAT:...").
HELP_RANGE = re.compile(
    r"(?:-[a-z],)?(--[a-z-]+)(?:,-{1,2}[a-z-]+)* (FLOAT|INT):(?:seconds )?in ([\[(])([-\d.e+]+), ([-\d.e+]+)([\])])"
)


def test_help_ranges_are_the_ranges_checked(zeroflow_bin, tmp_path):
    # Every range --help shows is the one checked: values just outside either end are usage errors
    # naming the flag; the ends themselves (when closed) pass the flag's check, and the command then
    # stops at the FIFO given as its input (exit 1).
    fifo = tmp_path / "x.csv"
    os.mkfifo(fifo)
    raw_fifo = tmp_path / "x.f32"  # --channels and --gain take a raw recording, which needs --sample-rate
    os.mkfifo(raw_fifo)
    raw_only = {"--channels", "--gain"}
    arguments = {
        "run": [str(fifo)],
        "score": [str(fifo), "--model", str(fifo)],
        "evaluate": [str(tmp_path)],
        "generate": ["--out", str(tmp_path / "g.csv")],
    }
    checked = []
    for command, extra in arguments.items():
        for flag, kind, low_bracket, low, high, high_bracket in HELP_RANGE.findall(
            run_cli(zeroflow_bin, command, "--help").stdout
        ):
            low, high = float(low), float(high)
            step = 1 if kind == "INT" else max((high - low) * 0.01, 1e-3)
            number = (lambda v: str(int(v))) if kind == "INT" else repr

            def parse(value, *more):
                inputs = [str(raw_fifo), *extra[1:], "--sample-rate", "250"] if flag in raw_only else extra
                return subprocess.run(
                    [str(zeroflow_bin), command, *inputs, *more, flag, number(value)],
                    capture_output=True,
                    text=True,
                    timeout=60,
                    cwd=tmp_path,
                )

            for outside in (low - step, high + step):
                proc = parse(outside)
                assert proc.returncode == 2 and flag in proc.stderr, (command, flag, outside, proc.stderr)
            if command != "generate":  # generate would write the recording
                for bound, closed in ((low, low_bracket == "["), (high, high_bracket == "]")):
                    if not closed:
                        continue
                    # A bound that another flag's default contradicts: that flag moved out of its way.
                    more, value = [], bound
                    if flag == "--min-beat" and bound == high:
                        more, value = ["--max-beat", "10"], bound - step
                    if flag == "--bradycardia-bpm" and bound == high:
                        more = ["--tachycardia-bpm", "400"]
                    proc = parse(value, *more)
                    assert proc.returncode == 1, (command, flag, bound, proc.stderr)
            checked.append((command, flag))
    assert len(checked) >= 20, checked


def test_a_wide_csv_with_text_columns_reads_only_the_lead(zeroflow_bin, recording, tmp_path):
    values = recording.read_text().splitlines()[1:]
    wide = tmp_path / "wide.csv"
    wide.write_text(
        "ecg,note,flag\n" + "".join(f"{v},beat {i}; ok,{'yes' if i % 2 else 'no'}\n" for i, v in enumerate(values))
    )
    out = tmp_path / "out"
    proc = run(zeroflow_bin, wide, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "summary.json").read_text())["samples"] == len(values)
    proc = run(zeroflow_bin, wide, "--column", "note", "--out", tmp_path / "out2")
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert "wide.csv:2" in line and "note" in line, line
    assert not (tmp_path / "out2").exists()


GZIP_MAGIC = b"\x1f\x8b"  # RFC 1952


@pytest.mark.parametrize(
    "name, content, needle",
    [
        ("rec.csv.gz", None, "this looks like a gzip file; decompress it first (gunzip)"),
        ("rec16.csv", "utf-16", "this looks like UTF-16 text; save it as UTF-8"),
        ("rec16le.csv", "utf-16-le", "this looks like UTF-16 text; save it as UTF-8"),
        ("book.xlsx", b"PK\x03\x04\x14\x00\x06\x00[Content_Types].xml", "ZIP archive (or an Excel .xlsx workbook)"),
        ("blob.csv", b"heartbeats\n0.1\n\x00\x00\xff\xfe\x80binary", "is a NUL byte: this is a binary file"),
    ],
)
def test_binary_input_is_named_without_its_bytes(zeroflow_bin, recording, tmp_path, name, content, needle):
    path = tmp_path / name
    if content is None:
        import gzip

        path.write_bytes(gzip.compress(recording.read_bytes()))
        assert path.read_bytes()[:2] == GZIP_MAGIC
    elif isinstance(content, str):
        path.write_bytes(recording.read_text().encode(content))
    else:
        path.write_bytes(content)
    proc = subprocess.run(
        [str(zeroflow_bin), "run", str(path), "--out", str(tmp_path / "out"), "--device", "cpu"],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 1
    stderr = proc.stderr.decode("utf-8")  # strict: no raw bytes of the file
    [line] = [l for l in stderr.splitlines() if l.startswith("zeroflow: error:")]
    assert line == f"zeroflow: error: {path}: {needle}" or (
        needle in line and line.startswith(f"zeroflow: error: {path}")
    )
    assert all(0x20 <= ord(c) < 0x7F for c in line), line
    assert not (tmp_path / "out").exists()


def test_names_that_are_not_utf8_are_written_not_fatal(zeroflow_bin, recording, tmp_path):
    # A Latin-1 file name and column name: summary.json used to fail to be written at the very end.
    folder = os.fsencode(tmp_path)
    name = folder + b"/caf\xe9.csv"
    values = recording.read_text().splitlines()[1:]
    with open(name, "wb") as f:
        f.write(b"temp\xe9rature,ecg\n" + b"".join(f"20,{v}\n".encode() for v in values))
    out = folder + b"/out\xe9"
    proc = subprocess.run(
        [
            os.fsencode(zeroflow_bin),
            b"run",
            name,
            b"--column",
            b"ecg",
            b"--out",
            out,
            b"--device",
            b"cpu",
            b"--epochs",
            b"1",
        ],
        capture_output=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(open(out + b"/summary.json", "rb").read().decode("utf-8"))  # valid UTF-8 JSON
    assert summary["input"] == os.fsdecode(name).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    assert summary["samples"] == len(values)


def test_error_lines_name_no_internals(zeroflow_bin, recording, tmp_path):
    # Failures of every kind: none may show a source file, a C++ name or a library's message.
    bad = tmp_path / "bad.csv"
    bad.write_text(BAD_CSV)
    commands = [
        ["run", str(bad), "--out", str(tmp_path / "o1"), "--device", "cpu"],
        ["run", str(recording), "--column", "nope", "--out", str(tmp_path / "o2"), "--device", "cpu"],
        ["run", str(recording), "--sample-rate", "1e9", "--out", str(tmp_path / "o3")],
        ["generate", "--hours", "0.01", "--sample-rate", "25", "--out", str(tmp_path / "g.csv")],
        ["evaluate", str(tmp_path)],
        ["score", str(recording), "--model", str(recording), "--out", str(tmp_path / "o4"), "--device", "cpu"],
    ]
    for args in commands:
        proc = subprocess.run([str(zeroflow_bin), *args], capture_output=True, text=True, timeout=600)
        assert proc.returncode in (1, 2), (args, proc.stderr)
        [line] = error_lines(proc)
        for internal in (
            ".cpp",
            ".hpp",
            "::",
            "what()",
            "stoull",
            "stoi",
            "json.exception",
            "segment_params",
            "ecg_options",
            "csv_options",
            "na_policy",
            "c10",
            "Exception raised from",
            "frame #",
        ):
            assert internal not in line, (args, line)


def test_demo_replaces_an_earlier_demo_but_not_other_results(zeroflow_bin, recording, tmp_path):
    demo = tmp_path / "demo"
    for _ in range(2):
        proc = run_cli(zeroflow_bin, "demo", "--hours", 0.05, "--out", demo, "--device", "cpu", check=False)
        assert proc.returncode == 0, proc.stderr
    assert hidden_or_temporary(tmp_path) == []
    assert summary_input(demo) == str(demo / "recording.csv")
    results = tmp_path / "results"
    assert run(zeroflow_bin, recording, "--out", results).returncode == 0
    before = snapshot(tmp_path)
    proc = run_cli(zeroflow_bin, "demo", "--hours", 0.05, "--out", results, "--device", "cpu", check=False)
    assert proc.returncode == 1
    assert len(error_lines(proc)) == 1 and "--force" in error_lines(proc)[0]
    assert snapshot(tmp_path) == before


def test_batches_into_one_out_never_mix(zeroflow_bin, recording, other_recording, tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in ("a", "b"):
        shutil.copy(recording, inputs / f"{name}.csv")
    shutil.copy(other_recording, inputs / "c.csv")
    out = tmp_path / "out"
    assert run(zeroflow_bin, inputs / "a.csv", inputs / "b.csv", "--out", out).returncode == 0
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, inputs / "c.csv", inputs / "b.csv", "--out", out)  # b's folder holds results
    assert proc.returncode == 1 and "--force" in error_lines(proc)[0]
    assert snapshot(tmp_path) == before
    proc = run(zeroflow_bin, inputs / "c.csv", inputs / "b.csv", "--out", out, "--force")
    assert proc.returncode == 0, proc.stderr
    # a/ belonged to the earlier batch only: it goes with its runs.csv.
    assert sorted(p.name for p in out.iterdir()) == ["b", "c", "runs.csv"]
    assert [r["input"] for r in read_runs(out)] == [str(inputs / "c.csv"), str(inputs / "b.csv")]
    assert hidden_or_temporary(tmp_path) == []


def test_python_read_csv_refuses_the_same_inputs_with_parse_error(recording, tmp_path):
    # The module shares the CSV reader's entry checks: zeroflow.ParseError with the same line, never a
    # UnicodeDecodeError from the file's bytes, and a FIFO does not block the interpreter.
    import gzip

    import zeroflow as zf
    import zeroflow.io

    (tmp_path / "rec.csv.gz").write_bytes(gzip.compress(recording.read_bytes()))
    (tmp_path / "rec16.csv").write_bytes(recording.read_text().encode("utf-16"))
    os.mkfifo(tmp_path / "stream.csv")
    for name, needle in [
        ("rec.csv.gz", "this looks like a gzip file"),
        ("rec16.csv", "this looks like UTF-16 text"),
        ("stream.csv", "is not a regular file"),
    ]:
        with pytest.raises(zf.ParseError, match=needle):
            zf.read_csv(tmp_path / name)
    with pytest.raises(zf.ParseError, match="x.csv: byte 7 is a NUL byte"):
        zf.io.read_csv_text("ecg\n1\n\0\0", name="x.csv")


def test_evaluate_neither_reads_nor_replaces_a_fifo(zeroflow_bin, recording, tmp_path):
    out = tmp_path / "out"
    assert run(zeroflow_bin, recording, "--out", out).returncode == 0
    fifo = tmp_path / "eval.json"
    os.mkfifo(fifo)
    before = snapshot(tmp_path)
    proc = subprocess.run(
        [str(zeroflow_bin), "evaluate", str(out), "--json", str(fifo)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: cannot write the evaluation {fifo}: it exists and is not a regular "
        "file; give the name of a file to write"
    ]
    (out / "beats.csv").unlink()
    os.mkfifo(out / "beats.csv")
    before = snapshot(tmp_path)
    proc = subprocess.run([str(zeroflow_bin), "evaluate", str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "is not a regular file" in error_lines(proc)[0]
    assert snapshot(tmp_path) == before


def test_generate_replaces_no_special_file(zeroflow_bin, tmp_path):
    # write_atomically renames over its target: over a FIFO (or /dev/null, as root) that would replace it.
    os.mkfifo(tmp_path / "rec.labels.csv")
    before = snapshot(tmp_path)
    proc = run_cli(zeroflow_bin, "generate", "--hours", 0.01, "--out", tmp_path / "rec.csv", check=False)
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: cannot write the recording {tmp_path / 'rec.labels.csv'}: it "
        "exists and is not a regular file; give the name of a file to write"
    ]
    assert snapshot(tmp_path) == before


def test_a_wfdb_record_whose_signal_file_is_a_fifo_is_refused(zeroflow_bin, tmp_path):
    (tmp_path / "rec.hea").write_text("rec 1 250 1000\nrec.dat 16 200 16 0 0 0 0 MLII\n")
    os.mkfifo(tmp_path / "rec.dat")
    before = snapshot(tmp_path)
    proc = subprocess.run(
        [str(zeroflow_bin), "run", str(tmp_path / "rec.hea"), "--out", str(tmp_path / "out"), "--device", "cpu"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: {tmp_path / 'rec.dat'} is not a regular file (a FIFO, socket or "
        "device); zeroflow reads the signal file from a file: save it to one first"
    ]
    assert snapshot(tmp_path) == before


# ---- class 2: a record reads only files in its own folder ---------------------------------------------


def wfdb_record(folder, recording, signal_file, dat_at=None):
    """A WFDB header in `folder` naming `signal_file` (format 16, 200 units/mV) and, at `dat_at`, the
    recording's samples in that format; returns the header's path."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = recording.read_text().split()
    samples = [float(v) for v in lines[1:]]
    if dat_at is not None:
        dat_at.parent.mkdir(parents=True, exist_ok=True)
        import numpy as np

        (np.round(np.array(samples) * 200).astype("<i2")).tofile(dat_at)
    hea = folder / "rec.hea"
    hea.write_text(f"rec 1 250 {len(samples)}\n{signal_file} 16 200 16 0 0 0 0 MLII\n")
    return hea


@pytest.mark.parametrize("name", ["../private/x.dat", "ABSOLUTE", "sub/../../private/x.dat"])
def test_a_header_cannot_make_a_run_read_outside_its_folder(zeroflow_bin, recording, tmp_path, name):
    # The case: "../private/x.dat" and "/etc/shadow" were read, and plotted into report.html.
    private = tmp_path / "private" / "x.dat"
    if name == "ABSOLUTE":
        name = str(private)
    hea = wfdb_record(tmp_path / "rec", recording, name, dat_at=private)
    before = snapshot(tmp_path)
    out = tmp_path / "out"
    proc = run(zeroflow_bin, hea, "--out", out)
    assert proc.returncode == 1, proc.stderr
    [line] = error_lines(proc)
    assert line == (
        f'zeroflow: error: {hea}: signal 0 ("MLII") names the signal file "{name}", outside the record\'s '
        "folder; a record reads only files beside its header. Copy the file there and name it without a folder, "
        "or pass --allow-outside-record if you trust this header"
    )
    assert snapshot(tmp_path) == before  # no out, nothing read into one
    # The words do not depend on whether the file is there, nor on its size.
    private.unlink()
    assert error_lines(run(zeroflow_bin, hea, "--out", out)) == [line]
    # A batch says the same in runs.csv, before that recording's work.
    shutil.copy(recording, tmp_path / "plain.csv")
    proc = run(zeroflow_bin, hea, tmp_path / "plain.csv", "--out", out)
    assert proc.returncode == 1
    rows = read_runs(out)
    assert rows[0]["status"] == "failed" and rows[0]["error"] == line.removeprefix("zeroflow: error: ")
    assert rows[1]["status"] == "ok"


def test_a_header_may_read_outside_its_folder_when_the_user_allows_it(zeroflow_bin, recording, tmp_path):
    private = tmp_path / "signals" / "x.dat"
    hea = wfdb_record(tmp_path / "rec", recording, "../signals/x.dat", dat_at=private)
    proc = run(zeroflow_bin, hea, "--out", tmp_path / "out", "--allow-outside-record")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["samples"] > 0
    # A folder below the header's is inside the record.
    below = wfdb_record(tmp_path / "rec2", recording, "sub/x.dat", dat_at=tmp_path / "rec2" / "sub" / "x.dat")
    assert run(zeroflow_bin, below, "--out", tmp_path / "out2").returncode == 0
    help_text = run_cli(zeroflow_bin, "run", "--help").stdout
    assert "--allow-outside-record" in help_text


def test_evaluate_follows_a_summary_only_to_the_labels_that_run_read(zeroflow_bin, recording, tmp_path):
    # A summary.json received from elsewhere made evaluate read any file it named.
    labels = tmp_path / "rec.labels.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 0.05, "--seed", 3, "--out", tmp_path / "rec.csv")
    out = tmp_path / "out"
    assert run(zeroflow_bin, tmp_path / "rec.csv", "--out", out, "--labels", labels).returncode == 0
    run_cli(zeroflow_bin, "evaluate", out)  # the file the run read: followed
    summary = json.loads((out / "summary.json").read_text())
    secret = tmp_path / "secret.csv"
    secret.write_text("".join(labels.read_text().splitlines(keepends=True)[:-1]))  # even a valid labels file
    lines = []
    for target in (secret, tmp_path / "absent.csv", "/etc/passwd"):
        summary["labels"] = str(target)
        (out / "summary.json").write_text(json.dumps(summary))
        before = snapshot(tmp_path)
        proc = run_cli(zeroflow_bin, "evaluate", out, check=False)
        assert proc.returncode == 1
        [line] = error_lines(proc)
        assert line == (
            f"zeroflow: error: {out / 'summary.json'} records the labels {target}, but not as the file this run "
            "read (it was changed or moved since, or the summary comes from elsewhere); pass --labels FILE to "
            "evaluate against labels you choose"
        )
        assert snapshot(tmp_path) == before
        lines.append(line.replace(str(target), "X"))
    assert len(set(lines)) == 1  # nothing tells whether the file exists
    # A summary without the fingerprint (edited, or from an older zeroflow) is not followed either.
    summary["labels"] = str(labels)
    del summary["labels_fingerprint"]
    (out / "summary.json").write_text(json.dumps(summary))
    assert run_cli(zeroflow_bin, "evaluate", out, check=False).returncode == 1
    # Labels changed since the run: not the file it read.
    (out / "summary.json").write_text(json.dumps({**summary, "labels_fingerprint": "1:0000000000000000"}))
    assert run_cli(zeroflow_bin, "evaluate", out, check=False).returncode == 1
    run_cli(zeroflow_bin, "evaluate", out, "--labels", labels)  # what to do: works


# ---- class 4: no silent shift, no silent skip ----------------------------------------------------------


def test_blank_lines_between_samples_are_refused_with_their_line(zeroflow_bin, recording, tmp_path):
    # 500 blank lines moved every later sample: Se against the labels fell from 100 % to 8.5 %, exit 0.
    lines = recording.read_text().splitlines()
    gappy = tmp_path / "gappy.csv"
    gappy.write_text("\n".join(lines[:1001] + [""] * 500 + lines[1001:]) + "\n")
    proc = run(zeroflow_bin, gappy, "--out", tmp_path / "out")
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: {gappy}:1002: a blank line between samples: each line is one sample in time, so "
        "skipping it would move every later sample earlier. Delete the line if no sample is missing there, or "
        "write the missing sample's value"
    ]
    assert not (tmp_path / "out").exists()
    # Blank lines after the last sample move nothing.
    trailing = tmp_path / "trailing.csv"
    trailing.write_text("\n".join(lines) + "\n\n\n  \n")
    assert run(zeroflow_bin, trailing, "--out", tmp_path / "out2").returncode == 0


@pytest.mark.parametrize("symbol", ["PVC", "0", "nan"])
def test_labels_with_an_unknown_symbol_are_refused_not_thinned(zeroflow_bin, recording, tmp_path, symbol):
    run_cli(zeroflow_bin, "generate", "--hours", 0.05, "--seed", 3, "--out", tmp_path / "rec.csv")
    good = tmp_path / "rec.labels.csv"
    rows = good.read_text().splitlines()
    bad = tmp_path / "bad.labels.csv"
    cells = [row.split(",")[:2] for row in rows[1:]]  # sample,label: the symbol alone gives the class
    cells[1][1] = symbol
    bad.write_text("\n".join(["sample,label", *(",".join(c) for c in cells)]) + "\n")
    out = tmp_path / "out"
    proc = run(zeroflow_bin, tmp_path / "rec.csv", "--out", out, "--labels", bad)
    assert proc.returncode == 0  # a labels file is a warning in a run, said before the work
    warning = [line for line in proc.stderr.splitlines() if "warning: labels" in line]
    assert len(warning) == 1 and f"{bad}:3: unknown beat symbol '{symbol}'" in warning[0], proc.stderr
    proc = run_cli(zeroflow_bin, "evaluate", out, "--labels", bad, check=False)
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert f"{bad}:3: unknown beat symbol '{symbol}'" in line and "map yours to one of them" in line


def test_labels_without_beats_are_refused_not_scored(zeroflow_bin, recording, tmp_path):
    out = tmp_path / "out"
    assert run(zeroflow_bin, recording, "--out", out).returncode == 0
    empty = tmp_path / "empty.labels.csv"
    empty.write_text("sample,symbol\n100,+\n200,~\n")
    proc = run_cli(zeroflow_bin, "evaluate", out, "--labels", empty, check=False)
    assert proc.returncode == 1 and "+P" not in proc.stdout
    assert error_lines(proc) == [
        f"zeroflow: error: {empty}: no beats: no row names a beat (rows of rhythm, "
        "noise or comments only, or none); expected one row per beat"
    ]


def test_one_rule_for_two_beats_at_one_sample_in_csv_and_atr(zeroflow_bin, recording, tmp_path):
    import numpy as np

    wfdb = pytest.importorskip("wfdb")  # the reference writer; the GPU machine lacks it
    out = tmp_path / "out"
    assert run(zeroflow_bin, recording, "--out", out).returncode == 0
    for agree, symbols in ((True, ["N", "L"]), (False, ["N", "V"])):
        csv_file = tmp_path / f"{agree}.labels.csv"
        csv_file.write_text(f"sample,symbol\n100,{symbols[0]}\n100,{symbols[1]}\n400,N\n")
        wfdb.wrann(f"{agree}", "atr", np.array([100, 100, 400]), symbol=[*symbols, "N"], write_dir=str(tmp_path))
        for labels in (csv_file, tmp_path / f"{agree}.atr"):
            proc = run_cli(
                zeroflow_bin, "evaluate", out, "--labels", labels, "--json", tmp_path / "e.json", check=False
            )
            if agree:
                assert proc.returncode == 0, proc.stderr
                assert json.loads((tmp_path / "e.json").read_text())["evaluation"]["labelled_beats"] == 2
            else:
                assert proc.returncode == 1
                [line] = error_lines(proc)
                assert "two beats of different classes at sample 100" in line, line


@pytest.mark.parametrize("kind", ["flat", "white", "mains"])
def test_no_ecg_gives_no_v_beats_and_says_so(zeroflow_bin, tmp_path, kind):
    # A detached electrode (a flat line with 10 uV of noise), white noise, the 50 Hz mains: the
    # detector still finds peaks, hundreds of which were called V. No QRS stands out of the signal
    # around it, so every beat is Q, the stretch is reported, and the run says so.
    import numpy as np

    rng = np.random.default_rng(5)
    n = 250 * 300
    x = {
        "flat": 0.01 * rng.standard_normal(n),
        "white": rng.standard_normal(n),
        "mains": np.sin(2 * np.pi * 50 * np.arange(n) / 250) + 0.01 * rng.standard_normal(n),
    }[kind]
    rec = tmp_path / f"{kind}.csv"
    rec.write_text("ecg\n" + "\n".join(f"{v:.6f}" for v in x) + "\n")
    out = tmp_path / "out"
    proc = run_cli(zeroflow_bin, "run", rec, "--out", out, "--device", "cpu", "--epochs", 1)
    assert "warning: no readable ECG" in proc.stderr and "is a lead off?" in proc.stderr
    with open(out / "beats.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and {r["class"] for r in rows} == {"Q"}
    # Noise's own peaks: a beat here and there over 10, the stretch's median well under it.
    assert np.median([float(r["clarity"]) for r in rows]) < 8
    classes = json.loads((out / "summary.json").read_text())["classes"]
    assert classes["counts"]["V"] == 0 and classes["af_episodes"] == []
    [stretch] = classes["unreadable"]
    assert stretch["beats"] == len(rows) and classes["unreadable_seconds"] > 250


def test_a_noisy_stretch_is_marked_in_beats_atr(zeroflow_bin, short_recording, tmp_path):
    # Two minutes of the short recording replaced by white noise: WFDB's `~` marks where readable
    # ECG stops (its median clarity in the text) and where it resumes; the beats between are Q.
    wfdb = pytest.importorskip("wfdb")
    import numpy as np

    x = np.loadtxt(short_recording, skiprows=1)
    start, stop = 250 * 200, 250 * 320
    x[start:stop] = np.random.default_rng(9).standard_normal(stop - start) * x.std()
    rec = tmp_path / "burst.csv"
    rec.write_text("heartbeats\n" + "\n".join(f"{v:.5f}" for v in x) + "\n")
    out = tmp_path / "out"
    run_cli(zeroflow_bin, "run", rec, "--out", out, "--device", "cpu", "--epochs", 1)
    ann = wfdb.rdann(str(out / "beats"), "atr")
    marks = [(int(s), t) for s, y, t in zip(ann.sample, ann.symbol, ann.aux_note) if y == "~"]
    assert len(marks) == 2 and marks[0][1].startswith("unreadable (clarity ") and marks[1][1] == "readable"
    assert abs(marks[0][0] - start) < 250 * 10 and abs(marks[1][0] - stop) < 250 * 10
    [stretch] = json.loads((out / "summary.json").read_text())["classes"]["unreadable"]
    assert stretch["onset"] == marks[0][0]
    beats = [(int(s), y) for s, y in zip(ann.sample, ann.symbol) if y not in "~+"]
    assert all(y == "Q" for s, y in beats if marks[0][0] <= s < marks[1][0])
    # evaluate reads a beats.atr with quality marks as before (they are no beats).
    labels = short_recording.with_suffix(".labels.csv")
    proc = run_cli(zeroflow_bin, "evaluate", out, "--labels", labels)
    assert "EC57" in proc.stdout
