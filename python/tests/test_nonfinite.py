"""Hostile numbers and hostile model files through the command line (and the Python model API).

Every refusal: exit code 1, exactly one `zeroflow: error:` line saying what is wrong, and no output
folder left behind. Counts and positions are checked against independent readings of the same
files (NumPy, wfdb-python); the model file's trailer against an FNV-1a written here from its
definition; a model with NaN weights is made with PyTorch itself."""

import csv
import io
import json
import math
import os
import struct
import zlib

import numpy as np
import pytest
from conftest import run_cli

wfdb = pytest.importorskip("wfdb")


def error_lines(proc):
    return [line for line in proc.stderr.splitlines() if line.startswith("zeroflow: error:")]


def refused(proc, out, *phrases):
    """Exit 1, one error line holding every phrase, nothing written."""
    lines = error_lines(proc)
    assert proc.returncode == 1, proc.stderr
    assert len(lines) == 1, proc.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    assert not os.path.exists(out), sorted(os.listdir(out))
    return lines[0]


def cli(binary, *args):
    return run_cli(binary, *args, "--device", "cpu", check=False)


@pytest.fixture(scope="module")
def samples(zeroflow_bin, tmp_path_factory):
    """Three minutes of synthetic ECG at 250 Hz (mV), as NumPy float64."""
    path = tmp_path_factory.mktemp("nonfinite") / "clean.csv"
    run_cli(zeroflow_bin, "generate", "--hours", 0.05, "--seed", 9, "--out", path)
    return np.loadtxt(path, skiprows=1)


@pytest.fixture(scope="module")
def clean_csv(samples, tmp_path_factory):
    path = tmp_path_factory.mktemp("clean") / "ecg.csv"
    write_csv(path, samples)
    return path


@pytest.fixture(scope="module")
def model(zeroflow_bin, clean_csv, tmp_path_factory):
    """A model trained by `zeroflow run` on the clean recording, and that run's folder."""
    out = tmp_path_factory.mktemp("trained")
    run_cli(zeroflow_bin, "run", clean_csv, "--out", out, "--device", "cpu", "--epochs", 1)
    return out / "model.pt", out


def write_csv(path, values):
    with open(path, "w") as f:
        f.write("ecg\n")
        for v in values:
            f.write(f"{float(v)!r}\n")


def write_wfdb_by_hand(folder, name, digital, gain):
    """A WFDB record in format 16, its header written by hand (wfdb-python refuses odd gains)."""
    np.asarray(digital, dtype="<i2").tofile(os.path.join(folder, name + ".dat"))
    with open(os.path.join(folder, name + ".hea"), "w") as f:
        f.write(f"{name} 1 250 {len(digital)}\n{name}.dat 16 {gain}(0)/mV 16 0 0 0 0 ECG\n")
    return os.path.join(folder, name + ".hea")


# ---- non-finite recordings ------------------------------------------------------------------------


def test_a_3e38_sample_is_refused_with_its_position(zeroflow_bin, samples, tmp_path):
    x = samples.copy()
    x[[7000, 9000]] = [3e38, -1e31]  # valid float32, and no ECG
    write_csv(tmp_path / "spike.csv", x)
    read = np.loadtxt(tmp_path / "spike.csv", skiprows=1).astype(np.float32)
    bad = np.flatnonzero(~(np.abs(read) <= np.float32(1e30)))
    out = tmp_path / "out"
    refused(
        cli(zeroflow_bin, "run", tmp_path / "spike.csv", "--out", out),
        out,
        f"{len(bad)} samples are infinite or larger than 1e30 in magnitude (the first is sample {bad[0]},",
    )


def test_infinite_samples_are_refused(zeroflow_bin, samples, tmp_path):
    digital = np.round(samples * 200).astype(np.int16)
    hea = write_wfdb_by_hand(tmp_path, "tiny", digital, "1e-40")  # every non-zero sample overflows float32
    record = wfdb.rdrecord(str(tmp_path / "tiny"))
    with np.errstate(over="ignore"):
        physical = record.p_signal[:, 0].astype(np.float32)  # what a float32 reader holds
    bad = np.flatnonzero(~np.isfinite(physical) | (np.abs(physical) > 1e30))
    assert len(bad) > 0
    out = tmp_path / "out"
    refused(
        cli(zeroflow_bin, "run", hea, "--out", out),
        out,
        f"{len(bad)} samples are infinite or larger than 1e30 in magnitude (the first is sample {bad[0]},",
    )


