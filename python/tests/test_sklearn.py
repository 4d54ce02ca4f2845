"""zeroflow.sklearn: scikit-learn's own estimator checks, the MinMaxScaler against scikit-learn's
(bit for bit), the autoencoder against the seed-004 notebook's PyTorch code, the detectors'
offset and predictions against NumPy re-computations, clone / pickle / joblib, Pipeline and
GridSearchCV, and NumPy, PyTorch, JAX, pandas and pyarrow inputs (each result in the input's
library, no copy of the input)."""

import importlib.util
import pickle
import warnings

import joblib
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from sklearn.base import clone
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler as SkMinMaxScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import zeroflow as zf
from zeroflow.sklearn import (
    AutoEncoderOutlierDetector,
    BeatSegmenter,
    MinMaxScaler,
    VAEOutlierDetector,
    expected_failed_checks,
)

torch = pytest.importorskip("torch")

# The checks' random matrices (10 to 300 rows) are recordings of 1 to 30 s at 10 Hz: long enough
# for the beat detector's windows, which at 250 Hz would not fit in them. Epochs are few: the
# checks test the API, not the models.
CHECKED = [MinMaxScaler(), MinMaxScaler(feature_range=(-1, 2), clip=True), BeatSegmenter(sample_rate=10)]
CHECKED += [VAEOutlierDetector(epochs=2, random_state=0), AutoEncoderOutlierDetector(epochs=5, random_state=0)]
HAS_MONAI = importlib.util.find_spec("monai") is not None
if HAS_MONAI:
    CHECKED += [VAEOutlierDetector(model="monai", epochs=2, random_state=0)]
needs_monai = pytest.mark.skipif(not HAS_MONAI, reason="MONAI (optional) is not installed")


@parametrize_with_checks(CHECKED, expected_failed_checks=expected_failed_checks, xfail_strict=True)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def series(n=3000, seed=0, spikes=()):
    """An hourly consumption-like series: daily and weekly cycles, noise, and spikes (float32 column)."""
    t = np.arange(n)
    rng = np.random.default_rng(seed)
    x = 300 + 80 * np.sin(2 * np.pi * t / 24) + 40 * np.sin(2 * np.pi * t / 168) + rng.normal(0, 8, n)
    x[list(spikes)] += 400
    return x.astype(np.float32).reshape(-1, 1)


def ecg(seconds=600, anomaly_rate=0.05, seed=3):
    r = zf.synth.generate_ecg(seconds / 3600, anomaly_rate=anomaly_rate, seed=seed)
    return np.asarray(r.signal), np.asarray(r.r_peaks), np.asarray(r.labels)


# ---- MinMaxScaler --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("feature_range,clip", [((0, 1), False), ((-3, 0.5), True)])
def test_min_max_scaler_is_scikit_learns_bit_for_bit(dtype, feature_range, clip):
    rng = np.random.default_rng(4)
    X = (rng.normal(5, 30, size=(5000, 7)) * rng.uniform(0.01, 100, size=7)).astype(dtype)
    X[rng.random(X.shape) < 0.02] = np.nan
    X[:, 3] = 2.5  # a constant column
    X_new = (X[:700] * 1.7 - 3).astype(dtype)  # values beyond the fitted range, for clip
    ours = MinMaxScaler(feature_range=feature_range, clip=clip).fit(X)
    ref = SkMinMaxScaler(feature_range=feature_range, clip=clip).fit(X)
    for name in ("data_min_", "data_max_", "data_range_", "scale_", "min_"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(ref, name), err_msg=name)
        assert getattr(ours, name).dtype == dtype
    for data in (X, X_new):
        got, want = ours.transform(data), ref.transform(data)
        assert got.dtype == dtype and got.shape == data.shape
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(ours.inverse_transform(got), ref.inverse_transform(want))


