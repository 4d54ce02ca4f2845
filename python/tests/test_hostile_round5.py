"""Hostile pass, round five: the hardening issue's nine rules, probed through the command-line tool.

1. Labels are recognised by what they hold: text goes to the labels-CSV reader, binary must have the
   structure of a WFDB annotation file; anything else is refused in one line naming the format.
2. No ECG gives no beats (or Q beats only): a warning and summary.json's unreadable stretches, never
   V beats; a recording without any ECG ends with a clear line.
3. A rhythm of 240-300 bpm is reported (classes.possibly_faster or a warning), not silently lost.
4. No command deletes or overwrites a file it did not write; a malformed checkpoint or model is one line.
5. Model files: one rate rule (1 part in 10^9), windows checked; damaged files and files of another
   kind are one line each.
6. Labels before the start or past the end of the recording: one treatment for CSV and .atr.
7. `zeroflow evaluate A BAD B` evaluates A and B, names BAD, and exits 1 at the end.
8. Error lines keep their reason whatever the path; beats.atr states its time resolution.
9. The recently changed surfaces: --segmentation gate-to-gate and its alias seed, train-population
   on the CPU, and `zeroflow score` with a population model.

Every case checks the exit code (docs/cli.md: 0 success, 1 failure, 2 usage error), the single
`zeroflow: error:` line with its reason, that nothing crashed, and that inputs and output folders are
as they should be."""

import csv
import gzip
import json
import os
import pathlib
import shutil
import struct
import subprocess
import time

import numpy as np
import pytest
from conftest import ROOT
from test_cli_hostile import hidden_or_temporary, snapshot

wfdb = pytest.importorskip("wfdb")

MITDB_119 = ROOT / "tests" / "data" / "mitdb" / "119.hea"
FORMAT80_DAT = ROOT / "tests" / "data" / "wfdb" / "3000003_0003.dat"
EDF_FILE = ROOT / "tests" / "data" / "wfdb" / "test_edfann.edf"
BAD_CSV = "x\nabc\n"  # a header, then a value that is no number
CRASH_MARKS = (
    "Traceback",
    "AddressSanitizer",
    "LeakSanitizer",
    "UndefinedBehaviorSanitizer",
    "runtime error:",
    "terminate called",
    "Segmentation fault",
    "core dumped",
    "std::",
    ".cpp:",
)
TEXT_HEADER = "expected the header 'sample,label', 'sample,symbol' or 'sample,symbol,aami'"
MIT_FORMAT = "WFDB annotation file in MIT format"
MIT_CODE = {"N": 1, "V": 5, "A": 8}


# ---- running the tool ---------------------------------------------------------------------------


def cli(binary, *args, timeout=60, cwd=None):
    """Runs zeroflow; stdout and stderr decoded (invalid bytes replaced). Never a crash."""
    proc = subprocess.run(
        [os.fsencode(str(binary)), *[os.fsencode(str(a)) for a in args]],
        capture_output=True,
        timeout=timeout,
        cwd=cwd,
    )
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}:\n{proc.stderr}"
    for mark in CRASH_MARKS:
        assert mark not in proc.stderr, proc.stderr
    return proc


def run(binary, *args, **kw):
    return cli(binary, "run", *args, "--device", "cpu", "--epochs", 1, **kw)


def score(binary, recording, model, out, *args):
    return cli(binary, "score", recording, "--model", model, "--out", out, "--device", "cpu", *args)


def population(binary, *args, timeout=60):
    return cli(binary, "train-population", *args, "--device", "cpu", timeout=timeout)


def error_lines(proc):
    return [line for line in proc.stderr.splitlines() if line.startswith("zeroflow: error:")]


def refused(proc, code, *words):
    """Exit `code` and exactly one line that is not progress: `zeroflow: error: ...` holding `words`."""
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    other = [line for line in proc.stderr.splitlines() if not line.startswith("[")]
    assert len(other) == 1 and other[0].startswith("zeroflow: error: "), proc.stderr
    for word in words:
        assert str(word) in other[0], (word, other[0])
    return other[0]


def ok(proc):
    assert proc.returncode == 0, proc.stderr
    assert error_lines(proc) == [], proc.stderr
    return proc


def warnings(proc):
    return [line for line in proc.stderr.splitlines() if "warning:" in line]


def summary(folder):
    return json.loads((pathlib.Path(folder) / "summary.json").read_text())


def beats(folder):
    with open(pathlib.Path(folder) / "beats.csv", newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path, values, header="ecg", decimals=5):
    path.write_text(header + "\n" + "\n".join(f"{v:.{decimals}f}" for v in values) + "\n")
    return path


def mit_word(code, diff):
    return struct.pack("<H", (code << 10) | (diff & 0x3FF))


def mit_annotations(samples, symbols):
    """A WFDB annotation file (MIT format) written by hand, so that it may hold what wrann refuses: a
    SKIP (code 59) carries any difference, negative ones included."""
    out, previous = b"", 0
    for sample, symbol in zip(samples, symbols):
        diff = int(sample) - previous
        if 0 <= diff <= 1023:
            out += mit_word(MIT_CODE[symbol], diff)
        else:
            value = diff & 0xFFFFFFFF
            out += mit_word(59, 0) + struct.pack("<HH", value >> 16, value & 0xFFFF) + mit_word(MIT_CODE[symbol], 0)
        previous = int(sample)
    return out + b"\0\0"


# ---- safetensors, written here so that files can be damaged and sealed again -----------------------


def read_safetensors(data):
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8 : 8 + n])
    meta = header.pop("__metadata__", {})
    body = data[8 + n :]
    return meta, {
        k: (v["dtype"], v["shape"], body[v["data_offsets"][0] : v["data_offsets"][1]]) for k, v in header.items()
    }


def content_checksum(meta, tensors):
    """io::content_checksum (include/zeroflow/io/safetensors.hpp): FNV-1a 64 of the entries but checksum
    (key NUL value NUL), then of the tensors in name order (name NUL dtype NUL sizes NUL bytes)."""
    h = 0xCBF29CE484222325

    def feed(data):
        nonlocal h
        for byte in data:
            h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF

    for key in sorted(k for k in meta if k != "checksum"):
        feed(key.encode() + b"\0" + meta[key].encode() + b"\0")
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        feed(name.encode() + b"\0" + dtype.encode() + b"\0" + ",".join(map(str, shape)).encode() + b"\0" + raw)
    return f"fnv1a64:{h:016x}"


def write_safetensors(meta, tensors, seal=True):
    meta = dict(meta)
    if seal:
        meta["checksum"] = content_checksum(meta, tensors)
    header, body = {"__metadata__": meta}, b""
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [len(body), len(body) + len(raw)]}
        body += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + body


# ---- signals ----------------------------------------------------------------------------------------


def fast_ecg(bpm, seconds=60, fs=250, seed=0):
    """A clean ECG-like signal at `bpm` (narrow QRS of 1.2 mV, a small T wave, 20 uV of noise) and the
    number of beats in it."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * fs)) / fs
    x = np.zeros_like(t)
    rr, c, count = 60.0 / bpm, 0.3, 0

    def bump(mu, sd, a):
        return a * np.exp(-0.5 * ((t - mu) / sd) ** 2)

    while c < seconds - 0.3:
        x += bump(c - 0.025, 0.008, -0.15) + bump(c, 0.010, 1.2) + bump(c + 0.025, 0.008, -0.3)
        x += bump(c + 0.4 * rr, 0.035 * rr / 0.25, 0.25)
        c += rr * (1 + 0.01 * rng.standard_normal())
        count += 1
    return x + 0.02 * rng.standard_normal(len(t)), count


def no_ecg(kind, seconds, seed, fs=250):
    rng = np.random.default_rng(seed)
    n = int(seconds * fs)
    t = np.arange(n) / fs
    return {
        "flat10uV": lambda: 0.01 * rng.standard_normal(n),
        "white": lambda: rng.standard_normal(n),
        "mains50": lambda: np.sin(2 * np.pi * 50 * t) + 0.01 * rng.standard_normal(n),
        "mains60": lambda: np.sin(2 * np.pi * 60 * t + seed) + 0.01 * rng.standard_normal(n),
    }[kind]()


# ---- shared recordings, runs and models -----------------------------------------------------------


@pytest.fixture(scope="module")
def data(zeroflow_bin, tmp_path_factory):
    """Three minutes of synthetic ECG (250 Hz, 212 beats) with labels as CSV and as .atr, a run of it, the
    run's model, an MLP model, a population model and a checkpoint of an interrupted population run."""
    folder = tmp_path_factory.mktemp("round5")
    rec = folder / "rec.csv"
    ok(cli(zeroflow_bin, "generate", "--hours", 0.05, "--seed", 3, "--out", rec))
    labels = folder / "rec.labels.csv"
    rows = [line.split(",") for line in labels.read_text().splitlines()[1:]]
    samples = [int(r[0]) for r in rows]
    symbols = [r[1] for r in rows]
    wfdb.wrann("rec", "atr", np.array(samples), symbol=symbols, fs=250, write_dir=str(folder))
    out = folder / "run"
    ok(run(zeroflow_bin, rec, "--out", out))
    mlp = folder / "mlp"
    ok(cli(zeroflow_bin, "run", rec, "--out", mlp, "--model", "mlp", "--epochs", 2, "--device", "cpu"))
    pop = folder / "population.safetensors"
    ok(population(zeroflow_bin, rec, "--out", pop, "--epochs", 1, "--batch", 64))
    # A checkpoint of a run stopped mid-way: many epochs, killed once the first checkpoint is on disk.
    stopped = folder / "stopped.safetensors"
    command = [str(zeroflow_bin), "train-population", str(rec), "--out", str(stopped), "--device", "cpu"]
    command += ["--epochs", "100000", "--batch", "64", "--threads", "1"]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checkpoint = folder / "stopped.safetensors.checkpoint"
    try:
        deadline = time.monotonic() + 60
        while not checkpoint.exists() and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.01)
    finally:
        child.kill()
        child.wait()
    assert checkpoint.exists(), "no checkpoint within 60 s"
    kept = folder / "checkpoint.safetensors"
    shutil.copy(checkpoint, kept)
    x = np.loadtxt(rec, skiprows=1)
    shared = {p: p.read_bytes() for p in (rec, labels, folder / "rec.atr", out / "model.safetensors", pop, kept)}
    yield {
        "folder": folder,
        "rec": rec,
        "labels": labels,
        "atr": folder / "rec.atr",
        "samples": samples,
        "symbols": symbols,
        "n": len(x),
        "x": x,
        "run": out,
        "model": out / "model.safetensors",
        "mlp": mlp / "model.safetensors",
        "population": pop,
        "checkpoint": kept,
    }
    # Every case read these files; none may have changed them.
    assert [p for p, content in shared.items() if p.read_bytes() != content] == []


