"""The seed's segmentation, step by step or in one call (:func:`segment_beats`), and the beat
detector for real recordings (:func:`detect_qrs`; ``segment_beats(..., method="robust")`` runs the
whole robust segmentation).

Every function takes array-likes from any framework (through :func:`zeroflow.asarray`, without
copying), runs on the input's device (CPU or GPU) and returns zeroflow arrays on that device.
``stream`` (CUDA only) is the stream the step runs on; by default the first input's stream. Inputs
produced on other streams are waited for first, so results are stream-ordered after them.

Parameters are in seconds (what a person knows about a recording) and converted to samples with
the recording's sample rate; the defaults are the seed's windows at 250 Hz.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional

from ._interop import Array, _core, asarray

Normalization = _core.Normalization


def _checked(x: Any, name: str, dtypes: tuple, ndim: int = 1) -> Array:
    """`x` as an Array of one of `dtypes` and `ndim` dimensions (TypeError / ValueError otherwise)."""
    a = asarray(x)
    if a.dtype not in dtypes:
        raise TypeError(
            f"{name} must be {' or '.join(dtypes)}, not {a.dtype}; zeroflow does not convert silently "
            f"(convert first, e.g. x.astype(numpy.{dtypes[0]}))"
        )
    if a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, not {a.ndim}-D (shape {a.shape})")
    return a


_F32 = ("float32",)
_I64 = ("int64",)
_DEFAULTS = _core._segment_defaults()


@dataclass(frozen=True)
class SegmentSizes:
    """The segmentation windows in samples."""

    ricker_width: int
    nms_window: int
    min_length: int
    max_length: int
    row_width: int  #: embedded row width: a power of two >= max(max_length, 16)


@dataclass
class Embedding:
    """The kept beats as model input."""

    rows: Array  #: n_kept x row_width float32: (x - center) / scale, then zeros
    kept: Optional[Array]  #: uint8 per candidate: 1 when its length is within [min_length, max_length]
    kept_index: Optional[Array]  #: int64 per row: the candidate it came from (beat order)


@dataclass
class Rhythm:
    """Rhythm features of every beat (robust method): float32, intervals in seconds."""

    rr_before: Array  #: peak[b] - peak[b-1]; for the first beat its rr_after
    rr_after: Array  #: peak[b+1] - peak[b]; for the last beat its rr_before
    local_rr: Array  #: median R-R interval of the 16 intervals around beat b
    irregularity: Array  #: how early the beat came and how long the pause after it is; 0 in a steady rhythm


@dataclass
class Segmentation:
    """Every intermediate of :func:`segment_beats`, on the signal's device.

    With ``method="robust"`` positions and peaks are both the detected R peaks, lengths their R-R
    intervals, every beat has a row (``beats.kept`` and ``beats.kept_index`` are None), ``gate``
    is None and ``rhythm`` holds the rhythm features; with ``method="gate-to-gate"`` ``rhythm`` is None.
    """

    sizes: SegmentSizes
    filtered: Array  #: band-passed signal, float32
    gate: Optional[Array]  #: NMS gate, uint8 (gate-to-gate method)
    positions: Array  #: int64 gate positions; candidate c starts at positions[c]
    lengths: Array  #: int64 beat lengths, one per candidate
    histogram: Array  #: int64 histogram of the lengths
    peaks: Array  #: int64 R-peak of every position
    norm: Normalization
    beats: Embedding
    rhythm: Optional[Rhythm] = None  #: robust method only


def segment_sizes(
    *,
    sample_rate: float = _DEFAULTS["sample_rate"],
    ricker_seconds: float = _DEFAULTS["ricker_seconds"],
    nms_window_seconds: float = _DEFAULTS["nms_window_seconds"],
    min_beat_seconds: float = _DEFAULTS["min_beat_seconds"],
    max_beat_seconds: float = _DEFAULTS["max_beat_seconds"],
) -> SegmentSizes:
    """The windows in samples (rounded to the nearest sample); at 250 Hz the seed's 30, 180, 100,
    256 and a row width of 256. Raises ValueError on non-positive windows or rates."""
    return SegmentSizes(
        **_core._segment_sizes(
            sample_rate,
            ricker_seconds,
            nms_window_seconds,
            min_beat_seconds,
            max_beat_seconds,
            _DEFAULTS["min_peak_ratio"],
        )
    )


def ricker_kernel(width: int, *, device: Any = "cpu", stream: Any = None) -> Array:
    """The seed's Ricker kernel: t = linspace(-3, 3, width), (1 - t^2) exp(-t^2/2) 2/sqrt(width), float32."""
    return _core._ricker_kernel(width, device, stream)


