"""scikit-learn estimators that run on zeroflow, for whatever array the caller has.

* :class:`BeatSegmenter` -- a transformer from an ECG signal to its beat matrix (one row per beat),
  with the parameters of ``zeroflow run``.
* :class:`MinMaxScaler` -- scikit-learn's ``MinMaxScaler`` (the same numbers, bit for bit) computed
  on the device where the data lives.
* :class:`VAEOutlierDetector` -- the seed's LightVAE as an outlier detector.
* :class:`AutoEncoderOutlierDetector` -- the seed-004 MLP autoencoder as an outlier detector.

The detectors follow :class:`sklearn.ensemble.IsolationForest`: ``score_samples`` is higher for
more normal rows (minus the reconstruction error), ``decision_function`` is ``score_samples -
offset_``, ``predict`` gives +1 for inliers and -1 for outliers, and ``contamination`` sets
``offset_``: a float is the share of training rows that fall below it; ``"auto"`` is Tukey's
fence, ``Q1 - 1.5 IQR`` of the training scores (a row is an outlier when its reconstruction
error lies above ``Q3 + 1.5 IQR`` of the training errors, the box plot's rule).

Inputs may be NumPy arrays (and anything scikit-learn accepts: lists, pandas DataFrames), PyTorch
tensors, CuPy arrays or JAX arrays, on the CPU or a GPU, or one column as a pandas Series or a
pyarrow (Chunked)Array. They reach zeroflow through :func:`zeroflow.asarray` without a copy, and
the work runs on their device. Results come back in the input's library and on its device
(NumPy in, NumPy out; a CUDA tensor in, a CUDA tensor out, through DLPack); pandas and pyarrow
columns give NumPy. NumPy inputs are validated by scikit-learn itself; the other libraries'
arrays are checked for shape and dtype here and for finite values by zeroflow (``ValueError``).
The transformers support ``set_output(transform="pandas")`` for host results.

Models pickle (and ``joblib.dump``) with their weights as bytes; a model fitted on a GPU loads
onto the CPU where no GPU is present.
"""

from __future__ import annotations

import math
import numbers
import os
import tempfile
import warnings
from typing import Any, NamedTuple, Optional, Tuple

import numpy as np
import sklearn
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    OneToOneFeatureMixin,
    OutlierMixin,
    TransformerMixin,
)
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ._interop import Array, _core, asarray
from .signal import segment_beats

__all__ = [
    "BeatSegmenter",
    "MinMaxScaler",
    "VAEOutlierDetector",
    "AutoEncoderOutlierDetector",
    "expected_failed_checks",
]

# ---- array libraries -----------------------------------------------------------------------

#: Libraries whose arrays go to zeroflow as they are (any device) and come back in kind.
_DEVICE_LIBRARIES = {"torch": "torch", "cupy": "cupy", "jax": "jax", "jaxlib": "jax"}


def _library(x: Any) -> str:
    """ "torch", "cupy" or "jax" for those libraries' arrays; "numpy" for everything else."""
    return _DEVICE_LIBRARIES.get(type(x).__module__.partition(".")[0], "numpy")


def _is_column(x: Any) -> bool:
    """A pandas Series or a pyarrow (Chunked)Array: one column of values."""
    root = type(x).__module__.partition(".")[0]
    if root == "pyarrow":
        return type(x).__name__ in ("Array", "ChunkedArray") or type(x).__name__.endswith("Array")
    return root == "pandas" and getattr(x, "ndim", 0) == 1


def _to_library(a: Array, library: str) -> Any:
    """A zeroflow array as `library`'s array on the same device, sharing its memory (DLPack)."""
    if library == "torch":
        import torch

        return torch.from_dlpack(a)
    if library == "cupy":
        import cupy

        return cupy.from_dlpack(a)
    if library == "jax":
        import jax.numpy as jnp

        return jnp.from_dlpack(a)
    return np.from_dlpack(a)


def _as_dtype(x: Any, library: str, dtype: str) -> Any:
    """`x` converted to `dtype` by its own library, on its own device."""
    if library == "torch":
        import torch

        return x.to(getattr(torch, dtype))
    return x.astype(dtype)


def _numpy_dtype(name: str) -> Any:
    return np.dtype(name).type


class _Data(NamedTuple):
    array: Array  # 2-D (rows x features), or 1-D for a single column taken from a Series/pyarrow
    library: str  # the library results go back to
    n_samples: int
    n_features: int