@pytest.fixture
def inputs(data, tmp_path):
    """A copy of the recording, its labels and models in tmp_path/in, to hash before and after."""
    folder = tmp_path / "in"
    folder.mkdir()
    for key in ("rec", "labels", "atr", "model", "population"):
        shutil.copy(data[key], folder / data[key].name)
    shutil.copy(data["mlp"], folder / "mlp.safetensors")
    return folder


def wfdb_record(folder, name, x, fs):
    """A format-16 WFDB record of x (mV, 200 units/mV)."""
    wfdb.wrsamp(name, fs=fs, units=["mV"], sig_name=["MLII"], p_signal=np.asarray(x)[:, None], fmt=["16"],
                adc_gain=[200], baseline=[0], write_dir=str(folder))  # fmt: skip
    return folder / f"{name}.hea"


# =====================================================================================================
# Rule 1: labels recognised by content
# =====================================================================================================


def _labels_text(data):
    return data["labels"].read_text()


GOOD_LABELS = {
    "csv_named.atr": lambda d: _labels_text(d).encode(),
    "copy.txt": lambda d: _labels_text(d).encode(),
    "no_extension": lambda d: _labels_text(d).encode(),
    "crlf.labels.csv": lambda d: _labels_text(d).replace("\n", "\r\n").encode(),
    "bom.atr": lambda d: b"\xef\xbb\xbf" + _labels_text(d).encode(),
    "sample_symbol_only.csv": lambda d: ("sample,symbol\n" + "".join(f"{s},{y}\n" for s, y in zip(d["samples"], d["symbols"]))).encode(),
    "atr_named.labels.csv": lambda d: d["atr"].read_bytes(),
    "atr_named.txt": lambda d: d["atr"].read_bytes(),
    "atr_no_extension": lambda d: d["atr"].read_bytes(),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(GOOD_LABELS))
def test_rule1_labels_are_read_by_content_whatever_their_name(zeroflow_bin, data, tmp_path, name):
    labels = tmp_path / name
    labels.write_bytes(GOOD_LABELS[name](data))
    out = tmp_path / "out"
    proc = ok(run(zeroflow_bin, data["rec"], "--labels", labels, "--out", out))
    assert not [w for w in warnings(proc) if "labels" in w], proc.stderr
    evaluation = summary(out)["evaluation"]
    assert evaluation["labelled_beats"] == len(data["samples"])
    assert "Se 100.00 %, +P 100.00 %" in proc.stderr
    ok(cli(zeroflow_bin, "evaluate", out, "--labels", labels))


def test_rule1_an_atr_at_another_time_resolution_is_converted(zeroflow_bin, data, tmp_path):
    # wfdb-python's note "## time resolution: 500" on samples twice the recording's (250 Hz).
    wfdb.wrann("double", "atr", 2 * np.array(data["samples"]), symbol=data["symbols"], fs=500, write_dir=str(tmp_path))
    out = tmp_path / "out"
    proc = ok(run(zeroflow_bin, data["rec"], "--labels", tmp_path / "double.atr", "--out", out))
    assert "Se 100.00 %, +P 100.00 %" in proc.stderr
    assert summary(out)["evaluation"]["labelled_beats"] == len(data["samples"])


def _rdann_printout(d, header=True):
    lines = ["      Time   Sample #  Type  Sub Chan  Num\tAux"] if header else []
    for s, y in zip(d["samples"], d["symbols"]):
        lines.append(f"{s // 250 // 60:>7}:{(s / 250) % 60:06.3f} {s:8d}     {y}    0    0    0")
    return ("\n".join(lines) + "\n").encode()


def _truncated(d, keep):
    data = d["atr"].read_bytes()
    return data[: keep(len(data))]


