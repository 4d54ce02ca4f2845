"""`zeroflow run --model` and `zeroflow score` with either model, against independent references:
the MLP autoencoder's scores re-computed in NumPy from the weights in its model file (read with
PyPI's safetensors) and the scaling re-computed with scikit-learn; a LightVAE trained and saved from Python
scored by the CLI as Python scores it."""

import csv
import json

import numpy as np
import pytest
from conftest import run_cli, score_on_cpu
from sklearn.preprocessing import MinMaxScaler as SkMinMaxScaler

import zeroflow as zf

pytest.importorskip("safetensors")
import safetensors  # noqa: E402
import safetensors.numpy  # noqa: E402


def scores_of(folder):
    """The score of every kept beat, in beat order (the rows' order)."""
    with open(folder / "beats.csv", newline="") as f:
        return np.array([float(r["score"]) for r in csv.DictReader(f) if r["kept"] == "1"])


def error_line(proc):
    """The one error line of a failed command (progress lines come before it)."""
    errors = [line for line in proc.stderr.splitlines() if line.startswith("zeroflow: error")]
    assert len(errors) == 1 and proc.stderr.endswith(errors[0] + "\n"), proc.stderr
    return errors[0]


def seed_rows(recording):
    """The seed method's rows of the recording, as `zeroflow run --segmentation seed` makes them."""
    signal = np.loadtxt(recording, skiprows=1, dtype=np.float32)
    return np.from_dlpack(zf.signal.segment_beats(signal, sample_rate=250.0, method="seed").beats.rows)


def read_mlp_file(path):
    """The MLP model file through PyPI's safetensors (the format's reference reader): weights as
    float64 arrays, and the metadata."""
    weights = safetensors.numpy.load_file(str(path))
    with safetensors.safe_open(str(path), framework="numpy") as f:
        meta = f.metadata()
    return {k: v.astype(np.float64) for k, v in weights.items()}, meta


@pytest.fixture(scope="module")
def mlp_run(zeroflow_bin, short_recording, tmp_path_factory):
    out = tmp_path_factory.mktemp("mlp")
    proc = run_cli(
        zeroflow_bin,
        "run",
        short_recording,
        "--model",
        "mlp",
        "--segmentation",
        "seed",
        "--epochs",
        30,
        "--device",
        "cpu",
        "--out",
        out,
    )
    return out, proc


def test_mlp_scores_are_a_numpy_forward_pass_of_the_saved_weights(mlp_run, short_recording):
    out, proc = mlp_run
    weights, meta = read_mlp_file(out / "model.safetensors")
    assert meta["model"] == "mlp" and meta["epochs"] == "30" and meta["format"] == "zeroflow-model"
    assert meta["rows.segmentation"] == "gate-to-gate" and float(meta["rows.sample_rate"]) == 250
    rows = seed_rows(short_recording)
    scaler = SkMinMaxScaler().fit(rows)  # the seed-004 notebook's preprocessing, per sample position
    np.testing.assert_allclose(weights["scale"], scaler.scale_, rtol=1e-6)
    np.testing.assert_allclose(weights["offset"], scaler.min_, rtol=1e-6, atol=1e-7)

    x = scaler.transform(rows).astype(np.float64)
    h = x
    for name in ("first_layer_encoder", "second_layer_encoder", "first_layer_decoder"):
        h = np.maximum(0.0, h @ weights[name + ".weight"].T + weights[name + ".bias"])
    y = 1.0 / (1.0 + np.exp(-(h @ weights["second_layer_decoder.weight"].T + weights["second_layer_decoder.bias"])))
    want = ((y - x) ** 2).mean(axis=1)
    np.testing.assert_allclose(scores_of(out), want, rtol=1e-5, atol=1e-9)

    summary = json.loads((out / "summary.json").read_text())
    assert summary["parameters"]["epochs"] == 30 and summary["parameters"]["batch"] == 0  # full batch
    assert len(summary["loss_per_epoch"]) == 30 and summary["loss_per_epoch"][-1] < summary["loss_per_epoch"][0]
    assert "epoch 30/30" in proc.stderr


def test_summary_says_which_model_scored(mlp_run, short_run):
    out, _ = mlp_run
    weights, _ = read_mlp_file(out / "model.safetensors")
    model = json.loads((out / "summary.json").read_text())["model"]
    assert model["name"] == "mlp"
    assert model["parameters"] == sum(w.size for k, w in weights.items() if "layer" in k)
    assert "min-max" in model["input_scaling"]
    assert json.loads((short_run[0] / "summary.json").read_text())["model"]["name"] == "lightvae"


def test_score_takes_the_mlp_model_file(zeroflow_bin, mlp_run, short_recording, tmp_path):
    out, _ = mlp_run
    score_on_cpu(zeroflow_bin, short_recording, out / "model.safetensors", tmp_path, "--segmentation", "seed")
    np.testing.assert_array_equal(scores_of(tmp_path), scores_of(out))
    # ... and refuses it for rows made another way, in one line.
    proc = score_on_cpu(zeroflow_bin, short_recording, out / "model.safetensors", tmp_path / "robust", check=False)
    assert proc.returncode == 1
    assert "segmentation gate-to-gate (this run: robust)" in error_line(proc)


@pytest.mark.parametrize(
    "name, needle",
    [
        ("monai", 'VAEOutlierDetector(model="monai")'),
        ("model.safetensors", "a saved model scores with --model model.safetensors (zeroflow score)"),
        ("vae", "expected lightvae or mlp"),
    ],
)
def test_run_refuses_models_it_cannot_train(zeroflow_bin, short_recording, tmp_path, name, needle):
    proc = run_cli(zeroflow_bin, "run", short_recording, "--model", name, "--out", tmp_path / "out", check=False)
    assert proc.returncode == 2
    assert needle in error_line(proc)
    assert not (tmp_path / "out").exists()


def test_a_vae_saved_from_python_is_scored_by_the_cli(zeroflow_bin, short_recording, tmp_path):
    rows = seed_rows(short_recording)
    vae = zf.model.VAE(rows.shape[1], seed=3)
    vae.train(rows, epochs=2, seed=3)
    plain = tmp_path / "plain.pt"
    vae.save(plain)  # rows not described: the CLI cannot know what the model is for
    proc = score_on_cpu(
        zeroflow_bin, short_recording, plain, tmp_path / "refused", "--segmentation", "seed", check=False
    )
    assert proc.returncode == 1 and "VAE.describe_rows" in error_line(proc)

    with pytest.raises(ValueError, match="samples wide"):
        vae.describe_rows(360.0, method="seed")  # 360 Hz rows are 512 wide, the model's 256
    vae.describe_rows(250.0, method="seed")
    assert vae.described_rows == {
        "sample_rate": 250.0,
        "segmentation": "gate-to-gate",
        "normalized": True,
        "window_before": 0,
        "window_after": 0,
        "min_length": 100,
        "max_length": 256,
    }
    described = tmp_path / "described.pt"
    vae.save(described)
    assert zf.model.VAE.load(described).described_rows == vae.described_rows
    score_on_cpu(zeroflow_bin, short_recording, described, tmp_path / "scored", "--segmentation", "seed")
    want = np.from_dlpack(vae.score(rows).score)
    np.testing.assert_allclose(scores_of(tmp_path / "scored"), want, rtol=1e-6)