def test_gaps_run_with_finite_losses_and_scores(zeroflow_bin, samples, tmp_path):
    x = samples.copy()
    x[5000:5250] = np.nan  # a second lost
    x[[100, 20000]] = np.nan
    wfdb.wrsamp(
        "gaps",
        fs=250,
        units=["mV"],
        sig_name=["ECG"],
        p_signal=x[:, None],
        fmt=["16"],
        adc_gain=[200],
        baseline=[0],
        write_dir=str(tmp_path),
    )
    missing = np.flatnonzero(np.isnan(wfdb.rdrecord(str(tmp_path / "gaps")).p_signal[:, 0]))
    assert len(missing) == 252

    out = tmp_path / "robust"
    proc = cli(zeroflow_bin, "run", tmp_path / "gaps.hea", "--out", out, "--epochs", 2)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["loss_per_epoch"]) == 2
    assert all(isinstance(v, float) and math.isfinite(v) for v in summary["loss_per_epoch"])
    assert isinstance(summary["test_loss"], float) and math.isfinite(summary["test_loss"])
    with open(out / "beats.csv", newline="") as f:
        scores = [float(r["score"]) for r in csv.DictReader(f)]
    assert len(scores) > 100 and all(math.isfinite(s) for s in scores)

    out = tmp_path / "seed"
    refused(
        cli(zeroflow_bin, "run", tmp_path / "gaps.hea", "--out", out, "--segmentation", "seed"),
        out,
        f"{len(missing)} samples are missing (NaN; the first is sample {missing[0]},",
        "--segmentation robust",
    )


# ---- model files --------------------------------------------------------------------------------------