BAD_LABELS = {
    # name: (content, words of the refusal)
    "rdann_printout.txt": (lambda d: _rdann_printout(d), TEXT_HEADER),
    "rdann_printout.atr": (lambda d: _rdann_printout(d), TEXT_HEADER),
    "semicolons.labels.csv": (lambda d: _labels_text(d).replace(",", ";").encode(), TEXT_HEADER),
    "tabs.labels.csv": (lambda d: _labels_text(d).replace(",", "\t").encode(), TEXT_HEADER),
    "labels.json": (lambda d: b'{"sample": [142, 344], "symbol": ["N", "N"]}\n', TEXT_HEADER),
    "header_not_labels.hea": (lambda d: b"rec 1 250 45000\nrec.dat 16 200 16 0 0 0 0 MLII\n", TEXT_HEADER),
    "a_runs_beats.csv": (lambda d: (d["run"] / "beats.csv").read_bytes(), TEXT_HEADER),
    "format80_signal.dat": (lambda d: FORMAT80_DAT.read_bytes(), TEXT_HEADER),
    "random64.atr": (lambda d: np.random.default_rng(0).bytes(64), MIT_FORMAT),
    "random1000.atr": (lambda d: np.random.default_rng(1).bytes(1000), MIT_FORMAT),
    "random10000.atr": (lambda d: np.random.default_rng(6).bytes(10000), MIT_FORMAT),
    "random_named.labels.csv": (lambda d: b"\x00\xff" + np.random.default_rng(2).bytes(500), "annotation"),
    "empty.atr": (lambda d: b"", MIT_FORMAT),
    "empty.labels.csv": (lambda d: b"", MIT_FORMAT),
    "half.atr": (lambda d: _truncated(d, lambda n: n // 2), MIT_FORMAT),
    "odd_cut.atr": (lambda d: _truncated(d, lambda n: n // 2 + 1), MIT_FORMAT),
    "no_eof_word.atr": (lambda d: _truncated(d, lambda n: n - 2), "no end-of-file marker"),
    "code53.atr": (lambda d: bytes([0x10, 0xD4]) + d["atr"].read_bytes()[2:], "53 is no MIT annotation code"),
    "labels.csv.gz": (lambda d: gzip.compress(d["labels"].read_bytes()), "annotation"),
}


@pytest.mark.parametrize("name", sorted(BAD_LABELS))
def test_rule1_what_is_no_labels_file_is_a_warning_in_a_run_and_one_line_in_evaluate(
    zeroflow_bin, data, inputs, tmp_path, name
):
    content, words = BAD_LABELS[name]
    labels = inputs / name
    labels.write_bytes(content(data))
    before = snapshot(inputs)
    out = tmp_path / "out"
    proc = ok(run(zeroflow_bin, inputs / "rec.csv", "--labels", labels, "--out", out))
    [warning] = [w for w in warnings(proc) if "labels" in w]
    assert str(labels) in warning and words in warning, warning
    assert "without evaluation" in warning or "not evaluated" in warning, warning
    result = summary(out)
    assert "evaluation" not in result and not result["labels"], result.get("labels")
    proc = cli(zeroflow_bin, "evaluate", out, "--labels", labels)
    line = refused(proc, 1, labels, words)
    assert all(0x20 <= ord(c) for c in line), repr(line)  # no raw control bytes of the file
    assert "+P" not in proc.stdout
    assert not (out / "evaluation.json").exists()
    assert snapshot(inputs) == before


def test_rule1_utf16_labels_are_named_as_text(zeroflow_bin, data, tmp_path):
    labels = tmp_path / "utf16.labels.csv"
    labels.write_bytes(data["labels"].read_text().encode("utf-16"))
    proc = cli(zeroflow_bin, "evaluate", data["run"], "--labels", labels, "--json", tmp_path / "e.json")
    line = refused(proc, 1, labels)
    assert "UTF-16" in line or "sample,symbol" in line, line


def test_rule1_a_model_file_is_no_labels_file(zeroflow_bin, data, tmp_path):
    proc = cli(zeroflow_bin, "evaluate", data["run"], "--labels", data["model"], "--json", tmp_path / "e.json")
    refused(proc, 1, data["model"])
    out = tmp_path / "out"
    proc = ok(run(zeroflow_bin, data["rec"], "--labels", data["model"], "--out", out))
    assert "evaluation" not in summary(out), proc.stderr


def test_rule1_an_edf_file_is_no_labels_file(zeroflow_bin, tmp_path):
    folder = tmp_path / "long"
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps({"sample_rate": 250.0, "samples": 4_000_000}))
    (folder / "beats.csv").write_text("peak,score\n" + "".join(f"{100 + 200 * i},0.5\n" for i in range(19000)))
    proc = cli(zeroflow_bin, "evaluate", folder, "--labels", EDF_FILE, "--json", tmp_path / "e.json")
    refused(proc, 1, EDF_FILE)


# =====================================================================================================
# Rule 2: no beats from no ECG
# =====================================================================================================


@pytest.mark.parametrize(
    "kind, seconds, seed, fs",
    [
        ("flat10uV", 60, 0, 250),
        ("flat10uV", 120, 2, 250),
        ("white", 30, 0, 250),
        ("white", 60, 1, 250),
        ("white", 120, 3, 250),
        ("mains50", 60, 0, 250),
        ("mains60", 60, 1, 250),
        ("mains60", 120, 2, 250),
        ("mains50", 60, 0, 360),
        ("flat10uV", 60, 3, 500),
    ],
)  # fmt: skip
def test_rule2_a_recording_without_ecg_gives_q_beats_and_a_warning(zeroflow_bin, tmp_path, kind, seconds, seed, fs):
    rec = write_csv(tmp_path / f"{kind}.csv", no_ecg(kind, seconds, seed, fs), decimals=6)
    out = tmp_path / "out"
    proc = ok(run(zeroflow_bin, rec, "--sample-rate", fs, "--out", out))
    [warning] = [w for w in warnings(proc) if "no readable ECG" in w]
    assert "is a lead off?" in warning
    rows = beats(out)
    assert rows and {r["class"] for r in rows} == {"Q"}
    classes = summary(out)["classes"]
    assert classes["counts"]["V"] == classes["counts"]["S"] == classes["counts"]["N"] == 0
    assert classes["af_episodes"] == [] and len(classes["unreadable"]) == 1
    assert classes["unreadable_seconds"] > 0.9 * seconds
    with open(out / "events.csv", newline="") as f:
        assert list(csv.DictReader(f)) == []  # no pause, run or couplet made of noise


@pytest.mark.parametrize(
    "kind, seed",
    [
        ("white", 11),
        ("flat10uV", 22),
        ("white", 4),
    ],
)  # fmt: skip
def test_rule2_noise_to_its_very_end_gives_no_v_beat(zeroflow_bin, tmp_path, kind, seed):
    rec = write_csv(tmp_path / f"{kind}.csv", no_ecg(kind, 60, seed), decimals=6)
    out = tmp_path / "out"
    ok(run(zeroflow_bin, rec, "--out", out))
    assert [(i, r["class"]) for i, r in enumerate(beats(out)) if r["class"] != "Q"] == []
    assert summary(out)["classes"]["counts"]["V"] == 0


@pytest.mark.parametrize(
    "name, values",
    [
        ("zeros", lambda n: np.zeros(n)),
        ("constant", lambda n: np.full(n, 1.234)),
        ("railed", lambda n: np.full(n, 5.0)),
    ],
)
def test_rule2_a_flat_recording_ends_with_one_line_and_no_results(zeroflow_bin, tmp_path, name, values):
    rec = write_csv(tmp_path / f"{name}.csv", values(250 * 60))
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, rec, "--out", tmp_path / "out")
    refused(proc, 1, rec, "0 beats were found")
    assert snapshot(tmp_path) == before  # no out folder, no half-written results


LEAD_OFF = {
    "flat10uV": lambda n, x, rng: 0.01 * rng.standard_normal(n),
    "zeros": lambda n, x, rng: np.zeros(n),
    "railed": lambda n, x, rng: np.full(n, 5.0),
    "mains60": lambda n, x, rng: 0.5 * np.sin(2 * np.pi * 60 * np.arange(n) / 250),
    "white": lambda n, x, rng: x.std() * rng.standard_normal(n),
}
OFF_START, OFF_STOP = 60 * 250, 120 * 250  # samples


@pytest.fixture(scope="module")
def lead_off_runs(zeroflow_bin, data, tmp_path_factory):
    """The 3-minute recording with a lead off from 60 s to 120 s (or to its end, `zeros_to_end`), each run once."""
    folder = tmp_path_factory.mktemp("leadoff")
    results = {}
    for kind in [*LEAD_OFF, "zeros_to_end"]:
        x = data["x"].copy()
        stop = len(x) if kind == "zeros_to_end" else OFF_STOP
        fill = LEAD_OFF["zeros" if kind == "zeros_to_end" else kind]
        x[OFF_START:stop] = fill(stop - OFF_START, data["x"], np.random.default_rng(1))
        rec = write_csv(folder / f"{kind}.csv", x)
        out = folder / kind
        proc = ok(run(zeroflow_bin, rec, "--out", out))
        results[kind] = (proc, out, stop)
    return results


@pytest.mark.parametrize(
    "kind",
    ["flat10uV", "zeros", "railed", "mains60", "white", "zeros_to_end"],
)  # fmt: skip
def test_rule2_a_lead_that_comes_off_gives_no_beats_but_q_there(lead_off_runs, kind):
    _, out, stop = lead_off_runs[kind]
    inside = [r["class"] for r in beats(out) if OFF_START <= int(r["peak"]) < stop]
    assert set(inside) <= {"Q"}, inside


@pytest.mark.parametrize(
    "kind",
    ["flat10uV", "zeros", "railed", "mains60", "white", "zeros_to_end"],
)  # fmt: skip
def test_rule2_a_lead_that_comes_off_is_warned_about_and_in_the_summary(lead_off_runs, kind):
    proc, out, stop = lead_off_runs[kind]
    assert any("warning:" in w and ("readable ECG" in w or "lead" in w) for w in warnings(proc)), proc.stderr
    stretches = summary(out)["classes"]["unreadable"]
    covered = sum(max(0, min(s["offset"], stop) - max(s["onset"], OFF_START)) for s in stretches)
    assert covered > 0.8 * (stop - OFF_START), stretches


@pytest.mark.parametrize(
    "kind",
    ["flat10uV", "zeros", "mains60", "white"],
)  # fmt: skip
def test_rule2_a_lead_that_comes_off_makes_no_holter_event(lead_off_runs, kind):
    _, out, stop = lead_off_runs[kind]
    with open(out / "events.csv", newline="") as f:
        events = [(e["kind"], int(e["onset"]), int(e["offset"])) for e in csv.DictReader(f)]
    assert [e for e in events if e[1] < stop and e[2] > OFF_START] == []


EDGE = 125  # 0.5 s


@pytest.mark.parametrize(
    "kind",
    ["flat10uV", "zeros", "railed", "mains60", "white"],
)  # fmt: skip
def test_rule2_the_beats_beside_a_lead_off_are_not_called_ectopic(lead_off_runs, kind):
    # The last beat before the lead comes off and the first after it come on time: neither is S or V.
    _, out, stop = lead_off_runs[kind]
    near = [(int(r["peak"]), r["class"]) for r in beats(out)
            if OFF_START - EDGE <= int(r["peak"]) < OFF_START or stop <= int(r["peak"]) < stop + EDGE]  # fmt: skip
    assert [b for b in near if b[1] in "SV"] == [], near


def test_rule2_gate_to_gate_on_noise_claims_no_classes(zeroflow_bin, tmp_path):
    # The seed's method has no classes (docs/cli.md): whatever it finds in noise, no beat is called V.
    rec = write_csv(tmp_path / "white.csv", no_ecg("white", 60, 0), decimals=6)
    out = tmp_path / "out"
    ok(run(zeroflow_bin, rec, "--out", out, "--segmentation", "gate-to-gate"))
    assert {r["class"] for r in beats(out)} <= {""}
    assert "classes" not in summary(out) or not summary(out)["classes"]
    assert not (out / "beats.atr").exists() and not (out / "events.csv").exists()


# =====================================================================================================
# Rule 3: a rhythm of 240-300 bpm is said, not silently lost
# =====================================================================================================


@pytest.mark.parametrize(
    "bpm, fs",
    [(200, 250), (240, 250), (250, 250), (260, 250), (270, 250), (280, 250), (290, 250), (300, 250), (300, 360)],
)  # fmt: skip
def test_rule3_a_fast_rhythm_is_found_or_flagged(zeroflow_bin, tmp_path, bpm, fs):
    x, truth = fast_ecg(bpm, fs=fs)
    rec = write_csv(tmp_path / f"vt{bpm}.csv", x)
    out = tmp_path / "out"
    proc = ok(run(zeroflow_bin, rec, "--sample-rate", fs, "--out", out))
    result = summary(out)
    classes, duration = result["classes"], result["duration_seconds"]
    assert classes["unreadable_seconds"] < 0.1 * duration, "clean ECG called unreadable"
    if result["beats_found"] >= 0.9 * truth:
        return  # nothing lost
    assert classes["possibly_faster"] and classes["possibly_faster_seconds"] > 0.5 * duration, classes
    assert "second QRS-like complex" in proc.stderr


# =====================================================================================================
# Rule 4: no command deletes or overwrites a file it did not write
# =====================================================================================================


@pytest.fixture
def record_files(data, tmp_path):
    """A WFDB record (wrec.hea, wrec.dat, wrec.atr), a CSV copy with its labels, a model, a link and a hard link to
    the CSV, and a user's notes with a link to them."""
    folder = tmp_path / "in"
    folder.mkdir()
    wfdb_record(folder, "wrec", data["x"], 250)
    shutil.copy(data["atr"], folder / "wrec.atr")
    shutil.copy(data["rec"], folder / "rec.csv")
    shutil.copy(data["labels"], folder / "rec.labels.csv")
    shutil.copy(data["model"], folder / "model.safetensors")
    (folder / "sub").mkdir()
    (folder / "sub" / "link.csv").symlink_to(folder / "rec.csv")
    os.link(folder / "rec.csv", folder / "hard.csv")
    (folder / "notes.txt").write_text("my notes\n")
    (folder / "notes_link.safetensors").symlink_to(folder / "notes.txt")
    return folder


RUN_OUT_ON_A_FILE = [
    ("run", "rec.csv", "rec.csv"),
    ("run", "rec.csv", "rec.labels.csv"),
    ("run", "rec.csv", "sub/../rec.csv"),
    ("run", "rec.csv", "sub/link.csv"),
    ("run", "wrec.hea", "wrec.hea"),
    ("run", "wrec.hea", "wrec.dat"),
    ("run", "wrec.hea", "wrec.atr"),
    ("score", "rec.csv", "model.safetensors"),
    ("score", "rec.csv", "rec.csv"),
    ("score", "wrec.hea", "wrec.dat"),
]


@pytest.mark.parametrize("command, recording, target", RUN_OUT_ON_A_FILE, ids=["-".join(c) for c in RUN_OUT_ON_A_FILE])
@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_rule4_out_naming_an_existing_file_is_refused_and_left_alone(zeroflow_bin, record_files, command, recording,
                                                                     target, force):  # fmt: skip
    before = snapshot(record_files)
    args = [record_files / recording, "--out", record_files / target, "--device", "cpu"]
    args += ["--model", record_files / "model.safetensors"] if command == "score" else ["--epochs", 1]
    proc = cli(zeroflow_bin, command, *args, *(["--force"] if force else []))
    refused(proc, 1, record_files / target, "Not a directory")
    assert "load..." not in proc.stderr  # before the recording is read
    assert snapshot(record_files) == before


@pytest.mark.parametrize("result", ["beats.atr", "beats.csv", "summary.json"])
def test_rule4_force_never_replaces_a_result_file_that_is_this_runs_input(zeroflow_bin, data, tmp_path, result):
    out = tmp_path / "out"
    shutil.copytree(data["run"], out)
    if result == "beats.atr":  # an earlier result used as labels
        args = [data["rec"], "--labels", out / "beats.atr"]
    else:  # a user's recording saved under a result's name
        shutil.copy(data["rec"], out / result)
        args = [out / result, "--sample-rate", 250]
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, *args, "--out", out, "--force")
    refused(proc, 1, out / result)
    assert snapshot(tmp_path) == before
    assert hidden_or_temporary(tmp_path) == []


POPULATION_TARGETS = [
    # (--out, --checkpoint, exit code, words)
    ("wrec.dat", None, 2, "is not a model zeroflow wrote"),
    ("wrec.atr", None, 2, "is not a model zeroflow wrote"),
    ("notes_link.safetensors", None, 2, "is not a regular file"),
    ("sub/link.csv", None, 2, "is one of the recordings"),
    ("hard.csv", None, 2, "is one of the recordings"),
    ("./sub/../rec.csv", None, 2, "is one of the recordings"),
    ("model2.safetensors", "sub/link.csv", 2, "is one of the recordings"),
    ("model2.safetensors", "hard.csv", 2, "is one of the recordings"),
    ("model2.safetensors", "wrec.dat", (1, 2), "is not a zeroflow population checkpoint"),
    ("model2.safetensors", "model.safetensors", (1, 2), "is not a zeroflow population checkpoint"),
]


@pytest.mark.parametrize(
    "out, checkpoint, code, words", POPULATION_TARGETS, ids=[f"{o}|{c}" for o, c, _, _ in POPULATION_TARGETS]
)
def test_rule4_train_population_with_force_replaces_only_what_it_wrote(zeroflow_bin, record_files, out, checkpoint,
                                                                        code, words):  # fmt: skip
    before = snapshot(record_files)
    args = [record_files / "rec.csv", record_files / "wrec.hea", "--out", record_files / out, "--force"]
    args += ["--checkpoint", record_files / checkpoint] if checkpoint else []
    proc = population(zeroflow_bin, *args, "--epochs", 1, "--batch", 64)
    codes = code if isinstance(code, tuple) else (code,)
    assert proc.returncode in codes, proc.stderr
    refused(proc, proc.returncode, words)
    assert "epoch" not in proc.stderr
    assert snapshot(record_files) == before


@pytest.mark.parametrize(
    "which, flag",
    [("out", "--force"), ("checkpoint", "--force"), ("checkpoint", "--resume"), ("out", None), ("checkpoint", None)],
)  # fmt: skip
def test_rule4_train_population_never_waits_on_a_fifo(zeroflow_bin, data, tmp_path, which, flag):
    fifo = tmp_path / "fifo.safetensors"
    os.mkfifo(fifo)
    before = snapshot(tmp_path)
    args = ["--out", fifo] if which == "out" else ["--out", tmp_path / "m.safetensors", "--checkpoint", fifo]
    proc = population(zeroflow_bin, data["rec"], *args, *([flag] if flag else []), "--epochs", 1, "--batch", 64,
                      timeout=5)  # fmt: skip
    assert proc.returncode in (1, 2)
    refused(proc, proc.returncode, fifo)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "flag, target",
    [("--json", "model.safetensors"), ("--per-beat", "beats.atr"), ("--json", "report.html"),
     ("--per-beat", "RECORDING"), ("--json", "RECORDING")],
)  # fmt: skip
def test_rule4_evaluate_never_writes_over_a_file_it_did_not_write(zeroflow_bin, data, tmp_path, flag, target):
    recording = tmp_path / "rec.csv"
    shutil.copy(data["rec"], recording)
    shutil.copy(data["labels"], tmp_path / "rec.labels.csv")
    out = tmp_path / "out"
    ok(run(zeroflow_bin, recording, "--out", out))
    path = recording if target == "RECORDING" else out / target
    before = snapshot(tmp_path)
    proc = cli(zeroflow_bin, "evaluate", out, flag, path)
    refused(proc, 1, path)
    assert snapshot(tmp_path) == before


