"""zeroflow.sklearn on GPU data (CuPy arrays and PyTorch CUDA tensors): fit and score where the data
lives, with no device-to-host copy of the data by zeroflow (its transfer ledger), results of the
input's library on the input's device, and the numbers of the CPU path (scikit-learn's
MinMaxScaler bit for bit; the same fitted model scored on the CPU; the full-batch autoencoder
trained on the CPU). Skips without a CUDA build of zeroflow, a GPU, or the library under test."""

import pickle

import numpy as np
import pytest
from sklearn.preprocessing import MinMaxScaler as SkMinMaxScaler

import zeroflow as zf
from zeroflow.sklearn import AutoEncoderOutlierDetector, MinMaxScaler, VAEOutlierDetector

pytestmark = pytest.mark.skipif(not zf.cuda_available(), reason="needs zeroflow built with CUDA, and a GPU")

ROWS, WIDTH, ODD = 3000, 64, (17, 1234, 2900)
# Device-to-host bytes zeroflow may move during a whole fit + score: a few scalars, far below one
# row of data (WIDTH floats) and the data (ROWS x WIDTH floats).
SCALARS_ONLY = 1024


def beats_like():
    """ROWS smooth rows of WIDTH samples (a bump whose height and place vary a little), three of
    them of another shape: float32, in [0, 1] after scaling."""
    rng = np.random.default_rng(3)
    t = np.linspace(0, 1, WIDTH)
    centre = 0.4 + 0.02 * rng.standard_normal((ROWS, 1))
    height = 1 + 0.05 * rng.standard_normal((ROWS, 1))
    x = height * np.exp(-(((t - centre) / 0.05) ** 2)) + 0.02 * rng.standard_normal((ROWS, WIDTH))
    for r in ODD:
        x[r] = -0.8 * np.exp(-(((t - 0.7) / 0.15) ** 2))
    return x.astype(np.float32)


def ledger_bytes():
    return zf._core._device_to_host_transfers()[1]


class Library:
    """One GPU array library: how to move arrays to the GPU and back, and what its arrays are."""

    def __init__(self, name):
        self.name = name
        if name == "cupy":
            self.cp = pytest.importorskip("cupy")
            if self.cp.cuda.runtime.getDeviceCount() < 1:
                pytest.skip("CuPy sees no GPU")
        else:
            self.torch = pytest.importorskip("torch")
            if not self.torch.cuda.is_available():
                pytest.skip("PyTorch has no CUDA")

    def to_gpu(self, x):
        return self.cp.asarray(x) if self.name == "cupy" else self.torch.from_numpy(x).cuda()

    def to_numpy(self, x):
        return self.cp.asnumpy(x) if self.name == "cupy" else x.detach().cpu().numpy()

    def assert_on_gpu_like(self, out, x):
        """`out` is this library's array on `x`'s GPU."""
        if self.name == "cupy":
            assert isinstance(out, self.cp.ndarray), type(out)
            assert out.device.id == x.device.id
        else:
            assert isinstance(out, self.torch.Tensor), type(out)
            assert out.is_cuda and out.device == x.device


@pytest.fixture(params=["cupy", "torch"])
def lib(request):
    return Library(request.param)


def cpu_copy(detector):
    """The same fitted detector with its model on the CPU (its weights as they are)."""
    clone = pickle.loads(pickle.dumps(detector))
    clone.model_ = type(detector)._model_from_bytes(type(detector)._model_to_bytes(detector.model_), "cpu")
    return clone


def test_min_max_scaler_runs_on_the_gpu(lib):
    X = beats_like()
    x = lib.to_gpu(X)
    before = ledger_bytes()
    scaler = MinMaxScaler().fit(x)
    y = scaler.transform(x)
    back = scaler.inverse_transform(y)
    assert ledger_bytes() - before <= SCALARS_ONLY, "zeroflow copied the data from the GPU"
    for out in (y, back, scaler.scale_, scaler.min_, scaler.data_min_):
        lib.assert_on_gpu_like(out, x)
    np.testing.assert_array_equal(lib.to_numpy(y), SkMinMaxScaler().fit_transform(X))
    np.testing.assert_allclose(lib.to_numpy(back), X, rtol=1e-5, atol=1e-6)


def test_vae_detector_fits_and_scores_on_the_gpu(lib):
    X = SkMinMaxScaler().fit_transform(beats_like()).astype(np.float32)
    x = lib.to_gpu(X)
    before = ledger_bytes()
    # 20 epochs: after only a few the VAE still reconstructs the odd shapes best (checked on the CPU).
    det = VAEOutlierDetector(epochs=20, batch_size=256, random_state=0).fit(x)
    scores = det.score_samples(x)
    labels = det.predict(x)
    assert ledger_bytes() - before <= SCALARS_ONLY, "zeroflow copied the data from the GPU"
    assert det.model_.device.startswith("cuda")
    lib.assert_on_gpu_like(scores, x)
    lib.assert_on_gpu_like(labels, x)
    # The CPU path scores the same model alike (the GPU's fused kernels round differently).
    on_cpu = cpu_copy(det)
    np.testing.assert_allclose(lib.to_numpy(scores), on_cpu.score_samples(X), rtol=1e-3, atol=1e-6)
    assert set(ODD) <= set(np.argsort(lib.to_numpy(scores))[:10])  # the odd shapes are among the lowest


def test_autoencoder_detector_fits_and_scores_on_the_gpu(lib):
    X = SkMinMaxScaler().fit_transform(beats_like()).astype(np.float32)
    x = lib.to_gpu(X)
    before = ledger_bytes()
    det = AutoEncoderOutlierDetector(epochs=50, random_state=0).fit(x)
    scores = det.score_samples(x)
    recon = det.reconstruct(x)
    assert ledger_bytes() - before <= SCALARS_ONLY, "zeroflow copied the data from the GPU"
    lib.assert_on_gpu_like(scores, x)
    lib.assert_on_gpu_like(recon, x)
    np.testing.assert_allclose(lib.to_numpy(scores), cpu_copy(det).score_samples(X), rtol=1e-5, atol=1e-7)
    # Full batch: the same seed trains the same model on the CPU, up to rounding: the GPU's and the
    # CPU's matrix products round differently, and 50 Adam steps carry that into the weights (the
    # same model scores alike on both, checked above to 1e-5).
    cpu = AutoEncoderOutlierDetector(epochs=50, random_state=0).fit(X)
    np.testing.assert_allclose(lib.to_numpy(scores), cpu.score_samples(X), rtol=5e-3, atol=1e-7)