def test_min_max_scaler_strided_and_fortran_input_is_read_in_place():
    X = np.asfortranarray(np.random.default_rng(1).normal(size=(400, 5)).astype(np.float32))
    view = X[::3, 1:4]
    with warnings.catch_warnings():
        warnings.simplefilter("error", zf.CopyWarning)
        got = MinMaxScaler().fit_transform(view)
    np.testing.assert_array_equal(got, SkMinMaxScaler().fit_transform(view))


def test_min_max_scaler_columns_from_pandas_and_pyarrow():
    x = series()[:, 0]
    want = SkMinMaxScaler().fit_transform(x.reshape(-1, 1))
    for column in (pd.Series(x, name="consumption"), pa.array(x), pa.chunked_array([x])):
        with warnings.catch_warnings():
            warnings.simplefilter("error", zf.CopyWarning)  # a chunk of one Arrow column is read in place
            got = MinMaxScaler().fit_transform(column)
        assert isinstance(got, np.ndarray) and got.shape == (len(x), 1)
        np.testing.assert_array_equal(got, want)


def test_min_max_scaler_pandas_output():
    df = pd.DataFrame({"a": np.arange(10.0), "b": np.linspace(-1, 1, 10)}, index=np.arange(100, 110))
    out = MinMaxScaler().set_output(transform="pandas").fit_transform(df)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["a", "b"] and list(out.index) == list(df.index)
    np.testing.assert_array_equal(out.to_numpy(), SkMinMaxScaler().fit_transform(df))


def test_min_max_scaler_refusals():
    with pytest.raises(ValueError, match="Minimum of desired feature range"):
        MinMaxScaler(feature_range=(2, 1)).fit(np.ones((3, 1)))
    s = MinMaxScaler().fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="X has 3 features"):
        s.transform(torch.ones(4, 3))
    with pytest.raises(ValueError, match="2D"):
        s.transform(torch.ones(4))


# ---- inputs from other libraries -----------------------------------------------------------


def test_torch_cpu_input_gives_torch_output_and_the_numpy_results():
    X = series(800, spikes=(100, 500))
    t = torch.from_numpy(X.copy())
    a = MinMaxScaler().fit(X)
    b = MinMaxScaler().fit(t)
    assert isinstance(b.scale_, torch.Tensor)
    y = b.transform(t)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float32 and y.device.type == "cpu"
    np.testing.assert_array_equal(y.numpy(), a.transform(X))
    np.testing.assert_array_equal(b.inverse_transform(y).numpy(), a.inverse_transform(a.transform(X)))
    scaled = a.transform(X)
    for est in (
        AutoEncoderOutlierDetector(epochs=20, random_state=1),
        VAEOutlierDetector(epochs=3, random_state=1),
    ):
        p = clone(est).fit(scaled)
        q = clone(est).fit(torch.from_numpy(scaled))
        s = q.score_samples(torch.from_numpy(scaled))
        assert isinstance(s, torch.Tensor)
        np.testing.assert_allclose(s.numpy(), p.score_samples(scaled), rtol=1e-6)
        assert q.offset_ == pytest.approx(p.offset_, rel=1e-6)
        pred = q.predict(torch.from_numpy(scaled))
        assert isinstance(pred, torch.Tensor)
        np.testing.assert_array_equal(pred.numpy(), p.predict(scaled))


def test_torch_input_is_not_copied():
    t = torch.from_numpy(series(500))
    with warnings.catch_warnings():
        warnings.simplefilter("error", zf.CopyWarning)
        MinMaxScaler().fit(t).transform(t)
        AutoEncoderOutlierDetector(epochs=2, random_state=0).fit(t).score_samples(t)


def test_jax_input_gives_jax_output():
    jnp = pytest.importorskip("jax.numpy")
    X = series(300)
    y = MinMaxScaler().fit(jnp.asarray(X)).transform(jnp.asarray(X))
    assert type(y).__module__.startswith("jax")
    np.testing.assert_array_equal(np.asarray(y), SkMinMaxScaler().fit_transform(X))


