"""Hostile numbers and hostile model files through the command line (and the Python model API).

Every refusal: exit code 1, exactly one `zeroflow: error:` line saying what is wrong, and no output
folder left behind. Counts and positions are checked against independent readings of the same
files (NumPy, wfdb-python); the model file's trailer against an FNV-1a written here from its
definition; a model with NaN weights is made with PyTorch itself."""

import csv
import json
import math
import os
import struct

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
    return out / "model.safetensors", out


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


def scores(folder):
    """Every beat's score column of a run's beats.csv."""
    with open(folder / "beats.csv", newline="") as f:
        return [row["score"] for row in csv.DictReader(f)]


def load_with_reference(path):
    """Metadata and tensors of a model file through PyPI's safetensors (the format's reference)."""
    pytest.importorskip("safetensors")
    import safetensors
    import safetensors.numpy

    with safetensors.safe_open(str(path), framework="numpy") as f:
        meta = f.metadata()
    return meta, safetensors.numpy.load_file(str(path))


def resealed(tensors, meta):
    """A model file written by the reference writer, its checksum recomputed (zeroflow._model_file)."""
    import safetensors.numpy

    from zeroflow import _model_file

    parts = {k: ("F32", tuple(v.shape), np.ascontiguousarray(v, dtype="<f4").tobytes()) for k, v in tensors.items()}
    meta = dict(meta, checksum=_model_file.checksum(meta, parts))
    return safetensors.numpy.save(tensors, metadata=meta)


def test_the_file_is_what_the_format_says(model):
    from zeroflow import _model_file

    meta, tensors = load_with_reference(model[0])
    assert meta["format"] == "zeroflow-model" and meta["format_version"] == "3" and meta["model"] == "lightvae"
    assert meta["rows.segmentation"] == "robust" and meta["epochs"] == "1"
    assert all(t.dtype == np.float32 for t in tensors.values()) and "restore.weight" in tensors
    parts = {k: ("F32", tuple(v.shape), v.tobytes()) for k, v in tensors.items()}
    assert meta["checksum"] == _model_file.checksum(meta, parts)


def damaged_files(data, rng):
    (header,) = struct.unpack("<Q", data[:8])
    yield "empty", b"", "is an empty file"
    yield "random", rng.integers(0, 256, 5000, dtype=np.uint8).tobytes(), "is not a zeroflow model file or is damaged"
    for cut in (1, 100, len(data) // 2, len(data) - 33, len(data) - 1):
        yield f"cut to {cut}", data[:cut], "is not a zeroflow model file or is damaged"
    # Flips in the weights, the header length and the metadata (a flip in the header's trailing
    # spaces can leave the content as it was: the checksum covers the content).
    weights = rng.integers(8 + header, len(data), 12).tolist()
    meta_value = data.index(b'"lightvae"') + 3
    for at in sorted(set(weights) | {0, 3, meta_value, len(data) - 1}):
        flipped = bytearray(data)
        flipped[at] ^= 0x10
        yield f"byte {at} flipped", bytes(flipped), "is not a zeroflow model file or is damaged"


def test_damaged_model_files_are_refused(zeroflow_bin, clean_csv, model, tmp_path):
    data = model[0].read_bytes()
    rng = np.random.default_rng(11)
    for k, (what, content, phrase) in enumerate(damaged_files(data, rng)):
        path = tmp_path / f"model{k}.safetensors"
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
        cli(zeroflow_bin, "score", clean_csv, "--model", raw / "model.safetensors", "--out", out),
        out,
        "normalisation none (this run: robust)",
        "--normalize none",
    )
    # The control: with its own settings the raw model scores.
    ok = cli(
        zeroflow_bin,
        "score",
        clean_csv,
        "--model",
        raw / "model.safetensors",
        "--out",
        tmp_path / "ok",
        "--normalize",
        "none",
    )
    assert ok.returncode == 0, ok.stderr


