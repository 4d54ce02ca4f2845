"""The MLP autoencoder's bytes (pickles, MLPAutoencoder.save) are a safetensors file: PyPI's
`safetensors` reads them, and a NumPy forward pass over the weights it reads gives the model's
scores. On a GPU the model trains on zeroflow's own kernels and its bytes are the same format."""

import numpy as np
import pytest

import zeroflow as zf

safetensors_numpy = pytest.importorskip("safetensors.numpy")


def rows(n=600, seed=0):
    t = np.linspace(0, 20, n, dtype=np.float32)
    noise = np.random.default_rng(seed).normal(0, 0.02, n).astype(np.float32)
    return (0.5 + 0.4 * np.sin(t) + noise).reshape(n, 1)


def numpy_scores(weights, x):
    """The network of the seed notebook, in float64 over the stored float32 weights."""
    relu = lambda v: np.maximum(v, 0.0)  # noqa: E731
    layer = lambda name, h: h @ weights[f"{name}.weight"].astype(np.float64).T + weights[f"{name}.bias"]  # noqa: E731
    h = relu(layer("first_layer_encoder", x.astype(np.float64)))
    h = relu(layer("second_layer_encoder", h))
    h = relu(layer("first_layer_decoder", h))
    y = 1.0 / (1.0 + np.exp(-layer("second_layer_decoder", h)))
    return np.mean((y - x) ** 2, axis=1)


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_the_bytes_are_safetensors_that_numpy_scores_alike(device):
    if device == "cuda" and not (zf.has_cuda and zf.cuda_available()):
        pytest.skip("no GPU")
    model = zf.model.MLPAutoencoder(seed=3, device=device)
    x = rows()
    model.train(x, epochs=15)
    weights = safetensors_numpy.load(model.to_bytes())
    assert sorted(weights) == sorted(
        f"{layer}.{kind}"
        for layer in ("first_layer_encoder", "second_layer_encoder", "first_layer_decoder", "second_layer_decoder")
        for kind in ("weight", "bias")
    )
    assert weights["first_layer_encoder.weight"].shape == (32, 1)
    assert weights["second_layer_decoder.bias"].dtype == np.float32
    ours = np.asarray(model.score(x))  # host rows: scores on the host
    np.testing.assert_allclose(ours, numpy_scores(weights, x), rtol=1e-5, atol=1e-9)
    # and the bytes make the same model again, on either device
    again = zf.model.MLPAutoencoder.from_bytes(model.to_bytes(), device="cpu")
    np.testing.assert_allclose(np.asarray(again.score(x)), ours, rtol=1e-5, atol=1e-9)


def test_changed_bytes_are_refused():
    data = bytearray(zf.model.MLPAutoencoder(seed=1).to_bytes())
    data[-2] ^= 0x01
    with pytest.raises(zf.Error, match="checksum"):
        zf.model.MLPAutoencoder.from_bytes(bytes(data), what="the pickled model")