def fnv1a(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def with_trailer(archive):
    """A LibTorch archive as a zeroflow model file: length, FNV-1a, format 2, magic."""
    return archive + struct.pack("<QQQ", len(archive), fnv1a(archive), 2) + b"ZEROFLOW"


def test_the_trailer_is_what_the_format_says(model):
    data = model[0].read_bytes()
    length, checksum, version = struct.unpack("<QQQ", data[-32:-8])
    assert data[-8:] == b"ZEROFLOW" and version == 2 and length == len(data) - 32
    assert checksum == fnv1a(data[:length])
    assert data[:4] == b"PK\x03\x04"  # the archive itself is LibTorch's zip


def damaged_files(data, rng):
    yield "empty", b"", "is an empty file"
    yield "random", rng.integers(0, 256, 5000, dtype=np.uint8).tobytes(), "is not a zeroflow model file or is damaged"
    for cut in (1, 100, len(data) // 2, len(data) - 33, len(data) - 1):
        yield f"cut to {cut}", data[:cut], "is not a zeroflow model file or is damaged"
    for at in sorted(set(rng.integers(0, len(data), 12).tolist()) | {0, len(data) // 2, len(data) - 40, len(data) - 1}):
        flipped = bytearray(data)
        flipped[at] ^= 0x10
        yield f"byte {at} flipped", bytes(flipped), "is not a zeroflow model file or is damaged"
    yield "bare archive", data[:-32], "from an older zeroflow or another program"


def test_damaged_model_files_are_refused(zeroflow_bin, clean_csv, model, tmp_path):
    data = model[0].read_bytes()
    rng = np.random.default_rng(11)
    for k, (what, content, phrase) in enumerate(damaged_files(data, rng)):
        path = tmp_path / f"model{k}.pt"
        path.write_bytes(content)
        out = tmp_path / f"out{k}"
        line = refused(cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", out), out, phrase)
        assert str(path) in line, (what, line)


def test_models_of_another_rate_or_normalisation_are_refused(zeroflow_bin, clean_csv, model, tmp_path):
    path = model[0]
    out = tmp_path / "rate"
    refused(
        cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", out, "--sample-rate", 256),
        out,
        "sample rate 250 Hz (this run: 256 Hz)",
    )
    out = tmp_path / "none"
    refused(
        cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", out, "--normalize", "none"),
        out,
        "normalisation robust (this run: none)",
        "--normalize robust",
    )
    # And the other way round: a model trained on raw samples, scoring robust rows.
    raw = tmp_path / "raw"
    run_cli(zeroflow_bin, "run", clean_csv, "--out", raw, "--device", "cpu", "--epochs", 1, "--normalize", "none")
    out = tmp_path / "robust"
    refused(
        cli(zeroflow_bin, "score", clean_csv, "--model", raw / "model.pt", "--out", out),
        out,
        "normalisation none (this run: robust)",
        "--normalize none",
    )
    # The control: with its own settings the raw model scores.
    ok = cli(
        zeroflow_bin, "score", clean_csv, "--model", raw / "model.pt", "--out", tmp_path / "ok", "--normalize", "none"
    )
    assert ok.returncode == 0, ok.stderr


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.jit: the format LibTorch's archives use
def test_a_model_with_nan_weights_is_refused(zeroflow_bin, clean_csv, model, tmp_path):
    torch = pytest.importorskip("torch")
    data = model[0].read_bytes()
    module = torch.jit.load(io.BytesIO(data[:-32]))
    with torch.no_grad():
        module.state_dict()["conv3.weight"].view(-1)[5] = float("nan")
    buffer = io.BytesIO()
    torch.jit.save(module, buffer)
    path = tmp_path / "nan.pt"
    path.write_bytes(with_trailer(buffer.getvalue()))
    out = tmp_path / "out"
    refused(
        cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", out),
        out,
        "holds 1 weight that is NaN or infinite",
    )
    # The control: the same round trip without the NaN loads and scores.
    module = torch.jit.load(io.BytesIO(data[:-32]))
    buffer = io.BytesIO()
    torch.jit.save(module, buffer)
    path.write_bytes(with_trailer(buffer.getvalue()))
    ok = cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", tmp_path / "ok")
    assert ok.returncode == 0, ok.stderr


# ---- the Python model API -------------------------------------------------------------------------------


def test_python_training_refuses_nan_rows():
    zf = pytest.importorskip("zeroflow")
    if not zf._core.has_torch:
        pytest.skip("zeroflow without LibTorch")
    rng = np.random.default_rng(2)
    rows = rng.standard_normal((200, 32)).astype(np.float32)
    rows[17, 3] = np.nan
    model = zf.model.VAE(32)
    with pytest.raises(
        ValueError, match=r"rows hold 1 value that is NaN or infinite \(the first in row 17, column 3\)"
    ):
        model.train(rows, epochs=1, batch=64)
    with pytest.raises(ValueError, match="NaN or infinite"):
        model.score(rows)
    rows[17, 3] = 0
    rows = rows * np.float32(1e19)  # finite, but their squares are not
    with pytest.raises(RuntimeError, match="training diverged at epoch 1 of 2"):
        model.train(rows, epochs=2, batch=64)


def with_scaled_weights(data, factor):
    """The model file with every weight matrix (tensor storages over 64 bytes, float32) times
    `factor`, the zip's CRCs and zeroflow's trailer made right again: a valid file of absurd weights."""
    length = struct.unpack("<Q", data[-32:-24])[0]
    archive = bytearray(data[:length])
    end = archive.rfind(b"PK\x05\x06")
    entries, at = (
        struct.unpack("<H", archive[end + 10 : end + 12])[0],
        struct.unpack("<I", archive[end + 16 : end + 20])[0],
    )
    for _ in range(entries):
        assert archive[at : at + 4] == b"PK\x01\x02"
        size = struct.unpack("<I", archive[at + 24 : at + 28])[0]
        name_length, extra_length, comment_length = struct.unpack("<HHH", archive[at + 28 : at + 34])
        local = struct.unpack("<I", archive[at + 42 : at + 46])[0]
        name = bytes(archive[at + 46 : at + 46 + name_length]).decode()
        if "/data/" in name and size > 64 and size % 4 == 0:
            local_name, local_extra = struct.unpack("<HH", archive[local + 26 : local + 30])
            begin = local + 30 + local_name + local_extra
            weights = np.frombuffer(bytes(archive[begin : begin + size]), dtype="<f4") * np.float32(factor)
            assert np.isfinite(weights).all()
            archive[begin : begin + size] = weights.astype("<f4").tobytes()
            crc = struct.pack("<I", zlib.crc32(archive[begin : begin + size]))
            archive[local + 14 : local + 18] = crc
            archive[at + 16 : at + 20] = crc
        at += 46 + name_length + extra_length + comment_length
    return with_trailer(bytes(archive))


def test_a_model_of_absurd_but_finite_weights_is_refused_before_anything_is_written(
    zeroflow_bin, clean_csv, model, tmp_path
):
    path = tmp_path / "huge.pt"
    path.write_bytes(with_scaled_weights(model[0].read_bytes(), 1e30))
    out = tmp_path / "out"
    line = refused(cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", out), out, "not finite")
    assert str(path) in line and "train a new model" in line