def bandpass(signal: Any, ricker_width: int, *, stream: Any = None) -> Array:
    """The signal circularly convolved with ricker_kernel(ricker_width), exactly as the seed's
    irfft(rfft(x) * rfft(k)): y[n] = sum_k h[k] x[(n - k) mod N]. 1-D float32 in, float32 out."""
    return _core._bandpass(_checked(signal, "signal", _F32), ricker_width, stream)


def nms_gate(filtered: Any, window: int, *, stream: Any = None) -> Array:
    """The seed's 1-D non-maximum-suppression gate (uint8, N - window + 1), rising edges only."""
    return _core._nms_gate(_checked(filtered, "filtered", _F32), window, stream)


def gate_positions(gate: Any, *, stream: Any = None) -> Array:
    """Indices (int64, ascending) where the gate is 1."""
    return _core._gate_positions(_checked(gate, "gate", ("uint8", "bool")), stream)


def beat_lengths(positions: Any, *, stream: Any = None) -> Array:
    """numpy.diff of the positions (int64)."""
    return _core._beat_lengths(_checked(positions, "positions", _I64), stream)


def length_histogram(lengths: Any, bins: int, *, stream: Any = None) -> Array:
    """counts[b] = #(lengths == b) for b < bins - 1; the last bin counts lengths >= bins - 1."""
    return _core._length_histogram(_checked(lengths, "lengths", _I64), bins, stream)


def locate_peaks(
    signal: Any, positions: Any, nms_window: int, ricker_width: int, center: float, *, stream: Any = None
) -> Array:
    """The R-peak sample of every gate position (int64), refined on the raw signal."""
    return _core._locate_peaks(
        _checked(signal, "signal", _F32),
        _checked(positions, "positions", _I64),
        nms_window,
        ricker_width,
        center,
        stream,
    )


def drop_weak_peaks(
    filtered: Any, positions: Any, nms_window: int, ratio: float, baseline: float = 0.0, *, stream: Any = None
) -> Array:
    """The positions whose band-passed height (minus `baseline`) is at least `ratio` x the median height."""
    return _core._drop_weak_peaks(
        _checked(filtered, "filtered", _F32),
        _checked(positions, "positions", _I64),
        nms_window,
        ratio,
        baseline,
        stream,
    )


def robust_zscore(signal: Any, *, stream: Any = None) -> Normalization:
    """center = median, scale = 1.4826 x MAD of the finite samples (a Normalization)."""
    return _core._robust_zscore(_checked(signal, "signal", _F32), stream)


def embed_beats(
    signal: Any,
    positions: Any,
    lengths: Any,
    min_length: int,
    max_length: int,
    row_width: int,
    norm: Optional[Normalization] = None,
    *,
    stream: Any = None,
) -> Embedding:
    """The seed's prune + embed: kept beats (min_length <= length <= max_length), normalised, in
    zero-padded rows of `row_width`, in beat order."""
    rows, kept, kept_index = _core._embed_beats(
        _checked(signal, "signal", _F32),
        _checked(positions, "positions", _I64),
        _checked(lengths, "lengths", _I64),
        min_length,
        max_length,
        row_width,
        norm if norm is not None else Normalization(0.0, 1.0),
        stream,
    )
    return Embedding(rows, kept, kept_index)


def embed_windows(
    signal: Any,
    peaks: Any,
    *,
    window_before: int,
    window_after: int,
    row_width: Optional[int] = None,
    norm: Optional[Normalization] = None,
    stream: Any = None,
) -> Array:
    """Every beat as a row: row b holds (signal[peaks[b] - window_before + j] - center) / scale for j
    < window_before + window_after, 0 outside the recording and up to `row_width` (default: the
    window). With a segmentation's ``peaks`` and ``sizes`` windows, another lead's signal gives the
    same beats' rows in that lead: :func:`zeroflow.classify.classify_beats`'s ``other_leads``
    (unnormalised, as ``zeroflow run`` embeds them). On the signal's device."""
    width = window_before + window_after if row_width is None else row_width
    return _core._embed_windows(
        _checked(signal, "signal", _F32),
        _checked(peaks, "peaks", _I64),
        window_before,
        window_after,
        width,
        norm if norm is not None else Normalization(0.0, 1.0),
        stream,
    )


#: The segmentation methods; "seed" is the earlier name of "gate-to-gate".
_METHODS = ("gate-to-gate", "robust", "seed")
#: The beat detector's windows (detect_qrs and the robust method), in seconds.
_DETECTOR_WINDOWS = (
    "ricker_seconds",
    "refractory_seconds",
    "t_wave_seconds",
    "replace_seconds",
    "slope_seconds",
    "learn_seconds",
)
#: The robust method's beat row: this long before and after each peak.
_ROW_WINDOWS = ("window_before_seconds", "window_after_seconds")