def _checkpoint_variant(data, name):
    raw = data["checkpoint"].read_bytes()
    meta, tensors = read_safetensors(raw)
    if name == "empty":
        return b""
    if name == "random":
        return np.random.default_rng(3).bytes(len(raw))
    if name == "truncated":
        return raw[: len(raw) - 100]
    if name == "flipped":
        changed = bytearray(raw)
        changed[-20] ^= 0x08
        return bytes(changed)
    if name == "a_model":
        return data["model"].read_bytes()
    if name == "epochs_done_abc":
        return write_safetensors({**meta, "epochs_done": "abc"}, tensors)
    if name == "epochs_done_negative":
        return write_safetensors({**meta, "epochs_done": "-3"}, tensors)
    if name == "format_version_9":
        return write_safetensors({**meta, "format_version": "9"}, tensors)
    if name == "weights_short":
        return write_safetensors(meta, {**tensors, "weights": ("F32", [100], tensors["weights"][2][:400])})
    if name == "no_weights":
        return write_safetensors(meta, {k: v for k, v in tensors.items() if k != "weights"})
    if name == "nan_weights":  # sealed again: only its values tell
        return write_safetensors(meta, {**tensors, "weights": ("F32", [1618], np.full(1618, np.nan, "<f4").tobytes())})
    if name == "unsealed":
        return write_safetensors({k: v for k, v in meta.items() if k != "checksum"}, tensors, seal=False)
    raise AssertionError(name)


