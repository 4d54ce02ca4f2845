"""Messages in the user's terms: a mistyped command is named back with the commands there are, a
folder given for a file is said once, and runs.csv never hands a spreadsheet a formula."""

import csv
import pathlib
import shutil
import subprocess

from conftest import run_cli

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "mitdb"


def error_lines(proc):
    return [line for line in proc.stderr.splitlines() if line.startswith("zeroflow: error:")]


def test_an_unknown_command_is_named_back(zeroflow_bin):
    proc = run_cli(zeroflow_bin, "bogus", "x.csv", check=False)
    assert proc.returncode == 2
    [line] = error_lines(proc)
    assert '"bogus"' in line and "run, score, generate" in line


def test_a_folder_for_a_file_is_said_once(zeroflow_bin, tmp_path):
    # A WFDB header whose signal file is a folder.
    shutil.copy(DATA / "119.hea", tmp_path / "119.hea")
    (tmp_path / "119.dat").mkdir()
    proc = run_cli(zeroflow_bin, "run", tmp_path / "119.hea", "--out", tmp_path / "o", "--device", "cpu", check=False)
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert str(tmp_path / "119.dat") in line and "is a folder; give the signal file itself" in line


def test_runs_csv_never_holds_a_formula(zeroflow_bin, short_recording, tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    named = inputs / "=HYPERLINK(1).csv"
    shutil.copy(short_recording, named)
    shutil.copy(short_recording, inputs / "plain.csv")
    # Relative names, as a user in that folder types them: the cell then starts with "=".
    args = [named.name, "plain.csv", "--out", "+out", "--device", "cpu", "--epochs", "1", "--sample-rate", "250"]

    def run_here(*extra):
        proc = subprocess.run([str(zeroflow_bin), "run", *args, *extra], cwd=inputs, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr

    run_here()
    out = inputs / "+out"
    with open(out / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["input"] == "'" + named.name  # the apostrophe keeps a spreadsheet from running it
    assert rows[0]["out"] == "'+out/=HYPERLINK(1)"
    assert rows[1]["input"] == "plain.csv"
    # zeroflow reads its own runs.csv back: a second run with --force replaces both folders.
    run_here("--force")
    assert sorted(p.name for p in out.iterdir()) == ["=HYPERLINK(1)", "plain", "runs.csv"]