@pytest.mark.skipif(
    not (zf.cuda_available() and torch.cuda.is_available()),
    reason="needs a CUDA build of zeroflow, a GPU and PyTorch with CUDA",
)
def test_cuda_tensor_stays_on_the_gpu():
    X = torch.from_numpy(series(20000, spikes=(5000,))).cuda()
    copies, bytes_before, _ = zf._core._device_to_host_transfers()
    scaled = MinMaxScaler().fit_transform(X)
    det = VAEOutlierDetector(epochs=3, random_state=0).fit(scaled)
    s = det.score_samples(scaled)
    ae = AutoEncoderOutlierDetector(epochs=10, random_state=0).fit(scaled)
    s2 = ae.score_samples(scaled)
    _, bytes_after, largest = zf._core._device_to_host_transfers()
    assert scaled.is_cuda and s.is_cuda and s2.is_cuda
    assert bytes_after - bytes_before <= 1024, "zeroflow copied data from the GPU"  # scalars at most
    np.testing.assert_array_equal(scaled.cpu().numpy(), SkMinMaxScaler().fit_transform(X.cpu().numpy()))
    assert int(torch.argmin(s)) == 5000 and int(torch.argmin(s2)) == 5000  # the spike
    # the autoencoder trains full-batch, so the GPU follows the CPU (fused Adam: other rounding)
    cpu = AutoEncoderOutlierDetector(epochs=10, random_state=0).fit(scaled.cpu().numpy())
    np.testing.assert_allclose(s2.cpu().numpy(), cpu.score_samples(scaled.cpu().numpy()), rtol=1e-3, atol=1e-7)


# ---- the autoencoder against the seed-004 notebook --------------------------------------------


class NotebookEncoder(torch.nn.Module):
    """The seed-004 notebook's Encoder, as the notebook writes it."""

    def __init__(self, input_size, hidden_size, dimension=32):
        super().__init__()
        self.first_layer_encoder = torch.nn.Linear(input_size, hidden_size)
        self.second_layer_encoder = torch.nn.Linear(hidden_size, dimension)
        self.first_layer_decoder = torch.nn.Linear(dimension, hidden_size)
        self.second_layer_decoder = torch.nn.Linear(hidden_size, input_size)

    def forward(self, x):
        output = torch.nn.functional.relu(self.first_layer_encoder(x))
        output = torch.nn.functional.relu(self.second_layer_encoder(output))
        decode = torch.nn.functional.relu(self.first_layer_decoder(output))
        return torch.sigmoid(self.second_layer_decoder(decode)), output