CHECKPOINTS = ["empty", "random", "truncated", "flipped", "a_model", "epochs_done_abc", "epochs_done_negative",
               "format_version_9", "weights_short", "no_weights", "unsealed",
               "nan_weights"]  # fmt: skip


@pytest.mark.parametrize("name", CHECKPOINTS)
def test_rule4_a_malformed_checkpoint_is_one_line_and_left_alone(zeroflow_bin, data, tmp_path, name):
    checkpoint = tmp_path / "run.checkpoint"
    checkpoint.write_bytes(_checkpoint_variant(data, name))
    before = snapshot(tmp_path)
    out = tmp_path / "m.safetensors"
    epochs = int(read_safetensors(data["checkpoint"].read_bytes())[0]["epochs_done"]) + 1  # the only change allowed
    proc = population(zeroflow_bin, data["rec"], "--out", out, "--checkpoint", checkpoint, "--resume", "--epochs",
                      epochs, "--batch", 64)  # fmt: skip
    refused(proc, 1, checkpoint, "cannot resume from this checkpoint")
    assert f"epoch {epochs}/" not in proc.stderr
    assert snapshot(tmp_path) == before


def test_rule4_the_real_checkpoint_resumes(zeroflow_bin, data, tmp_path):
    # The control for the cases above: the undamaged checkpoint continues and is then removed.
    checkpoint = tmp_path / "run.checkpoint"
    shutil.copy(data["checkpoint"], checkpoint)
    done = int(read_safetensors(checkpoint.read_bytes())[0]["epochs_done"])
    out = tmp_path / "m.safetensors"
    proc = ok(population(zeroflow_bin, data["rec"], "--out", out, "--checkpoint", checkpoint, "--resume", "--epochs",
                         done + 1, "--batch", 64, "--threads", 1))  # fmt: skip
    assert f"epoch {done + 1}/{done + 1}" in proc.stderr
    assert out.exists() and not checkpoint.exists()


# =====================================================================================================
# Rule 5: models and sample rates
# =====================================================================================================


@pytest.mark.parametrize(
    "rate, accepted, words",
    [
        ("250", True, ""),
        ("250.0000000001", True, ""),  # 4e-13 apart: the same rate
        ("250.0000001", True, ""),  # 4e-10 apart: still within 1 part in 10^9
        ("249.9999999999", False, "beat window 63 + 113 samples (this run: 62 + 112)"),  # the same rate, rows differ
        ("251", False, "sample rate 250 Hz (this run: 251 Hz)"),
        ("360", False, "sample rate 250 Hz (this run: 360 Hz)"),
        ("500", False, "sample rate 250 Hz (this run: 500 Hz)"),
        ("50", False, "sample rate 250 Hz (this run: 50 Hz)"),
        ("250.000001", False, "RATES DIFFER"),
    ],
)  # fmt: skip
def test_rule5_one_rate_rule_for_a_model(zeroflow_bin, inputs, tmp_path, rate, accepted, words):
    before = snapshot(inputs)
    out = tmp_path / "out"
    proc = score(zeroflow_bin, inputs / "rec.csv", inputs / "model.safetensors", out, "--sample-rate", rate)
    if accepted:
        ok(proc)
        assert summary(out)["beats_found"] == 212
    else:
        line = refused(proc, 1, inputs / "model.safetensors", "trained on beats made differently")
        if words == "RATES DIFFER":
            model_rate, run_rate = line.split("sample rate ")[1].split(" Hz (this run: ")
            assert model_rate != run_rate.split(" Hz")[0], line
        else:
            assert words in line, line
        assert not out.exists()
    assert snapshot(inputs) == before


@pytest.mark.parametrize(
    "args, accepted, words",
    [
        (["--window-before-seconds", "0.3"], False, "beat window 63 + 113 samples (this run: 75 + 113)"),
        (["--window-after-seconds", "0.449"], False, "(this run: 63 + 112)"),
        (["--window-after-seconds", "0.4500000001"], True, ""),
        (["--normalize", "none"], False, "normalisation robust (this run: none)"),
        (["--segmentation", "gate-to-gate"], False, "segmentation robust (this run: gate-to-gate)"),
        (["--segmentation", "seed"], False, "segmentation robust (this run: gate-to-gate)"),
    ],
)
def test_rule5_the_rows_a_model_was_trained_on_are_checked(zeroflow_bin, inputs, tmp_path, args, accepted, words):
    out = tmp_path / "out"
    proc = score(zeroflow_bin, inputs / "rec.csv", inputs / "model.safetensors", out, *args)
    if accepted:
        ok(proc)
    else:
        refused(proc, 1, words)
        assert not out.exists()


@pytest.mark.parametrize("model", ["model.safetensors", "mlp.safetensors", "population.safetensors"])
def test_rule5_a_wfdb_record_at_another_rate_is_refused_for_every_kind_of_model(zeroflow_bin, inputs, tmp_path, model):
    out = tmp_path / "out"
    proc = score(zeroflow_bin, MITDB_119, inputs / model, out)
    refused(proc, 1, inputs / model, "sample rate 250 Hz (this run: 360 Hz)")
    assert not out.exists()