def test_a_model_with_nan_weights_is_refused(zeroflow_bin, clean_csv, model, tmp_path):
    meta, tensors = load_with_reference(model[0])
    poisoned = {k: v.copy() for k, v in tensors.items()}
    poisoned["conv3.weight"].reshape(-1)[5] = np.nan
    path = tmp_path / "nan.safetensors"
    path.write_bytes(resealed(poisoned, meta))
    out = tmp_path / "out"
    refused(
        cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", out),
        out,
        "holds 1 weight that is NaN or infinite",
    )
    # The control: the reference writer's file of the same weights without the NaN scores alike.
    path.write_bytes(resealed(tensors, meta))
    ok = cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", tmp_path / "ok")
    assert ok.returncode == 0, ok.stderr
    assert scores(tmp_path / "ok") == scores(model[1])
    # Another program's safetensors file (no zeroflow metadata) is refused in the user's terms.
    path.write_bytes(resealed(tensors, {}))
    refused(
        cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", tmp_path / "foreign"),
        tmp_path / "foreign",
        "not one zeroflow wrote",
    )


def test_a_rate_equal_to_1e9_is_the_same_rate_and_its_windows_are_checked(zeroflow_bin, clean_csv, model, tmp_path):
    # A rate 1 part in 10^10 off is the recording's rate (text round trips), so the windows in
    # samples must match it too: a model of other windows is refused, not scored with rows it never saw.
    meta, tensors = load_with_reference(model[0])
    rate = float(meta["rows.sample_rate"])
    path = tmp_path / "near.safetensors"
    path.write_bytes(resealed(tensors, dict(meta, **{"rows.sample_rate": repr(rate * (1 + 1e-10))})))
    ok = cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", tmp_path / "ok")
    assert ok.returncode == 0, ok.stderr
    window = int(meta["rows.window_before"])
    path.write_bytes(
        resealed(
            tensors,
            dict(meta, **{"rows.sample_rate": repr(rate * (1 + 1e-10)), "rows.window_before": str(window + 4)}),
        )
    )
    out = tmp_path / "windows"
    refused(cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", out), out, "beat window")


def test_a_model_whose_decoder_saturates_is_refused(zeroflow_bin, clean_csv, model, tmp_path):
    # The decoder's last bias at 1e19: every reconstruction error near 1e38, finite (float32 goes
    # to 3.4e38) and the same for every beat, so the scores rank nothing.
    meta, tensors = load_with_reference(model[0])
    saturated = {k: v.copy() for k, v in tensors.items()}
    saturated["conv5.bias"][:] = 1e19
    path = tmp_path / "saturated.safetensors"
    path.write_bytes(resealed(saturated, meta))
    out = tmp_path / "out"
    proc = cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", out)
    refused(proc, out, f"the model {path} scores", "beyond 1e+30 (a saturated decoder): its scores rank nothing")
    # A large but sane bias still scores.
    saturated["conv5.bias"][:] = 10.0
    path.write_bytes(resealed(saturated, meta))
    ok = cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", tmp_path / "ok")
    assert ok.returncode == 0, ok.stderr


# ---- the Python model API -------------------------------------------------------------------------------


def test_python_training_refuses_nan_rows():
    zf = pytest.importorskip("zeroflow")
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


def with_scaled_weights(path, factor):
    """The model file with every weight matrix (more than 16 floats) times `factor`, sealed again:
    a valid file of absurd weights."""
    meta, tensors = load_with_reference(path)
    scaled = {k: (v * np.float32(factor) if v.size > 16 else v) for k, v in tensors.items()}
    assert all(np.isfinite(v).all() for v in scaled.values())
    return resealed(scaled, meta)


def test_a_model_of_absurd_but_finite_weights_is_refused_before_anything_is_written(
    zeroflow_bin, clean_csv, model, tmp_path
):
    path = tmp_path / "huge.safetensors"
    path.write_bytes(with_scaled_weights(model[0], 1e30))
    out = tmp_path / "out"
    line = refused(cli(zeroflow_bin, "score", clean_csv, "--model", path, "--out", out), out, "not finite")
    assert str(path) in line and "train a new model" in line