def _take(estimator: BaseEstimator, X: Any, *, reset: bool, dtypes: Tuple[str, ...], allow_nan: bool) -> _Data:
    """Validates `X` and takes it as a zeroflow array without copying (a dtype conversion aside).

    The first of `dtypes` is what other dtypes are converted to. Sets (reset=True) or checks
    n_features_in_ as scikit-learn's validate_data does.
    """
    library = _library(X)
    if library != "numpy" or _is_column(X):
        if library == "torch" and X.requires_grad:
            X = X.detach()
        a = asarray(X)
        if a.dtype not in dtypes:
            if library == "numpy":
                a = asarray(np.asarray(X, dtype=dtypes[0]))
            elif a.dtype.startswith(("float", "int", "uint", "bool")):
                a = asarray(_as_dtype(X, library, dtypes[0]))
            else:
                raise ValueError(f"dtype {a.dtype} is not supported: convert to {dtypes[0]} first")
        if library != "numpy" and a.ndim != 2:
            raise ValueError(
                f"Expected a 2D array, got a {a.ndim}D array instead (shape {tuple(a.shape)}); reshape "
                "one feature with .reshape(-1, 1)"
            )
        n_samples, n_features = a.shape[0], (a.shape[1] if a.ndim == 2 else 1)
        if n_samples < 1:
            raise ValueError(f"Found array with 0 sample(s) (shape={tuple(a.shape)}) while a minimum of 1 is required.")
        if reset:
            estimator.n_features_in_ = n_features
            if hasattr(estimator, "feature_names_in_"):
                del estimator.feature_names_in_
        elif n_features != estimator.n_features_in_:
            raise ValueError(
                f"X has {n_features} features, but {type(estimator).__name__} is expecting "
                f"{estimator.n_features_in_} features as input."
            )
        return _Data(a, "numpy" if _is_column(X) else library, n_samples, n_features)
    X = validate_data(
        estimator,
        X,
        reset=reset,
        dtype=[_numpy_dtype(d) for d in dtypes],
        ensure_all_finite="allow-nan" if allow_nan else True,
    )
    return _Data(asarray(X), "numpy", X.shape[0], X.shape[1])


def _as_2d(a: Array, n_samples: int) -> Array:
    """A 1-D result (one column) as n x 1."""
    return a.reshape((n_samples, 1)) if a.ndim == 1 else a


def _pandas_output(estimator: BaseEstimator) -> bool:
    """True when set_output (or sklearn.set_config) asks this transformer for pandas output."""
    chosen = getattr(estimator, "_sklearn_output_config", {}).get("transform", "default")
    if chosen == "default":
        chosen = sklearn.get_config().get("transform_output", "default")
    return chosen == "pandas"


# ---- MinMaxScaler --------------------------------------------------------------------------


class MinMaxScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scales each feature to ``feature_range`` on the device where the data lives.

    The numbers are scikit-learn's ``MinMaxScaler``'s (``X * scale_ + min_`` in the input's
    dtype; NaN ignored in ``fit`` and kept in ``transform``; a constant feature gets scale 1), bit
    for bit. Fitted attributes are arrays of the fit input's library and device.

    Args:
        feature_range: (min, max) of the scaled features.
        clip: clip transformed values to ``feature_range``.
    """

    def __init__(self, feature_range: Tuple[float, float] = (0, 1), *, clip: bool = False):
        self.feature_range = feature_range
        self.clip = clip

    def _range(self) -> Tuple[float, float]:
        try:
            lo, hi = (float(v) for v in self.feature_range)
        except (TypeError, ValueError):
            raise ValueError(f"feature_range must be two numbers (min, max), got {self.feature_range!r}") from None
        if not lo < hi:
            raise ValueError(
                f"Minimum of desired feature range must be smaller than maximum. Got {self.feature_range!r}."
            )
        return lo, hi

    def fit(self, X: Any, y: Any = None) -> "MinMaxScaler":
        """Learns each feature's minimum and maximum (NaN ignored)."""
        lo, hi = self._range()
        data = _take(self, X, reset=True, dtypes=("float64", "float32"), allow_nan=True)
        data_min, data_max, data_range, scale, offset = _core._min_max_fit(data.array, lo, hi, None)
        lib = data.library
        self.data_min_ = _to_library(data_min, lib)
        self.data_max_ = _to_library(data_max, lib)
        self.data_range_ = _to_library(data_range, lib)
        self.scale_ = _to_library(scale, lib)
        self.min_ = _to_library(offset, lib)
        self.n_samples_seen_ = data.n_samples
        return self

    def _coefficients(self, a: Array) -> Tuple[Array, Array]:
        """scale_ and min_ as zeroflow arrays of `a`'s dtype on `a`'s device (copied only when they
        are not: F values, never the data)."""
        out = []
        for fitted in (self.scale_, self.min_):
            c = asarray(fitted)
            if c.dtype != a.dtype or not _core._same_device(c, a.device):
                host = np.from_dlpack(c if c.device.startswith("cpu") else c.copy("cpu")).astype(a.dtype)
                c = asarray(host)
                if not a.device.startswith("cpu"):
                    c = c.copy(a.device)
            out.append(c)
        return out[0], out[1]

    def _apply(self, X: Any, inverse: bool) -> Any:
        check_is_fitted(self)
        lo, hi = self._range()
        data = _take(self, X, reset=False, dtypes=("float64", "float32"), allow_nan=True)
        scale, offset = self._coefficients(data.array)
        if inverse:
            out = _core._min_max_inverse(data.array, scale, offset, None)
        else:
            out = _core._min_max_transform(data.array, scale, offset, (lo, hi) if self.clip else None, None)
        return _to_library(_as_2d(out, data.n_samples), data.library)

    def transform(self, X: Any) -> Any:
        """``X * scale_ + min_`` (clipped when ``clip``), in X's library, on X's device."""
        return self._apply(X, inverse=False)

    def inverse_transform(self, X: Any) -> Any:
        """``(X - min_) / scale_``: back to the original units."""
        return self._apply(X, inverse=True)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


# ---- BeatSegmenter -------------------------------------------------------------------------

_SEGMENT_DEFAULTS = _core._segment_defaults()
_MIN_SIGNAL_SECONDS = 0.2  # the refractory period: shorter signals hold no beat