def _model_variant(data, name):
    good = data["model"].read_bytes()
    meta, tensors = read_safetensors(good)
    mlp_meta, mlp_tensors = read_safetensors(data["mlp"].read_bytes())
    n = struct.unpack("<Q", good[:8])[0]
    header = json.loads(good[8 : 8 + n])

    def tensor(name, values, shape):
        return {**tensors, name: ("F32", shape, np.asarray(values, "<f4").tobytes())}

    def bad_offsets():
        header["sigma.alpha"]["data_offsets"] = [6468, 99999]
        text = json.dumps(header).encode()
        text += b" " * (-len(text) % 8)
        return struct.pack("<Q", len(text)) + text + good[8 + n :]

    flipped = bytearray(good)
    flipped[-10] ^= 0x40
    variants = {
        "empty": lambda: b"",
        "seven_bytes": lambda: good[:7],
        "header_length_2^63": lambda: struct.pack("<Q", 2**63) + good[8:],
        "header_length_past_end": lambda: struct.pack("<Q", len(good)) + good[8:],
        "header_not_json": lambda: struct.pack("<Q", 16) + b'{"abc": nonsense' + good[8 + n :],
        "header_json_array": lambda: struct.pack("<Q", 8) + b"[1,2,3] ",
        "truncated_data": lambda: good[:-100],
        "truncated_header": lambda: good[: 8 + n // 2],
        "flipped_bit": lambda: bytes(flipped),
        "offsets_out_of_range": bad_offsets,
        "mlp_label_on_lightvae": lambda: write_safetensors({**meta, "model": "mlp"}, tensors),
        "lightvae_label_on_mlp": lambda: write_safetensors({**mlp_meta, "model": "lightvae"}, mlp_tensors),
        "kind_transformer": lambda: write_safetensors({**meta, "model": "transformer"}, tensors),
        "population_checkpoint": lambda: data["checkpoint"].read_bytes(),
        "checkpoint_format_label": lambda: write_safetensors(
            {**meta, "format": "zeroflow-population-checkpoint"}, tensors
        ),
        "no_metadata": lambda: write_safetensors({}, tensors, seal=False),
        "no_checksum": lambda: write_safetensors(
            {k: v for k, v in meta.items() if k != "checksum"}, tensors, seal=False
        ),
        "width_128": lambda: write_safetensors({**meta, "width": "128"}, tensors),
        "format_version_2": lambda: write_safetensors({**meta, "format_version": "2"}, tensors),
        "rate_nan": lambda: write_safetensors({**meta, "rows.sample_rate": "nan"}, tensors),
        "rate_inf": lambda: write_safetensors({**meta, "rows.sample_rate": "inf"}, tensors),
        "rate_1e-300": lambda: write_safetensors({**meta, "rows.sample_rate": "1e-300"}, tensors),
        "rate_negative": lambda: write_safetensors({**meta, "rows.sample_rate": "-250"}, tensors),
        "rate_zero": lambda: write_safetensors({**meta, "rows.sample_rate": "0"}, tensors),
        "rate_text": lambda: write_safetensors({**meta, "rows.sample_rate": "abc"}, tensors),
        "window_2^66": lambda: write_safetensors({**meta, "rows.window_before": "99999999999999999999"}, tensors),
        "window_negative": lambda: write_safetensors({**meta, "rows.window_before": "-5"}, tensors),
        "nan_weights": lambda: write_safetensors(meta, tensor("restore.bias", np.full(256, np.nan), [256])),
        "float16_tensor": lambda: write_safetensors(meta, {**tensors, "sigma.alpha": ("F16", [2], b"\0\0\0\0")}),
        "wrong_shape": lambda: write_safetensors(meta, tensor("conv0.weight", np.zeros(16), [4, 1, 4])),
        "missing_tensor": lambda: write_safetensors(meta, {k: v for k, v in tensors.items() if k != "sigma.alpha"}),
        "extra_tensor": lambda: write_safetensors(meta, tensor("extra.weight", [0.0], [1])),
        "overflowing_encoder": lambda: write_safetensors(
            meta, tensor("conv0.weight", [3e38, -3e38, 3e38] * 4, [4, 1, 3])
        ),
        "saturated_latent_bias": lambda: write_safetensors(meta, tensor("conv5.bias", [3e38], [1])),
        "libtorch_archive": lambda: b"PK\x03\x04" + bytes(100),
        "gzip": lambda: gzip.compress(good),
        "text": lambda: b"hello world\n",
    }
    return variants[name]()


DAMAGED_MODELS = ["empty", "seven_bytes", "header_length_2^63", "header_length_past_end", "header_not_json",
                  "header_json_array", "truncated_data", "truncated_header", "flipped_bit", "offsets_out_of_range",
                  "mlp_label_on_lightvae", "lightvae_label_on_mlp", "kind_transformer", "population_checkpoint",
                  "checkpoint_format_label", "no_metadata", "no_checksum", "width_128", "format_version_2", "rate_nan",
                  "rate_inf", "rate_1e-300", "rate_negative", "rate_zero", "rate_text", "window_2^66",
                  "window_negative", "nan_weights", "float16_tensor", "wrong_shape", "missing_tensor", "extra_tensor",
                  "overflowing_encoder", "saturated_latent_bias", "libtorch_archive", "gzip", "text"]  # fmt: skip


@pytest.mark.parametrize("name", DAMAGED_MODELS)
def test_rule5_a_damaged_model_or_one_of_another_kind_is_one_line(zeroflow_bin, data, inputs, tmp_path, name):
    model = inputs / "bad.safetensors"
    model.write_bytes(_model_variant(data, name))
    before = snapshot(inputs)
    out = tmp_path / "out"
    proc = score(zeroflow_bin, inputs / "rec.csv", model, out)
    line = refused(proc, 1, model)
    assert "train" in line  # what to do
    assert not out.exists()
    assert snapshot(inputs) == before


@pytest.mark.parametrize(
    "tensor, values, shape",
    [("restore.bias", np.full(256, 3e38), [256]),
     ("restore.weight", np.full(512, 3.4e38), [256, 2]),
     ("restore.bias", np.full(256, -3e38), [256]),
     ("restore.bias", np.full(256, 1e20), [256])],
)  # fmt: skip
def test_rule5_a_saturated_decoder_is_refused(zeroflow_bin, data, inputs, tmp_path, tensor, values, shape):
    meta, tensors = read_safetensors(data["model"].read_bytes())
    model = inputs / "saturated.safetensors"
    model.write_bytes(write_safetensors(meta, {**tensors, tensor: ("F32", shape, np.asarray(values, "<f4").tobytes())}))
    out = tmp_path / "out"
    proc = score(zeroflow_bin, inputs / "rec.csv", model, out)
    refused(proc, 1, model)
    assert not out.exists()


# =====================================================================================================
# Rule 6: labels before the start or past the end, one treatment for CSV and .atr
# =====================================================================================================


def _edge_labels(data, folder, case, kind):
    samples, symbols = list(data["samples"]), list(data["symbols"])
    if case == "past_end":
        samples, symbols = samples + [data["n"], data["n"] + 5000], symbols + ["N", "N"]
    elif case == "last_sample":
        samples, symbols = samples + [data["n"] - 1], symbols + ["N"]
    elif case == "negative":
        samples, symbols = [-10] + samples, ["N"] + symbols
    path = folder / f"{case}.{'labels.csv' if kind == 'csv' else 'atr'}"
    if kind == "csv":
        path.write_text("sample,symbol\n" + "".join(f"{s},{y}\n" for s, y in zip(samples, symbols)))
    else:
        path.write_bytes(mit_annotations(samples, symbols))
    return path


EDGE_WORDS = {"past_end": "2 of 214 beats lie past the end of the recording (45000 samples; the last at sample 50000)",
              "negative": ">= 0"}  # fmt: skip


@pytest.mark.parametrize("kind", ["csv", "atr"])
@pytest.mark.parametrize("case", ["past_end", "negative", "last_sample"])
def test_rule6_labels_outside_the_recording_are_refused_alike(zeroflow_bin, data, inputs, tmp_path, case, kind):
    labels = _edge_labels(data, inputs, case, kind)
    before = snapshot(inputs)
    out, scored = tmp_path / "out", tmp_path / "scored"
    proc_run = ok(run(zeroflow_bin, inputs / "rec.csv", "--labels", labels, "--out", out))
    proc_score = ok(score(zeroflow_bin, inputs / "rec.csv", inputs / "model.safetensors", scored, "--labels", labels))
    proc_eval = cli(zeroflow_bin, "evaluate", out, "--labels", labels)
    if case == "last_sample":  # the last sample is inside: evaluated, one beat missed
        assert summary(out)["evaluation"]["labelled_beats"] == 213
        assert summary(scored)["evaluation"]["labelled_beats"] == 213
        ok(proc_eval)
    else:
        for proc, folder in ((proc_run, out), (proc_score, scored)):
            [warning] = [w for w in warnings(proc) if "labels" in w]
            assert str(labels) in warning and EDGE_WORDS[case] in warning, warning
            evaluation = summary(folder).get("evaluation")
            assert evaluation is None or (
                list(evaluation) == ["not_evaluated"] and EDGE_WORDS[case] in evaluation["not_evaluated"]
            )
        refused(proc_eval, 1, labels, EDGE_WORDS[case])
        assert not (out / "evaluation.json").exists()
    assert snapshot(inputs) == before


def test_rule6_csv_and_atr_say_the_same_of_beats_past_the_end(zeroflow_bin, data, inputs):
    lines = []
    for kind in ("csv", "atr"):
        labels = _edge_labels(data, inputs, "past_end", kind)
        proc = cli(zeroflow_bin, "evaluate", data["run"], "--labels", labels, "--json", inputs / "e.json")
        lines.append(refused(proc, 1).replace(str(labels), "LABELS"))
    assert lines[0] == lines[1]


# =====================================================================================================
# Rule 7: evaluate A BAD B
# =====================================================================================================


@pytest.fixture(scope="module")
def three_runs(zeroflow_bin, tmp_path_factory):
    folder = tmp_path_factory.mktemp("evaluate")
    for name, seed in (("a", 1), ("bad", 2), ("b", 3)):
        rec = folder / f"{name}.csv"
        ok(cli(zeroflow_bin, "generate", "--hours", 0.05, "--seed", seed, "--out", rec))
        ok(run(zeroflow_bin, rec, "--out", folder / name))
    return folder


def _summary_edit(change):
    def edit(folder):
        path = folder / "summary.json"
        content = json.loads(path.read_text())
        path.write_text(change(content) if callable(change) else change)

    return edit


def _with(**fields):
    return _summary_edit(lambda s: json.dumps({**s, **fields}))


def _without(field):
    return _summary_edit(lambda s: json.dumps({k: v for k, v in s.items() if k != field}))


def _score_cell(value):
    def edit(folder):
        lines = (folder / "beats.csv").read_text().splitlines()
        header = lines[0].split(",")
        cells = lines[5].split(",")
        cells[header.index("score")] = value
        lines[5] = ",".join(cells)
        (folder / "beats.csv").write_text("\n".join(lines) + "\n")

    return edit


def _remove(name):
    return lambda folder: (folder / name).unlink()


def _empty_folder(folder):
    shutil.rmtree(folder)
    folder.mkdir()


BAD_FOLDERS = {
    # name: (edit, words of the error line)
    "rate_nan": (_with(sample_rate=float("nan")), "not a JSON object"),
    "rate_infinity": (_with(sample_rate=float("inf")), "not a JSON object"),
    "samples_minus_infinity": (_with(samples=float("-inf")), "not a JSON object"),
    "rate_missing": (_without("sample_rate"), "sample_rate must be a number from 50 to 100000 Hz"),
    "rate_null": (_with(sample_rate=None), "sample_rate must be a number from 50 to 100000 Hz"),
    "rate_list": (_with(sample_rate=[250]), "sample_rate must be a number from 50 to 100000 Hz"),
    "rate_object": (_with(sample_rate={"hz": 250}), "sample_rate must be a number from 50 to 100000 Hz"),
    "rate_true": (_with(sample_rate=True), "sample_rate must be a number from 50 to 100000 Hz"),
    "rate_text_nan": (_with(sample_rate="nan"), "sample_rate must be a number from 50 to 100000 Hz"),
    "rate_negative": (_with(sample_rate=-250), "sample_rate must be a number from 50 to 100000 Hz"),
    "rate_1e308": (_with(sample_rate=1e308), "sample_rate must be a number from 50 to 100000 Hz"),
    "samples_text": (_with(samples="45000"), "samples must be a positive whole number"),
    "samples_zero": (_with(samples=0), "samples must be a positive whole number"),
    "samples_1e300": (_with(samples=1e300), "samples must be a positive whole number"),
    "samples_10^30": (_with(samples=10**30), "samples must be a positive whole number"),
    "labels_a_number": (_with(labels=5), "give --labels FILE"),
    "summary_an_array": (_summary_edit("[1, 2, 3]"), "not a JSON object"),
    "summary_empty": (_summary_edit(""), "not a JSON object"),
    "summary_cut": (_summary_edit(lambda s: json.dumps(s)[:200]), "not a JSON object"),
    "summary_missing": (_remove("summary.json"), "cannot open"),
    "beats_missing": (_remove("beats.csv"), "cannot open"),
    "score_nan": (_score_cell("nan"), "score 'nan' is not a number"),
    "score_inf": (_score_cell("inf"), "score 'inf' is not a number"),
    "score_1e999": (_score_cell("1e999"), "score '1e999' is not a number"),
    "empty_folder": (_empty_folder, "cannot open"),
}


@pytest.mark.parametrize("name", sorted(BAD_FOLDERS))
def test_rule7_evaluate_a_bad_b_evaluates_a_and_b_and_names_bad(zeroflow_bin, three_runs, tmp_path, name):
    for folder in ("a", "bad", "b"):
        shutil.copytree(three_runs / folder, tmp_path / folder)
    edit, words = BAD_FOLDERS[name]
    bad = tmp_path / "bad"
    edit(bad)
    before = snapshot(bad)
    proc = cli(zeroflow_bin, "evaluate", tmp_path / "a", bad, tmp_path / "b")
    assert proc.returncode == 1, proc.stderr
    errors = error_lines(proc)
    assert len(errors) == 2, proc.stderr
    assert str(bad) in errors[0] and words in errors[0], errors[0]
    assert errors[1] == "zeroflow: error: 1 of 3 folders could not be evaluated (each is named above)"
    assert len([line for line in proc.stderr.splitlines() if not line.startswith("[")]) == 2
    records = [line.split()[0] for line in proc.stdout.splitlines() if line.split()[:1] in (["a"], ["b"], ["bad"])]
    assert list(dict.fromkeys(records)) == ["a", "b"]  # tabled in the order given, BAD left out
    assert (tmp_path / "a" / "evaluation.json").exists() and (tmp_path / "b" / "evaluation.json").exists()
    assert snapshot(bad) == before


def test_rule7_two_bad_folders_among_four(zeroflow_bin, three_runs, tmp_path):
    for folder in ("a", "bad", "b"):
        shutil.copytree(three_runs / folder, tmp_path / folder)
    shutil.copytree(three_runs / "bad", tmp_path / "worse")
    _with(sample_rate=None)(tmp_path / "bad")
    _score_cell("nan")(tmp_path / "worse")
    proc = cli(zeroflow_bin, "evaluate", tmp_path / "bad", tmp_path / "a", tmp_path / "worse", tmp_path / "b")
    assert proc.returncode == 1
    errors = error_lines(proc)
    assert len(errors) == 3 and str(tmp_path / "bad") in errors[0] and str(tmp_path / "worse") in errors[1]
    assert errors[2] == "zeroflow: error: 2 of 4 folders could not be evaluated (each is named above)"
    assert (tmp_path / "a" / "evaluation.json").exists() and (tmp_path / "b" / "evaluation.json").exists()


def test_rule7_labels_gone_since_the_run_are_named_and_the_others_evaluated(zeroflow_bin, three_runs, tmp_path):
    for folder in ("a", "bad", "b"):
        shutil.copytree(three_runs / folder, tmp_path / folder)
    # The labels the run read, moved away since: the summary's path leads nowhere.
    labels = tmp_path / "bad.labels.csv"
    shutil.copy(three_runs / "bad.labels.csv", labels)
    content = summary(tmp_path / "bad")
    (tmp_path / "bad" / "summary.json").write_text(json.dumps({**content, "labels": str(labels)}))
    ok(cli(zeroflow_bin, "evaluate", tmp_path / "bad"))  # the very file the run read: followed
    labels.rename(tmp_path / "elsewhere.labels.csv")
    proc = cli(zeroflow_bin, "evaluate", tmp_path / "a", tmp_path / "bad", tmp_path / "b")
    assert proc.returncode == 1
    errors = error_lines(proc)
    assert len(errors) == 2 and "pass --labels FILE" in errors[0]
    assert errors[1].endswith("1 of 3 folders could not be evaluated (each is named above)")


def test_rule7_a_file_among_the_folders_is_a_usage_error(zeroflow_bin, three_runs, tmp_path):
    proc = cli(zeroflow_bin, "evaluate", three_runs / "a", three_runs / "a.csv", three_runs / "b",
               "--json", tmp_path / "e.json")  # fmt: skip
    refused(proc, 2, "a.csv", "--help")
    assert not (tmp_path / "e.json").exists()


# =====================================================================================================
# Rule 8: error lines keep their reason whatever the path; beats.atr states its time resolution
# =====================================================================================================

PARSE_REASON = ':2: column 1 ("x"): cannot parse "abc" as float32'


@pytest.mark.parametrize(
    "name",
    ["with space.csv", "new\nline.csv", "tab\tname.csv", "carriage\rreturn.csv", "escape\x1b[31mred.csv",
     "心電図の記録.csv", "emoji😀.csv", "back\\slash.csv", "-leading-dash.csv", "x" * 240 + ".csv"],
    ids=["space", "newline", "tab", "cr", "escape", "cjk", "emoji", "backslash", "dash", "244_bytes"],
)  # fmt: skip
def test_rule8_an_error_line_keeps_its_reason_whatever_the_name(zeroflow_bin, tmp_path, name):
    rec = tmp_path / name
    rec.write_text(BAD_CSV)
    before = snapshot(tmp_path)
    proc = run(zeroflow_bin, rec, "--out", tmp_path / "out")
    line = refused(proc, 1)
    assert line.endswith(PARSE_REASON), line
    assert not any(c in line for c in "\n\r\t\x1b"), repr(line)
    if name.isprintable():
        assert str(rec) in line
    assert snapshot(tmp_path) == before


def _deep(root, total):
    path = root
    while len(str(path)) < total - 210:
        path = path / ("d" * 200)
    return path


@pytest.mark.parametrize("where", ["input", "labels", "out_under_a_file"])
def test_rule8_a_deep_path_keeps_the_end_of_the_line(zeroflow_bin, data, tmp_path, where):
    deep = _deep(tmp_path, 3900)
    deep.mkdir(parents=True)
    args = [data["rec"], "--out", tmp_path / "out"]
    if where == "input":
        (deep / "bad.csv").write_text(BAD_CSV)
        args[0] = deep / "bad.csv"
        reason = PARSE_REASON
    elif where == "labels":
        (deep / "bad.atr").write_bytes(b"")
        proc = cli(zeroflow_bin, "evaluate", data["run"], "--labels", deep / "bad.atr", "--json", tmp_path / "e.json")
        line = refused(proc, 1)
        assert line.endswith("is it truncated, or not a WFDB annotation file in MIT format?"), line[-200:]
        assert " ... " in line and len(line.encode()) < 2100
        return
    else:
        (deep / "plain").write_text("a file")
        args[2] = deep / "plain" / "out"
        reason = ": Not a directory"
    proc = run(zeroflow_bin, *args)
    line = refused(proc, 1)
    assert line.endswith(reason), line[-200:]
    assert " ... " in line and len(line.encode()) < 2100


def test_rule8_a_run_into_a_deep_folder_with_odd_names_succeeds(zeroflow_bin, data, tmp_path):
    deep = _deep(tmp_path, 3000) / "sp ace\nnew ☃"
    rec = tmp_path / "rec\nwith newline ☃.csv"
    shutil.copy(data["rec"], rec)
    ok(run(zeroflow_bin, rec, "--out", deep))
    assert sorted(p.name for p in deep.iterdir()) == sorted(
        ["beats.atr", "beats.csv", "episodes.csv", "events.csv", "model.safetensors", "report.html", "summary.json"]
    )
    assert summary(deep)["input"] == str(rec) and summary(deep)["samples"] == data["n"]
    assert hidden_or_temporary(tmp_path) == []


def test_rule8_a_long_legal_name_runs(zeroflow_bin, data, tmp_path):
    rec = tmp_path / ("n" * 247 + ".csv")
    shutil.copy(data["rec"], rec)
    out = tmp_path / "out"
    ok(run(zeroflow_bin, rec, "--out", out))
    assert summary(out)["samples"] == data["n"]


def test_rule8_generate_writes_a_long_legal_name(zeroflow_bin, tmp_path):
    out = tmp_path / ("g" * 238 + ".csv")
    ok(cli(zeroflow_bin, "generate", "--hours", 0.01, "--out", out))
    assert out.exists() and out.with_name("g" * 238 + ".labels.csv").exists()


@pytest.mark.parametrize("rate", ["128", "257.3", "333.333333333", "1000", "99999.5"])
def test_rule8_beats_atr_states_the_time_resolution(zeroflow_bin, tmp_path, rate):
    rec = tmp_path / "rec.csv"
    ok(cli(zeroflow_bin, "generate", "--hours", 0.01, "--sample-rate", rate, "--out", rec))
    out = tmp_path / "out"
    ok(run(zeroflow_bin, rec, "--sample-rate", rate, "--out", out))
    assert (out / "beats.atr").read_bytes()[4:].startswith(f"## time resolution: {rate}".encode())
    ann = wfdb.rdann(str(out / "beats"), "atr")
    assert ann.fs == pytest.approx(float(rate), rel=1e-12) and ann.fs == summary(out)["sample_rate"]
    peaks = [int(r["peak"]) for r in beats(out)]
    assert [int(s) for s, y in zip(ann.sample, ann.symbol) if y in "NSVQ"] == peaks
    # evaluate reads the time unit back: the run's own beats against themselves.
    proc = ok(cli(zeroflow_bin, "evaluate", out, "--labels", out / "beats.atr", "--json", tmp_path / "e.json"))
    assert "Se 100.00 %, +P 100.00 %" in proc.stdout


def test_rule8_a_scored_wfdb_records_beats_atr_states_its_rate(zeroflow_bin, run_119, tmp_path):
    out = tmp_path / "scored"
    ok(score(zeroflow_bin, MITDB_119, run_119 / "model.safetensors", out))
    assert wfdb.rdann(str(out / "beats"), "atr").fs == 360


# =====================================================================================================
# Rule 9: --segmentation gate-to-gate / seed, train-population on the CPU, score with its model
# =====================================================================================================


def test_rule9_gate_to_gate_and_seed_are_one_method(zeroflow_bin, data, tmp_path):
    outs = {}
    for name in ("gate-to-gate", "seed"):
        outs[name] = tmp_path / name
        ok(run(zeroflow_bin, data["rec"], "--out", outs[name], "--segmentation", name))
    for result in ("beats.csv", "model.safetensors"):
        assert (outs["seed"] / result).read_bytes() == (outs["gate-to-gate"] / result).read_bytes()
    assert summary(outs["seed"])["options"]["segmentation"] == "gate-to-gate"
    assert sorted(p.name for p in outs["seed"].iterdir()) == [
        "beats.csv",
        "model.safetensors",
        "report.html",
        "summary.json",
    ]
    # A model of either name scores under either name.
    for spelling in ("gate-to-gate", "seed"):
        ok(score(zeroflow_bin, data["rec"], outs["seed"] / "model.safetensors", tmp_path / f"s-{spelling}",
                 "--segmentation", spelling))  # fmt: skip
    assert (tmp_path / "s-seed" / "beats.csv").read_bytes() == (tmp_path / "s-gate-to-gate" / "beats.csv").read_bytes()


@pytest.mark.parametrize("command", ["run", "score"])
@pytest.mark.parametrize("value", ["gate", "Seed", "GATE-TO-GATE", "", "robust,seed", "gate_to_gate", "gate-to-gate "])
def test_rule9_a_bad_segmentation_names_the_choices(zeroflow_bin, data, tmp_path, command, value):
    args = [data["rec"], "--out", tmp_path / "out", "--segmentation", value]
    args += ["--model", data["model"]] if command == "score" else []
    proc = cli(zeroflow_bin, command, *args)
    refused(proc, 2, f"--segmentation: '{value}' is not one of robust|gate-to-gate|seed", f"zeroflow {command} --help")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "flag, value",
    [("--epochs", "100001"), ("--epochs", "abc"), ("--epochs", "1.5"), ("--batch", "16777217"), ("--batch", "1e3"),
     ("--threads", "4097"), ("--threads", "two"), ("--checkpoint-every", "100001"), ("--sample-rate", "49"),
     ("--sample-rate", "nan"), ("--seed", "-1"), ("--processes", "0")],
)  # fmt: skip
def test_rule9_train_population_bad_values_are_usage_errors(zeroflow_bin, data, tmp_path, flag, value):
    proc = population(zeroflow_bin, data["rec"], "--out", tmp_path / "m.safetensors", flag, value)
    refused(proc, 2, flag, "see zeroflow train-population --help")
    assert list(tmp_path.iterdir()) == []