def test_autoencoder_is_the_notebooks_model_and_training():
    X = SkMinMaxScaler().fit_transform(series(2000, spikes=(700,))).astype(np.float32)
    est = AutoEncoderOutlierDetector(epochs=100, random_state=5).fit(X)
    torch.manual_seed(est.seed_)
    model = NotebookEncoder(1, hidden_size=32, dimension=32)
    opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-5)
    x = torch.from_numpy(X)
    losses = []
    for _ in range(100):
        output, _ = model(x)
        loss = torch.nn.MSELoss()(output, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    np.testing.assert_allclose(est.loss_curve_, losses, rtol=1e-4)
    with torch.no_grad():
        want = ((model(x)[0] - x) ** 2).mean(1).double().numpy()
    np.testing.assert_allclose(-est.score_samples(X), want, rtol=1e-3, atol=1e-7)
    np.testing.assert_allclose(est.reconstruct(X), model(x)[0].detach().numpy(), rtol=1e-4, atol=1e-6)
    assert np.argmin(est.score_samples(X)) == 700  # the spike reconstructs worst


@pytest.mark.parametrize(
    "make",
    [
        lambda: AutoEncoderOutlierDetector(epochs=30, random_state=2),
        lambda: VAEOutlierDetector(epochs=3, random_state=2),
    ],
)
def test_offset_and_predictions(make):
    X = SkMinMaxScaler().fit_transform(series(1000, spikes=(10, 400, 950))).astype(np.float32)
    auto = make().fit(X)
    s = auto.score_samples(X)
    q1, q3 = np.quantile(s, [0.25, 0.75])
    assert auto.offset_ == pytest.approx(q1 - 1.5 * (q3 - q1), rel=1e-12)  # Tukey's fence
    np.testing.assert_array_equal(auto.decision_function(X), s - auto.offset_)
    np.testing.assert_array_equal(auto.predict(X), np.where(s - auto.offset_ < 0, -1, 1))
    est = make().set_params(contamination=0.05).fit(X)
    s = est.score_samples(X)
    assert est.offset_ == pytest.approx(np.quantile(s, 0.05), rel=1e-12)
    assert (est.predict(X) == -1).sum() == 50
    with pytest.raises(ValueError, match="contamination"):
        make().set_params(contamination=0.7).fit(X)


# ---- clone, pickle, joblib ------------------------------------------------------------------


def fitted_estimators():
    X = SkMinMaxScaler().fit_transform(series(600)).astype(np.float32)
    signal, _, _ = ecg(120)
    out = [
        (MinMaxScaler(feature_range=(-1, 1)).fit(series(600)), series(600), "transform"),
        (BeatSegmenter().fit(signal), signal, "transform"),
    ]
    out += [
        (AutoEncoderOutlierDetector(epochs=10, random_state=0).fit(X), X, "score_samples"),
        (
            VAEOutlierDetector(epochs=2, random_state=0).fit(np.repeat(X, 16, axis=1)),
            np.repeat(X, 16, axis=1),
            "score_samples",
        ),
    ]
    return out


@pytest.mark.parametrize("index", range(4))
def test_clone_pickle_and_joblib_round_trips(index, tmp_path):
    cases = fitted_estimators()
    if index >= len(cases):
        pytest.skip("zeroflow built without LibTorch")
    est, X, method = cases[index]
    want = getattr(est, method)(X)
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(getattr(copy, method)(X), want)
    joblib.dump(est, tmp_path / "est.joblib")
    np.testing.assert_array_equal(getattr(joblib.load(tmp_path / "est.joblib"), method)(X), want)
    fresh = clone(est)
    assert fresh.get_params() == est.get_params()
    assert not any(k.endswith("_") and not k.startswith("_") for k in vars(fresh))


def test_a_damaged_pickle_is_refused():
    est = AutoEncoderOutlierDetector(epochs=2, random_state=0).fit(series(100))
    state = est.__getstate__()
    state["_model_bytes"] = state["_model_bytes"][: len(state["_model_bytes"]) // 2]
    with pytest.raises(zf.Error, match="the pickled AutoEncoderOutlierDetector cannot be read"):
        AutoEncoderOutlierDetector().__setstate__(state)


# ---- pipelines -------------------------------------------------------------------------------


def test_pipeline_and_grid_search_on_the_seed_004_task():
    spikes = (150, 900, 1400, 2100, 2700)
    X = series(3000, seed=2, spikes=spikes)
    y = np.zeros(len(X), dtype=int)
    y[list(spikes)] = 1

    def auroc(estimator, X, y):
        return roc_auc_score(y, -estimator.score_samples(X))

    pipe = make_pipeline(MinMaxScaler(), AutoEncoderOutlierDetector(epochs=40, random_state=0))
    search = GridSearchCV(pipe, {"autoencoderoutlierdetector__hidden": [8, 32]}, scoring=auroc, cv=2).fit(X, y)
    assert search.best_params_["autoencoderoutlierdetector__hidden"] in (8, 32)
    assert search.best_score_ > 0.95
    flagged = np.flatnonzero(search.best_estimator_.predict(X) == -1)
    assert set(spikes) <= set(flagged)


def test_beats_pipeline_ranks_ventricular_beats_first():
    signal, r_peaks, labels = ecg(900, anomaly_rate=0.05)
    segmenter = BeatSegmenter().set_output(transform="pandas")
    beats = segmenter.fit_transform(signal)
    assert isinstance(beats, pd.DataFrame) and beats.index.name == "peak"
    assert beats.shape[1] == segmenter.row_width_ == len(segmenter.get_feature_names_out())
    # each detected beat's label: the labelled beat within 150 ms of its peak
    nearest = np.searchsorted(r_peaks, beats.index.to_numpy())
    nearest = np.clip(nearest, 1, len(r_peaks) - 1)
    left = np.abs(r_peaks[nearest - 1] - beats.index.to_numpy()) < np.abs(r_peaks[nearest] - beats.index.to_numpy())
    nearest = np.where(left, nearest - 1, nearest)
    assert np.all(np.abs(r_peaks[nearest] - beats.index.to_numpy()) <= 0.15 * 250)
    is_pvc = labels[nearest] == ord("V")
    pipe = make_pipeline(BeatSegmenter(), VAEOutlierDetector(epochs=15, random_state=0)).fit(signal)
    scores = pipe.score_samples(signal)
    assert len(scores) == len(beats)
    assert roc_auc_score(is_pvc, -scores) > 0.9


def test_beat_segmenter_is_segment_beats_with_the_clis_parameters():
    signal, _, _ = ecg(120)
    want = np.asarray(zf.segment_beats(signal, method="robust").beats.rows)
    np.testing.assert_array_equal(BeatSegmenter().fit_transform(signal), want)
    leads = np.stack([np.zeros_like(signal), signal], axis=1)
    np.testing.assert_array_equal(BeatSegmenter(lead=1).fit_transform(leads), want)
    df = pd.DataFrame({"V5": np.zeros_like(signal), "MLII": signal})
    np.testing.assert_array_equal(BeatSegmenter(lead="MLII").fit_transform(df), want)
    seed = np.asarray(zf.segment_beats(signal, method="seed").beats.rows)
    np.testing.assert_array_equal(BeatSegmenter(method="seed").fit_transform(signal), seed)
    out = BeatSegmenter().fit(signal).transform(torch.from_numpy(signal))
    assert isinstance(out, torch.Tensor)
    np.testing.assert_array_equal(out.numpy(), want)
    with pytest.raises(ValueError, match="method"):
        BeatSegmenter(method="fast").fit(signal)
    with pytest.raises(ValueError, match="lead"):
        BeatSegmenter(lead=2).fit(leads)
    with pytest.raises(ValueError, match="n_samples=10"):
        BeatSegmenter().fit(signal[:10])


# ---- MONAI's VarAutoEncoder ------------------------------------------------------------------


@needs_monai
def test_monai_model_scores_beats_and_round_trips(tmp_path):
    signal, r_peaks, labels = ecg(900, anomaly_rate=0.05)
    segmenter = BeatSegmenter().set_output(transform="pandas")
    beats = segmenter.fit_transform(signal)
    peaks = beats.index.to_numpy()
    nearest = np.abs(r_peaks[None, :] - peaks[:, None]).argmin(1)
    is_pvc = labels[nearest] == ord("V")
    rows = beats.to_numpy()
    det = VAEOutlierDetector(model="monai", epochs=15, random_state=0).fit(rows)
    assert type(det.model_).__name__ == "MonaiVAE"
    assert det.loss_curve_[-1] < det.loss_curve_[0]
    s = det.score_samples(rows)
    assert roc_auc_score(is_pvc, -s) > 0.9
    t = torch.from_numpy(rows)
    st = det.score_samples(t)
    assert isinstance(st, torch.Tensor)
    np.testing.assert_allclose(st.numpy(), s, rtol=1e-6)
    copy = pickle.loads(pickle.dumps(det))
    np.testing.assert_array_equal(copy.score_samples(rows), s)
    joblib.dump(det, tmp_path / "monai.joblib")
    np.testing.assert_array_equal(joblib.load(tmp_path / "monai.joblib").score_samples(rows), s)


def test_unknown_vae_model_is_refused():
    with pytest.raises(ValueError, match="model must be 'light'"):
        VAEOutlierDetector(model="beta").fit(np.ones((20, 16), np.float32))