def _windows(given: Dict[str, Any], allowed: tuple, caller: str) -> Dict[str, float]:
    """The windows the caller set, refusing a name `caller` does not take (TypeError, as Python does)."""
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise TypeError(f"{caller}() got unexpected window(s) {', '.join(unknown)}; it takes {', '.join(allowed)}")
    return {name: float(value) for name, value in given.items()}


def segment_beats(
    signal: Any,
    *,
    sample_rate: float = _DEFAULTS["sample_rate"],
    ricker_seconds: float = _DEFAULTS["ricker_seconds"],
    nms_window_seconds: float = _DEFAULTS["nms_window_seconds"],
    min_beat_seconds: float = _DEFAULTS["min_beat_seconds"],
    max_beat_seconds: float = _DEFAULTS["max_beat_seconds"],
    min_peak_ratio: float = _DEFAULTS["min_peak_ratio"],
    method: str = "gate-to-gate",
    stream: Any = None,
    **windows: float,
) -> Segmentation:
    """The whole segmentation on the signal's device.

    ``method="gate-to-gate"`` (the default here) is the seed documents' method: band-pass, gate, positions (weak
    peaks dropped below `min_peak_ratio` x the median peak; 0 keeps the seed's detector), lengths,
    histogram, R-peaks, robust z-score and the embedded rows of the beats within the length bounds.
    ``method="robust"`` (what ``zeroflow run`` does by default) detects beats with
    :func:`detect_qrs` and embeds every one of them in a window around its peak, with rhythm
    features; see :class:`Segmentation` for what the fields then hold.

    Args:
        signal: the raw 1-D float32 recording (any framework, any stride).
        method: "gate-to-gate" or "robust" ("seed" is gate-to-gate's earlier name).
        windows: the robust method's windows in seconds: refractory_seconds, t_wave_seconds,
            replace_seconds, slope_seconds, learn_seconds (as :func:`detect_qrs`),
            window_before_seconds, window_after_seconds.
    """
    if method not in _METHODS:
        raise ValueError(f"method must be 'gate-to-gate' or 'robust', not {method!r}")
    params = _windows(windows, _DETECTOR_WINDOWS[1:] + _ROW_WINDOWS, "segment_beats")
    params.update(
        sample_rate=sample_rate,
        ricker_seconds=ricker_seconds,
        nms_window_seconds=nms_window_seconds,
        min_beat_seconds=min_beat_seconds,
        max_beat_seconds=max_beat_seconds,
        min_peak_ratio=min_peak_ratio,
        method=method,
    )
    d = _core._segment_beats(_checked(signal, "signal", _F32), params, stream)
    rhythm = None
    if d["rr_before"] is not None:
        rhythm = Rhythm(d["rr_before"], d["rr_after"], d["local_rr"], d["irregularity"])
    return Segmentation(
        SegmentSizes(**d["sizes"]),
        d["filtered"],
        d["gate"],
        d["positions"],
        d["lengths"],
        d["histogram"],
        d["peaks"],
        d["norm"],
        Embedding(d["rows"], d["kept"], d["kept_index"]),
        rhythm,
    )


def detect_qrs(
    signal: Any, sample_rate: float, *, center: Optional[float] = None, stream: Any = None, **windows: float
) -> Array:
    """The R peaks of a raw recording (int64 sample indices, ascending, on the signal's device).

    The detector of the robust segmentation: the Ricker band-pass of the recording (its median
    removed) squared, so either polarity counts; its local maxima at least a refractory period
    apart are candidates; a candidate is a beat when it clears an adaptive threshold between the
    running signal and noise levels, is not a slower wave right after a beat (T wave) and is not
    followed closely by a stronger peak (then it was a P wave); long gaps are searched back. The
    result does not depend on the recording's units (gain and offset).

    Args:
        signal: the raw 1-D float32 recording (any framework, any stride), at least a refractory
            period and a band-pass kernel long.
        sample_rate: samples per second; every window is scaled by it.
        center: the recording's baseline; None (default) takes its median, as the robust
            segmentation does.
        windows: in seconds, any of ricker_seconds (band-pass kernel width), refractory_seconds
            (no two beats closer), t_wave_seconds, replace_seconds, slope_seconds, learn_seconds
            (the levels start from this much of the recording); defaults are zeroflow's.

    Raises:
        TypeError: a non-float32 signal or an unknown window; ValueError: a signal that is not
        1-D or too short, or a window or rate that is not a finite positive number.
    """
    params = _windows(windows, _DETECTOR_WINDOWS, "detect_qrs")
    params["sample_rate"] = float(sample_rate)
    return _core._detect_qrs(
        _checked(signal, "signal", _F32), params, None if center is None else float(center), stream
    )