def test_rule9_train_population_refuses_an_empty_folder_and_an_unexpanded_glob(zeroflow_bin, tmp_path):
    (tmp_path / "empty").mkdir()
    for given in (tmp_path / "empty", tmp_path / "empty" / "*.csv"):
        proc = population(zeroflow_bin, given, "--out", tmp_path / "m.safetensors")
        refused(proc, 2, given)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def test_rule9_train_population_on_one_recording_then_score_with_its_model(zeroflow_bin, data, inputs, tmp_path):
    before = snapshot(inputs)
    model = tmp_path / "pop.safetensors"
    proc = ok(
        population(zeroflow_bin, inputs / "rec.csv", "--out", model, "--epochs", 1, "--batch", 64, "--threads", 1)
    )
    assert "trained 1 epochs on 212 beats of 1 recordings on the CPU (1 threads)" in proc.stdout + proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "pop.safetensors"]  # no checkpoint left
    out = tmp_path / "scored"
    ok(score(zeroflow_bin, inputs / "rec.csv", model, out))
    result = summary(out)
    assert result["model"]["name"] == "lightvae" and result["loss_per_epoch"] == []
    assert result["beats_found"] == 212 and result["evaluation"]["labelled_beats"] == 212
    assert not (out / "model.safetensors").exists()
    assert snapshot(inputs) == before


