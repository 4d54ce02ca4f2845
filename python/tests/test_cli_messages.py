"""Messages in the user's terms: a mistyped command is named back with the commands there are, a
folder given for a file is said once, and runs.csv never hands a spreadsheet a formula."""

import csv
import pathlib
import re
import resource
import shutil
import signal
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


def test_no_message_starts_with_a_function_name(zeroflow_bin, tmp_path):
    # "robust_zscore: the signal is empty" reached the user for a record of no samples.
    (tmp_path / "e.hea").write_text("e 1 250 0\ne.dat 16 200 16 0 0 0 0 MLII\n")
    (tmp_path / "e.dat").write_bytes(b"")
    (tmp_path / "e.f32").write_bytes(b"")
    for name, lead, rate in (("e.hea", "MLII", []), ("e.f32", "channel 0", ["--sample-rate", 250])):
        proc = run_cli(
            zeroflow_bin, "run", tmp_path / name, *rate, "--out", tmp_path / "o", "--device", "cpu", check=False
        )
        assert proc.returncode == 1
        [line] = error_lines(proc)
        assert line == (
            f'zeroflow: error: {tmp_path / name}: the recording holds no samples (lead "{lead}", 0 samples); give '
            "a recording with at least a few seconds of signal"
        )
        assert not re.match(r"zeroflow: error: [a-z0-9]+(_[a-z0-9]+)+(::[a-z0-9_]+)*: ", line), line


def test_a_disk_full_error_names_the_users_file_not_the_staging_folder(zeroflow_bin, short_recording, tmp_path):
    def small_files():  # a file size limit stands in for a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))

    out = tmp_path / "out"
    proc = subprocess.run(
        [str(zeroflow_bin), "run", str(short_recording), "--out", str(out), "--device", "cpu", "--epochs", "1"],
        preexec_fn=small_files,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert re.fullmatch(rf"zeroflow: error: writing {re.escape(str(out))}/[a-z.]+ failed \(disk full\?\)", line), line
    assert ".zeroflow" not in proc.stderr
    assert not out.exists()  # and nothing half-written is left


def test_a_name_clash_in_out_is_found_before_any_work(zeroflow_bin, short_recording, tmp_path):
    # OUT/x was found to be a file only when the batch reached x.csv, after the others' work.
    for sub in ("A", "B"):
        (tmp_path / sub).mkdir()
        shutil.copy(short_recording, tmp_path / sub / "rec.csv")
    shutil.copy(short_recording, tmp_path / "x.csv")
    out = tmp_path / "out"
    out.mkdir()
    (out / "x").write_text("a file of the user's\n")
    inputs = [tmp_path / "A" / "rec.csv", tmp_path / "B" / "rec.csv", tmp_path / "x.csv"]
    proc = run_cli(zeroflow_bin, "run", *inputs, "--out", out, "--device", "cpu", "--epochs", 1, check=False)
    assert proc.returncode == 1
    assert error_lines(proc) == [
        f"zeroflow: error: cannot write the results of {inputs[2]} into {out / 'x'}: it is a link or not a "
        "folder; remove it or choose another --out"
    ]
    assert "load..." not in proc.stderr  # no recording was read
    assert sorted(p.name for p in out.iterdir()) == ["x"]
    # Two inputs of one name still get a folder each.
    (out / "x").unlink()
    run_cli(zeroflow_bin, "run", *inputs, "--out", out, "--device", "cpu", "--epochs", 1)
    assert sorted(p.name for p in out.iterdir()) == ["rec", "rec-2", "runs.csv", "x"]


def test_a_run_option_on_another_command_is_checked_as_run_checks_it(zeroflow_bin, tmp_path):
    # `timeseries --io` sets the run option `io`: its check, refusal and help are the run table's.
    table = tmp_path / "t.csv"
    table.write_text("a\n1\n2\n")

    def refusal(*args):
        proc = run_cli(zeroflow_bin, *args, check=False)
        assert proc.returncode == 2, proc.stderr
        [line] = error_lines(proc)
        return line[: line.index(" (see zeroflow")]

    run = refusal("run", table, "--out", tmp_path / "o", "--io", "gds")
    assert run == "zeroflow: error: --io: 'gds' is not one of auto|kvikio|posix|mmap"
    assert refusal("timeseries", table, "-c", "a", "-o", tmp_path / "o", "--io", "gds") == run
    help_line = [line for line in run_cli(zeroflow_bin, "timeseries", "--help").stdout.splitlines() if "--io" in line]
    assert help_line == [line for line in run_cli(zeroflow_bin, "run", "--help").stdout.splitlines() if "--io" in line]
    # A seed is refused in the same words wherever it is given.
    seed = refusal("run", table, "--out", tmp_path / "o", "--seed", "-1")
    assert refusal("generate", "--out", tmp_path / "g.csv", "--seed", "-1") == seed
    assert "'-1' is not a seed" in seed


def test_a_long_path_does_not_cut_the_reason(zeroflow_bin, short_recording, tmp_path):
    # --out under a plain file, 2,200 bytes deep: the reason comes after the path, so a message
    # cut at its end would say where but not what; the middle goes instead.
    (tmp_path / "plain").write_text("not a folder")
    out = tmp_path / "plain" / pathlib.Path(*["d" * 200] * 11) / "out"
    proc = run_cli(zeroflow_bin, "run", short_recording, "--out", out, "--device", "cpu", check=False)
    assert proc.returncode == 1
    [line] = error_lines(proc)
    assert line.endswith(": Not a directory"), line[-200:]
    assert " ... " in line and len(line.encode()) < 2100
    assert line.startswith(f"zeroflow: error: cannot create the output folder {tmp_path}")
    # Multi-byte characters in the cut stay whole.
    out = tmp_path / "plain" / pathlib.Path(*["é" * 100] * 11) / "out"
    proc = run_cli(zeroflow_bin, "run", short_recording, "--out", out, "--device", "cpu", check=False)
    [line] = error_lines(proc)
    assert line.endswith(": Not a directory") and "\ufffd" not in line and "\\x" not in line