class BeatSegmenter(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Finds the heartbeats of an ECG signal and returns one row per beat (``zeroflow run``'s rows).

    ``X`` is one recording: a 1-D signal, or a 2-D (samples x leads) array of which ``lead``
    picks the column (an index, or a column name for a pandas DataFrame). The output has one row
    per beat, not one per input row, so this transformer goes first in a pipeline (e.g. before
    :class:`VAEOutlierDetector`) and is stateless: ``fit`` only checks the parameters and learns
    the row width. Rows are robust z-scores of the recording, zero-padded to a power of two.

    Parameters are ``zeroflow run``'s: ``method`` is ``--segmentation`` ("robust", the default,
    or "gate-to-gate", the seed documents' method; "seed" is its earlier name), the rest are in seconds and scaled by ``sample_rate``.
    """

    def __init__(
        self,
        *,
        sample_rate: float = _SEGMENT_DEFAULTS["sample_rate"],
        method: str = "robust",
        lead: Any = 0,
        min_beat_seconds: float = _SEGMENT_DEFAULTS["min_beat_seconds"],
        max_beat_seconds: float = _SEGMENT_DEFAULTS["max_beat_seconds"],
        min_peak_ratio: float = _SEGMENT_DEFAULTS["min_peak_ratio"],
        ricker_seconds: float = _SEGMENT_DEFAULTS["ricker_seconds"],
        nms_window_seconds: float = _SEGMENT_DEFAULTS["nms_window_seconds"],
        window_before_seconds: float = _SEGMENT_DEFAULTS["window_before_seconds"],
        window_after_seconds: float = _SEGMENT_DEFAULTS["window_after_seconds"],
    ):
        self.sample_rate = sample_rate
        self.method = method
        self.lead = lead
        self.min_beat_seconds = min_beat_seconds
        self.max_beat_seconds = max_beat_seconds
        self.min_peak_ratio = min_peak_ratio
        self.ricker_seconds = ricker_seconds
        self.nms_window_seconds = nms_window_seconds
        self.window_before_seconds = window_before_seconds
        self.window_after_seconds = window_after_seconds

    def _signal(self, X: Any, reset: bool) -> Tuple[Array, str]:
        """The lead to segment as a 1-D float32 zeroflow array (a strided view of a 2-D input)."""
        if self.method not in ("robust", "gate-to-gate", "seed"):
            raise ValueError(f"method must be 'robust' or 'gate-to-gate', not {self.method!r}")
        library = _library(X)
        n_leads = None
        if library == "numpy" and type(X).__module__.startswith("pandas") and getattr(X, "ndim", 0) == 2:
            n_leads = X.shape[1]  # a DataFrame: the lead by name or position, as a Series
            X = X[self.lead] if isinstance(self.lead, str) else X.iloc[:, self._lead_index(n_leads)]
        column = _is_column(X)
        if column:
            a = asarray(X)
            if a.dtype != "float32":
                a = asarray(np.asarray(X, dtype=np.float32))
        else:
            if library == "numpy":
                X = check_array(X, ensure_2d=False, dtype=np.float32, ensure_all_finite=True)
            elif library == "torch" and X.requires_grad:
                X = X.detach()
            if X.ndim not in (1, 2):
                raise ValueError(f"X must be a 1-D signal or a 2-D (samples x leads) array, got {X.ndim}-D")
            if library != "numpy" and str(X.dtype).rpartition(".")[2] != "float32":
                X = _as_dtype(X, library, "float32")
            if X.ndim == 2:
                n_leads = X.shape[1]
                X = X[:, self._lead_index(n_leads)]  # a strided view of the lead (NumPy, PyTorch, CuPy)
            a = asarray(X)
        n_leads = 1 if n_leads is None else n_leads
        if reset:
            self.n_features_in_ = n_leads
        elif n_leads != self.n_features_in_:
            raise ValueError(
                f"X has {n_leads} features, but BeatSegmenter is expecting {self.n_features_in_} features as input."
            )
        shortest = math.ceil(_MIN_SIGNAL_SECONDS * float(self.sample_rate)) + 1
        if a.shape[0] < shortest:
            raise ValueError(
                f"n_samples={a.shape[0]}: the signal is shorter than beat detection needs ({shortest} "
                f"samples at {self.sample_rate} Hz)"
            )
        return a, ("numpy" if column else library)

    def _lead_index(self, n_leads: int) -> int:
        if isinstance(self.lead, str):
            raise ValueError(f"lead {self.lead!r} is a column name: pass a pandas DataFrame, or give the lead's index")
        if not isinstance(self.lead, numbers.Integral) or not -n_leads <= int(self.lead) < n_leads:
            raise ValueError(
                f"lead must be a column index below {n_leads} (or a DataFrame column name), got {self.lead!r}"
            )
        return int(self.lead) % n_leads

    def _segment(self, X: Any, reset: bool):
        signal, library = self._signal(X, reset)
        windows = {}
        if self.method == "robust":
            windows = dict(
                window_before_seconds=float(self.window_before_seconds),
                window_after_seconds=float(self.window_after_seconds),
            )
        seg = segment_beats(
            signal,
            sample_rate=float(self.sample_rate),
            ricker_seconds=float(self.ricker_seconds),
            nms_window_seconds=float(self.nms_window_seconds),
            min_beat_seconds=float(self.min_beat_seconds),
            max_beat_seconds=float(self.max_beat_seconds),
            min_peak_ratio=float(self.min_peak_ratio),
            method=self.method,
            **windows,
        )
        if reset:
            self.row_width_ = int(seg.sizes.row_width)
        return seg, library

    def _rows(self, seg, library: str) -> Any:
        rows = seg.beats.rows
        if _pandas_output(self):
            import pandas as pd

            # One row per beat: indexed by the sample of its R peak, not by input rows.
            peaks = np.from_dlpack(seg.peaks if seg.beats.kept_index is None else _kept_peaks(seg))
            host = np.from_dlpack(rows if rows.device.startswith("cpu") else rows.copy("cpu"))
            return pd.DataFrame(host, index=pd.Index(peaks, name="peak"), columns=self.get_feature_names_out())
        return _to_library(rows, library)

    def fit(self, X: Any, y: Any = None) -> "BeatSegmenter":
        """Checks the parameters on `X` and learns the row width (``row_width_``)."""
        self._segment(X, reset=True)
        return self

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """fit and transform in one segmentation."""
        seg, library = self._segment(X, reset=True)
        return self._rows(seg, library)

    def transform(self, X: Any) -> Any:
        """The beat matrix (beats x ``row_width_``, float32) in X's library, on X's device."""
        check_is_fitted(self, "row_width_")
        seg, library = self._segment(X, reset=False)
        if int(seg.sizes.row_width) != self.row_width_:
            raise ValueError(
                f"the rows are {seg.sizes.row_width} wide, the fitted ones {self.row_width_}: the "
                "parameters changed since fit"
            )
        return self._rows(seg, library)

    @property
    def _n_features_out(self) -> int:
        return self.row_width_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float32"]
        return tags

    #: scikit-learn's checks that cannot hold for a signal -> beats transformer, with the reason
    #: (see :func:`expected_failed_checks`).
    _EXPECTED_FAILED_CHECKS = {
        "check_transformer_general": "one output row per beat, not one per input row (random data holds no beats)",
        "check_transformer_data_not_an_array": "one output row per beat, not one per input row",
        "check_methods_sample_order_invariance": "beats depend on the order of the samples: a shuffled signal has "
        "other beats, and the output rows are beats, not input rows",
        "check_methods_subset_invariance": "a subset of a signal has other beats; output rows are beats, not input "
        "rows",
        "check_fit1d": "a 1-D array is what this transformer takes: one signal",
        "check_fit2d_predict1d": "a 1-D array is one signal, which transform takes (the error it gives for a "
        "lead count that differs from fit's is a ValueError with another message)",
    }


def _kept_peaks(seg) -> Array:
    """The R peaks of the kept beats (seed method: rows exist only for kept candidates)."""
    peaks = np.from_dlpack(seg.peaks if seg.peaks.device.startswith("cpu") else seg.peaks.copy("cpu"))
    index = np.from_dlpack(
        seg.beats.kept_index if seg.beats.kept_index.device.startswith("cpu") else seg.beats.kept_index.copy("cpu")
    )
    return asarray(np.ascontiguousarray(peaks[index]))


def expected_failed_checks(estimator: BaseEstimator) -> dict:
    """scikit-learn's estimator checks that `estimator` fails by design, each with the reason.

    For ``sklearn.utils.estimator_checks.parametrize_with_checks(..., expected_failed_checks=
    zeroflow.sklearn.expected_failed_checks)`` and ``check_estimator``. Only
    :class:`BeatSegmenter` has any: it turns one signal into one row per beat.
    """
    return dict(getattr(estimator, "_EXPECTED_FAILED_CHECKS", {}))


# ---- outlier detectors ---------------------------------------------------------------------


def _offset(scores: Any, contamination: Any) -> float:
    """The offset below which a training score is an outlier, by the library's order statistics
    (eval/quantile.hpp, the ones ``zeroflow timeseries`` uses), computed on the scores' device
    (on a GPU only the order statistics cross to the host).

    contamination="auto" is Tukey's lower fence, ``Q1 - 1.5 IQR`` of the scores: reconstruction
    errors are skewed to the right, and the fence flags their long tail, where a fixed number of
    robust standard deviations may flag nothing. A float is the scores' quantile at that share.
    Quantiles interpolate linearly between order statistics, as numpy.quantile, in float64.
    """
    a = asarray(scores)
    if contamination == "auto":
        return _core._tukey_fence(a)[2]
    return _core._quantile(a, float(contamination))


def _seed_of(random_state: Any) -> int:
    """An int seed from scikit-learn's random_state (None: a fresh one)."""
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


class _ReconstructionOutlierDetector(OutlierMixin, BaseEstimator):
    """What the two autoencoder detectors share: validation, the offset, predict, pickling.

    Subclasses set _model_kind and implement _new_model, _fit_model, _errors, _model_to_bytes and
    _model_from_bytes.
    """

    def _check_contamination(self) -> None:
        c = self.contamination
        if isinstance(c, str):
            if c != "auto":
                raise ValueError(f"contamination must be 'auto' or a float in (0, 0.5], got {c!r}")
        elif not (isinstance(c, numbers.Real) and 0.0 < float(c) <= 0.5):
            raise ValueError(f"contamination must be 'auto' or a float in (0, 0.5], got {c!r}")

    def _device_for(self, data: _Data) -> str:
        return data.array.device if self.device is None else str(self.device)

    def fit(self, X: Any, y: Any = None) -> "_ReconstructionOutlierDetector":
        """Trains the model on every row of X (no labels), then sets ``offset_`` from the training scores."""
        self._check_contamination()
        data = _take(self, X, reset=True, dtypes=("float32",), allow_nan=False)
        rows = self._model_rows(data)
        self.seed_ = _seed_of(self.random_state)  # the model's seed: initial weights and shuffles
        self.model_ = self._new_model(data.n_features, self._device_for(data), self.seed_)
        self.loss_curve_ = [float(v) for v in self._fit_model(rows)]
        training = self._scores(rows, data.library)
        self.offset_ = _offset(training, self.contamination)
        return self

    def _model_rows(self, data: _Data) -> Array:
        return data.array

    def _scores(self, rows: Array, library: str) -> Any:
        """Minus the reconstruction errors, in `library`; NumPy gives float64 as scikit-learn does."""
        s = _to_library(self._errors(rows), library)
        if library == "numpy":
            return -s.astype(np.float64)
        return -s

    def score_samples(self, X: Any) -> Any:
        """Minus each row's reconstruction error: the higher, the more normal."""
        check_is_fitted(self)
        data = _take(self, X, reset=False, dtypes=("float32",), allow_nan=False)
        return self._scores(self._model_rows(data), data.library)

    def decision_function(self, X: Any) -> Any:
        """``score_samples(X) - offset_``: negative for outliers."""
        return self.score_samples(X) - self.offset_

    def predict(self, X: Any) -> Any:
        """+1 for inliers, -1 for outliers, in X's library."""
        d = self.decision_function(X)
        library = _library(d)
        if library == "torch":
            import torch

            return torch.where(d < 0, -1, 1)
        if library == "cupy":
            import cupy

            return cupy.where(d < 0, -1, 1)
        if library == "jax":
            import jax.numpy as jnp

            return jnp.where(d < 0, -1, 1)
        return np.where(d < 0, -1, 1)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        model = state.pop("model_", None)
        if model is not None:
            state["_model_bytes"] = self._model_to_bytes(model)
            state["_model_device"] = model.device
        return state

    def __setstate__(self, state: dict) -> None:
        data = state.pop("_model_bytes", None)
        device = state.pop("_model_device", "cpu")
        self.__dict__.update(state)
        if data is not None:
            if device.startswith("cuda") and not _core.cuda_available():
                warnings.warn(
                    f"the model was fitted on {device}, which this machine lacks: it is loaded onto the CPU",
                    RuntimeWarning,
                    stacklevel=2,
                )
                device = "cpu"
            self.model_ = self._model_from_bytes(data, device)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


class AutoEncoderOutlierDetector(_ReconstructionOutlierDetector):
    """The seed-004 MLP autoencoder as an outlier detector (zeroflow's own C++ model).

    features -> hidden -> code -> hidden -> features, ReLU, a sigmoid output (so the data should
    be scaled to [0, 1] first: put a :class:`MinMaxScaler` before it), Adam on the mean squared
    error. The defaults are the notebook's: 32 and 32 units, 100 epochs, the whole data as one
    batch, learning rate 0.01, weight decay 1e-5. A row's score is minus the mean of its squared
    reconstruction errors.

    Args:
        batch_size: rows per Adam step; None: every row in one step (the notebook).
        device: where the model trains ("cpu", "cuda:0"); None: where X lives.
        random_state: seeds the initial weights and the shuffles (None: a fresh seed).
    """

    def __init__(
        self,
        *,
        hidden: int = 32,
        code: int = 32,
        epochs: int = 100,
        batch_size: Optional[int] = None,
        learning_rate: float = 0.01,
        weight_decay: float = 1e-5,
        contamination: Any = "auto",
        device: Optional[str] = None,
        random_state: Any = None,
    ):
        self.hidden = hidden
        self.code = code
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.contamination = contamination
        self.device = device
        self.random_state = random_state

    def _new_model(self, n_features: int, device: str, seed: int) -> Any:
        from .model import MLPAutoencoder

        return MLPAutoencoder(n_features, int(self.hidden), int(self.code), device, seed)

    def _fit_model(self, rows: Array) -> list:
        batch = 0 if self.batch_size is None else int(self.batch_size)
        if batch < 0:
            raise ValueError(f"batch_size must be None or >= 1, got {self.batch_size}")
        return self.model_.train(
            rows,
            epochs=int(self.epochs),
            batch=batch,
            learning_rate=float(self.learning_rate),
            weight_decay=float(self.weight_decay),
            seed=self.seed_,
        )

    def _errors(self, rows: Array) -> Array:
        return self.model_.score(rows)

    def reconstruct(self, X: Any) -> Any:
        """The model's reconstruction of every row, in X's library and on X's device."""
        check_is_fitted(self)
        data = _take(self, X, reset=False, dtypes=("float32",), allow_nan=False)
        return _to_library(_as_2d(self.model_.reconstruct(data.array), data.n_samples), data.library)

    @staticmethod
    def _model_to_bytes(model: Any) -> bytes:
        return model.to_bytes()

    @staticmethod
    def _model_from_bytes(data: bytes, device: str) -> Any:
        from .model import MLPAutoencoder

        return MLPAutoencoder.from_bytes(data, device, "the pickled AutoEncoderOutlierDetector")


def _padded_width(n_features: int) -> int:
    """The LightVAE's row width for n features: a power of two, at least 16."""
    return max(16, 1 << (int(n_features) - 1).bit_length())


class VAEOutlierDetector(_ReconstructionOutlierDetector):
    """A variational autoencoder as an outlier detector.

    Rows are beats (from :class:`BeatSegmenter`) or any fixed-width vectors; rows whose width is
    not a power of two of at least 16 are zero-padded to one (in X's library, on X's device), as
    the seed pads its beats. A row's score is minus its reconstruction error decoded from the
    latent mean. Training uses every row (no held-out split) with the seed's loss, Adam and batches.

    Args:
        model: "light", the seed's LightVAE (zeroflow's own C++ model), or "monai", MONAI's
            VarAutoEncoder with the same widths and latent (an optional dependency: ``pip install
            monai``; see zeroflow._monai_vae).
        device: where the model trains ("cpu", "cuda:0"); None: where X lives.
        random_state: seeds the initial weights and the shuffles (None: a fresh seed).
    """

    def __init__(
        self,
        *,
        model: str = "light",
        epochs: int = 30,
        batch_size: int = 1024,
        learning_rate: float = 1e-3,
        contamination: Any = "auto",
        device: Optional[str] = None,
        random_state: Any = None,
    ):
        self.model = model
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.contamination = contamination
        self.device = device
        self.random_state = random_state

    def _model_rows(self, data: _Data) -> Array:
        width = _padded_width(data.n_features)
        a = _as_2d(data.array, data.n_samples)
        if width == data.n_features:
            return a
        x = _to_library(a, data.library)
        pad = width - data.n_features
        if data.library == "torch":
            import torch

            return asarray(torch.nn.functional.pad(x, (0, pad)))
        if data.library == "cupy":
            import cupy

            return asarray(cupy.pad(x, ((0, 0), (0, pad))))
        if data.library == "jax":
            import jax.numpy as jnp

            return asarray(jnp.pad(x, ((0, 0), (0, pad))))
        return asarray(np.pad(x, ((0, 0), (0, pad))))

    def _new_model(self, n_features: int, device: str, seed: int) -> Any:
        if self.model == "monai":
            from ._monai_vae import MonaiVAE

            return MonaiVAE(_padded_width(n_features), device, seed)
        if self.model != "light":
            raise ValueError(f"model must be 'light' (the seed's LightVAE) or 'monai', not {self.model!r}")
        from .model import VAE

        return VAE(_padded_width(n_features), device, seed)

    def _fit_model(self, rows: Array) -> list:
        return self.model_.train(
            rows,
            epochs=int(self.epochs),
            batch=int(self.batch_size),
            test_fraction=0.0,
            seed=self.seed_,
            learning_rate=float(self.learning_rate),
        ).epoch_loss

    def _errors(self, rows: Array) -> Array:
        return self.model_.score(rows).score

    @staticmethod
    def _model_to_bytes(model: Any) -> bytes:
        if hasattr(model, "to_bytes"):  # MONAI's
            return model.to_bytes()
        # The VAE writes files only (a verified model file): through a temporary one.
        with tempfile.TemporaryDirectory(prefix="zeroflow-vae-") as folder:
            path = os.path.join(folder, "model.safetensors")
            model.save(path)
            with open(path, "rb") as f:
                return f.read()

    @staticmethod
    def _model_from_bytes(data: bytes, device: str) -> Any:
        from . import _monai_vae
        from .model import VAE

        if data.startswith(_monai_vae._MAGIC):
            return _monai_vae.MonaiVAE.from_bytes(data, device)

        with tempfile.TemporaryDirectory(prefix="zeroflow-vae-") as folder:
            path = os.path.join(folder, "model.safetensors")
            with open(path, "wb") as f:
                f.write(data)
            return VAE.load(path, device)