def test_rule9_score_several_recordings_with_a_population_model(zeroflow_bin, data, tmp_path):
    wfdb_record(tmp_path, "wrec", data["x"], 250)
    out = tmp_path / "out"
    ok(cli(zeroflow_bin, "score", data["rec"], tmp_path / "wrec.hea", "--model", data["population"], "--out", out,
           "--device", "cpu"))  # fmt: skip
    with open(out / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["status"] for r in rows] == ["ok", "ok"] and [r["beats_found"] for r in rows] == ["212", "212"]


@pytest.mark.parametrize(
    "args, words",
    [(["--segmentation", "gate-to-gate"], "segmentation robust (this run: gate-to-gate)"),
     (["--normalize", "none"], "normalisation robust (this run: none)"),
     (["--sample-rate", "500"], "sample rate 250 Hz (this run: 500 Hz)")],
)  # fmt: skip
def test_rule9_a_population_model_refuses_rows_made_otherwise(zeroflow_bin, data, tmp_path, args, words):
    out = tmp_path / "out"
    refused(score(zeroflow_bin, data["rec"], data["population"], out, *args), 1, data["population"], words)
    assert not out.exists()


@pytest.fixture(scope="module")
def rate_records(zeroflow_bin, data, tmp_path_factory):
    """WFDB records of the 3-minute recording at 250 Hz, and of a recording generated at 360 Hz."""
    folder = tmp_path_factory.mktemp("rates")
    wfdb_record(folder, "r250", data["x"], 250)
    ok(cli(zeroflow_bin, "generate", "--hours", 0.05, "--sample-rate", 360, "--seed", 4, "--out", folder / "g360.csv"))
    wfdb_record(folder, "r360", np.loadtxt(folder / "g360.csv", skiprows=1), 360)
    return folder


@pytest.mark.parametrize(
    "recordings, extra",
    [(["rec.csv", "r360.hea"], []), (["r250.hea", "r360.hea"], []), (["r360.hea", "rec.csv"], []),
     (["r250.hea", "rec.csv"], ["--sample-rate", "360"])],
)  # fmt: skip
def test_rule9_train_population_refuses_recordings_at_different_rates(zeroflow_bin, data, rate_records, tmp_path,
                                                                      recordings, extra):  # fmt: skip
    paths = [data["rec"] if r == "rec.csv" else rate_records / r for r in recordings]
    model = tmp_path / "m.safetensors"
    proc = population(zeroflow_bin, *paths, "--out", model, "--epochs", 1, "--batch", 64, *extra)
    if extra:  # --sample-rate 360 for a CSV beside a WFDB record of 250 Hz
        assert proc.returncode == 1, proc.stderr
    line = refused(proc, 1, "Hz")
    assert "250 Hz" in line and "360 Hz" in line, line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "rate",
    ["250.0000000001", "250.001"],
)  # fmt: skip
def test_rule9_train_population_applies_the_one_rate_rule(zeroflow_bin, data, rate_records, tmp_path, rate):
    model = tmp_path / "m.safetensors"
    proc = population(zeroflow_bin, rate_records / "r250.hea", data["rec"], "--sample-rate", rate, "--out", model,
                      "--epochs", 1, "--batch", 64)  # fmt: skip
    if rate == "250.001":  # different rates: refused, naming both
        line = refused(proc, 1)
        assert "250 Hz" in line and "250.001 Hz" in line, line
        assert not model.exists()
    else:  # the same rate: one population of both recordings
        ok(proc)
        assert "of 2 recordings" in proc.stderr
