"""The seed-004 commands against hostile inputs, with the guarantees of `zeroflow run`: `timeseries` and
`generate-electricity` refuse earlier results without --force and replace them all together with it, leave
nothing half-written when they fail or are interrupted, refuse a FIFO instead of waiting for a writer, and
say why in one line with exit code 1 (2 for a usage error). Every case checks the exit code, the error
line and every file around the command before and after it."""

import json
import os
import signal
import subprocess

import pandas as pd
import pytest
from conftest import run_cli
from test_cli_hostile import error_lines, hidden_or_temporary, interrupt_at, snapshot


@pytest.fixture(scope="module")
def table(zeroflow_bin, tmp_path_factory):
    """Sixty days of hourly rows and their labels."""
    csv = tmp_path_factory.mktemp("seed004") / "el.csv"
    run_cli(zeroflow_bin, "generate-electricity", "--days", 60, "--seed", 3, "--out", csv)
    return csv


def timeseries(zeroflow_bin, *args):
    return subprocess.run(
        [str(zeroflow_bin), "timeseries", *map(str, args), "--device", "cpu", "--epochs", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )


def electricity(zeroflow_bin, *args):
    return subprocess.run(
        [str(zeroflow_bin), "generate-electricity", *map(str, args)], capture_output=True, text=True, timeout=120
    )


def refusal(out, names):
    return (
        f"zeroflow: error: {out} already holds the results of an earlier run ({', '.join(names)}); add --force "
        "to replace them all, or choose another --out"
    )


# ---- timeseries -------------------------------------------------------------------------------


def test_timeseries_refuses_earlier_results_without_force(zeroflow_bin, table, tmp_path):
    out = tmp_path / "out"
    assert timeseries(zeroflow_bin, table, "--column", 7, "--out", out).returncode == 0
    before = snapshot(tmp_path)
    proc = timeseries(zeroflow_bin, table, "--column", 5, "--out", out)
    assert proc.returncode == 1, proc.stderr
    assert error_lines(proc) == [refusal(out, ["points.csv", "summary.json"])]
    assert "read:" not in proc.stderr  # refused before the table is read
    assert snapshot(tmp_path) == before


def test_timeseries_force_replaces_every_earlier_result_together(zeroflow_bin, table, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    # Results of another command's run in the same folder are stale once these are written; a file of the
    # person's own is not a result and stays.
    (out / "beats.csv").write_text("beat,start,peak\n")
    (out / "evaluation.json").write_text("{}\n")
    (out / "notes.txt").write_text("mine\n")
    proc = timeseries(zeroflow_bin, table, "--column", 5, "--out", out)
    assert proc.returncode == 1 and error_lines(proc) == [refusal(out, ["beats.csv", "evaluation.json"])]
    proc = timeseries(zeroflow_bin, table, "--column", 5, "--out", out, "--force")
    assert proc.returncode == 0, proc.stderr
    assert error_lines(proc) == []
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "points.csv", "summary.json"]
    assert (out / "notes.txt").read_text() == "mine\n"
    summary = json.loads((out / "summary.json").read_text())
    values = pd.read_csv(table).iloc[:, 5]
    points = pd.read_csv(out / "points.csv")
    assert summary["column"] == values.name == "residential" and summary["input"] == str(table)
    assert (points["value"].to_numpy("float32") == values.to_numpy("float32")).all()
    assert hidden_or_temporary(tmp_path) == []


def test_timeseries_failed_forced_run_keeps_the_earlier_results(zeroflow_bin, table, tmp_path):
    out = tmp_path / "out"
    assert timeseries(zeroflow_bin, table, "--column", 7, "--out", out).returncode == 0
    before = snapshot(tmp_path)
    proc = timeseries(zeroflow_bin, table, "--column", "datetime", "--out", out, "--force")
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert "datetime" in line and "cannot parse" in line, line
    assert snapshot(tmp_path) == before  # the earlier results, whole; nothing of the failed run


def test_timeseries_failed_run_leaves_no_folder_it_made(zeroflow_bin, table, tmp_path):
    before = snapshot(tmp_path)
    proc = timeseries(zeroflow_bin, table, "--column", "power", "--out", tmp_path / "new" / "out")
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert "power" in line, line
    assert snapshot(tmp_path) == before


def test_timeseries_refuses_a_fifo_at_once(zeroflow_bin, tmp_path):
    fifo = tmp_path / "stream.csv"
    os.mkfifo(fifo)
    before = snapshot(tmp_path)
    proc = timeseries(zeroflow_bin, fifo, "--column", 0, "--out", tmp_path / "out")  # no writer: it would wait
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: {fifo} is not a regular file (a FIFO, socket or device); zeroflow reads the table "
        "from a file: save it to one first"
    ]
    assert snapshot(tmp_path) == before


def test_timeseries_labels_that_cannot_be_read_are_a_warning(zeroflow_bin, table, tmp_path):
    csv = tmp_path / "el.csv"
    csv.write_bytes(table.read_bytes())
    os.mkfifo(tmp_path / "el.labels.csv")  # found beside the input, as a labels file is
    out = tmp_path / "out"
    proc = timeseries(zeroflow_bin, csv, "--column", 7, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert error_lines(proc) == []
    warnings = [line for line in proc.stderr.splitlines() if "warning:" in line]
    assert len(warnings) == 1 and "is not a regular file" in warnings[0], proc.stderr
    assert proc.stderr.index("warning:") < proc.stderr.index("read:")  # said before the work
    assert "evaluation" not in json.loads((out / "summary.json").read_text())
    assert "label" not in pd.read_csv(out / "points.csv").columns
    # A labels file that does not parse is a warning too, not a failed run after the training.
    bad = tmp_path / "bad.labels.csv"
    bad.write_text("row,datetime,column,kind\nnot a row\n")
    proc = timeseries(zeroflow_bin, csv, "--column", 7, "--out", tmp_path / "out2", "--labels", bad)
    assert proc.returncode == 0 and error_lines(proc) == [], proc.stderr
    assert "warning: labels" in proc.stderr
    assert "evaluation" not in json.loads((tmp_path / "out2" / "summary.json").read_text())


@pytest.mark.parametrize("make", ["file", "under_a_file"])
def test_timeseries_out_that_cannot_be_a_folder_is_refused_before_reading(zeroflow_bin, table, tmp_path, make):
    blocker = tmp_path / "taken"
    blocker.write_text("a file\n")
    out = blocker if make == "file" else blocker / "sub"
    before = snapshot(tmp_path)
    proc = timeseries(zeroflow_bin, table, "--column", 7, "--out", out)
    assert proc.returncode == 1
    assert error_lines(proc) == [f"zeroflow: error: cannot create the output folder {out}: Not a directory"]
    assert "read:" not in proc.stderr
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "args",
    [
        ["timeseries", "TABLE", "--out", "o"],  # no --column
        ["timeseries", "TABLE", "--column", "7", "--out", "o", "--epochs", "-1"],
        ["timeseries", "missing.csv", "--column", "7", "--out", "o"],
        ["timeseries", "TABLE", "--column", "7", "--out", "o", "--force=maybe"],
        ["generate-electricity", "--out", "sub/"],
        ["generate-electricity", "--out", "x.csv", "--days", "0"],
    ],
)
def test_usage_errors_exit_2_with_one_line(zeroflow_bin, table, tmp_path, args):
    args = [str(table) if a == "TABLE" else a for a in args]
    proc = subprocess.run([str(zeroflow_bin), *args], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    [line] = error_lines(proc)
    assert line.endswith("--help)"), line
    assert "\n" not in proc.stderr.strip(), proc.stderr  # the one line is all
    assert list(tmp_path.iterdir()) == []


def test_sigint_during_timeseries_keeps_the_earlier_results(zeroflow_bin, table, tmp_path):
    out = tmp_path / "out"
    assert timeseries(zeroflow_bin, table, "--column", 7, "--out", out).returncode == 0
    before = snapshot(tmp_path)
    args = ["timeseries", table, "--column", 6, "--out", out, "--device", "cpu", "--epochs", 1000000, "--force"]
    code, stderr = interrupt_at(zeroflow_bin, args, "scale:")  # training
    assert code == 130, stderr
    assert [line for line in stderr.splitlines() if line.startswith("zeroflow: error:")] == [
        "zeroflow: error: interrupted (SIGINT); the unfinished outputs were removed"
    ]
    assert snapshot(tmp_path) == before  # no staging folder, no .tmp, the earlier results as they were


def test_sigterm_during_timeseries_leaves_no_folder(zeroflow_bin, table, tmp_path):
    before = snapshot(tmp_path)
    args = ["timeseries", table, "--column", 7, "--out", tmp_path / "new" / "out", "--device", "cpu"]
    code, stderr = interrupt_at(zeroflow_bin, [*args, "--epochs", 1000000], "scale:", signal.SIGTERM)
    assert code == 143, stderr
    assert snapshot(tmp_path) == before


# ---- generate-electricity ---------------------------------------------------------------------


def test_generate_electricity_refuses_an_earlier_table_without_force(zeroflow_bin, tmp_path):
    csv = tmp_path / "el.csv"
    assert electricity(zeroflow_bin, "--days", 10, "--seed", 1, "--out", csv).returncode == 0
    before = snapshot(tmp_path)
    proc = electricity(zeroflow_bin, "--days", 20, "--seed", 2, "--out", csv)
    assert proc.returncode == 1
    assert error_lines(proc) == [refusal(tmp_path, ["el.csv", "el.labels.csv"])]
    assert "generating" not in proc.stderr
    assert snapshot(tmp_path) == before
    # A labels file left alone counts too: the table written would not match it.
    (tmp_path / "other.labels.csv").write_text("row,datetime,column,kind\n")
    proc = electricity(zeroflow_bin, "--days", 20, "--out", tmp_path / "other.csv")
    assert proc.returncode == 1 and error_lines(proc) == [refusal(tmp_path, ["other.labels.csv"])]


def test_generate_electricity_force_replaces_the_table_and_its_labels(zeroflow_bin, tmp_path):
    csv = tmp_path / "el.csv"
    assert electricity(zeroflow_bin, "--days", 10, "--seed", 1, "--out", csv).returncode == 0
    proc = electricity(zeroflow_bin, "--days", 20, "--seed", 2, "--anomaly-rate", 0.01, "--out", csv, "--force")
    assert proc.returncode == 0, proc.stderr
    assert error_lines(proc) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["el.csv", "el.labels.csv"]
    df = pd.read_csv(csv)
    labels = pd.read_csv(tmp_path / "el.labels.csv")
    assert len(df) == 20 * 24
    # The labels are the new table's: every labelled row lies in it, at that row's time.
    assert len(labels) > 0 and labels["row"].max() < len(df)
    assert (df["datetime"].to_numpy()[labels["row"]] == labels["datetime"].to_numpy()).all()


def test_generate_electricity_replaces_no_special_file(zeroflow_bin, tmp_path):
    os.mkfifo(tmp_path / "el.labels.csv")
    before = snapshot(tmp_path)
    proc = electricity(zeroflow_bin, "--days", 5, "--out", tmp_path / "el.csv", "--force")
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: cannot write the table {tmp_path / 'el.labels.csv'}: it exists and is not a regular "
        "file; give the name of a file to write"
    ]
    assert snapshot(tmp_path) == before


def test_sigint_during_generate_electricity_leaves_nothing(zeroflow_bin, tmp_path):
    out = tmp_path / "made" / "el.csv"
    before = snapshot(tmp_path)
    code, stderr = interrupt_at(
        zeroflow_bin, ["generate-electricity", "--days", 3000, "--step-minutes", 1, "--out", out], "generating"
    )
    assert code == 130, stderr
    assert snapshot(tmp_path) == before  # no table, no labels, no staging folder, no made/
