"""The class rule of ``zeroflow run`` on a segmentation's rows: an AAMI class (N, S, V, Q) for
every beat and the AF episodes (``classify/beat_classes.hpp``), with any of its parameters
changed by name — so that the rule can be judged and cross-validated without a run per parameter
(``bench/classes_cv.py``).

The rows are :func:`zeroflow.segment_beats` ``(..., method="robust")``'s ``beats.rows`` (host or
CUDA); the windows are its ``sizes.window_before`` and ``sizes.window_after``.
docs/classification.md gives the rule and where each parameter's value comes from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ._interop import _core
from .signal import _checked

#: The rule's parameters by dotted name (``"timing.premature_ratio"``) and their defaults.
CLASS_DEFAULTS: Dict[str, float] = dict(_core._class_defaults())


@dataclass
class BeatClasses:
    """Per beat: ``classes`` ('N', 'S', 'V', 'Q' as a 1-D array of 1-character strings), the
    measurements the rule used (``similarity``, ``other_lead_similarity``, ``other_lead_deviation``, ``p_similarity``,
    ``p_coherence``, ``f_wave_rate``, ``prematurity``, ``clarity``), ``in_af``, ``unreadable`` (inside a stretch without readable ECG: Q) and
    ``family`` (the beat's shape family, 0 the dominant shape); ``dominant_bound``; ``episodes`` (AF)
    and ``fast_rhythm`` (stretches with a second QRS between every two beats: a rhythm the detector
    may have halved) as (first_beat, last_beat, onset, offset)."""

    classes: np.ndarray
    similarity: np.ndarray
    p_similarity: np.ndarray
    p_coherence: np.ndarray
    prematurity: np.ndarray
    in_af: np.ndarray
    clarity: np.ndarray
    unreadable: np.ndarray
    dominant_bound: float
    other_lead_similarity: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    other_lead_deviation: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    family: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    f_wave_rate: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    episodes: List[Tuple[int, int, int, int]] = field(default_factory=list)
    fast_rhythm: List[Tuple[int, int, int, int]] = field(default_factory=list)


def classify_beats(
    peaks: Any,
    rows: Any,
    *,
    window_before: int,
    window_after: int,
    sample_rate: float,
    other_leads: Sequence[Any] = (),
    signal: Any = None,
    **params: float,
) -> BeatClasses:
    """Classifies every beat: ``peaks`` (R-peak samples, strictly increasing), ``rows`` (beats x
    width float32; row b the samples peak[b] - window_before .. peak[b] + window_after - 1).

    ``other_leads``: the same beats' rows in the recording's other ECG leads (each as ``rows``:
    embedded at the same peaks, same windows and width, on any device). A beat whose shape is
    unlike the dominant one in its own lead, without a ventricular timing, is then N where the
    other leads that read it see the dominant shape (median similarity at least
    ``shape.other_shape_max_similarity``), V where they and its own lead both see another shape
    (below it), else N, the rhythm it sits in, as it is without them. ``other_lead_similarity`` gives
    that median per beat (NaN where no other lead reads the beat: an unreadable stretch there, or a
    QRS no clearer than noise). A beat called V is N where the other leads that read it see its QRS
    no further from the normal (N and S) beats around it than those lie from each other
    (``shape.other_lead_min_deviation``: noise in its own lead spoilt its shape and moved its R
    peak there only); ``other_lead_deviation`` gives that measure for the beats called V before
    it (NaN for the others). With ``other_leads``, a lone beat called V (neither neighbour V) that no other
    lead reads is Q when its own clarity is under ``shape.unconfirmed_v_min_clarity`` (15 by
    default; 0: never).

    ``signal``: the lead the beats were found in (1-D float32, on any device; ``peaks`` index it).
    When the beats span a strip (at most ``af.strip_max_seconds``), its f-wave rates
    (:func:`zeroflow.rhythm.f_wave_rates`, from a second before the first beat to a second after the
    last) join the strip prior's measures, as ``zeroflow run`` does; ``f_wave_rate`` gives them (NaN
    without a signal or for a longer recording).

    ``params`` override :data:`CLASS_DEFAULTS`; as Python names have no dots, pass them as
    ``**{"timing.premature_ratio": 0.85}``. Raises ValueError on sizes that disagree, peaks that do
    not increase or a parameter out of range (naming it), TypeError on an unknown parameter.
    """
    p = np.asarray(peaks)
    if p.ndim != 1 or not (np.issubdtype(p.dtype, np.integer) or p.size == 0):
        raise TypeError(f"peaks must be a 1-D array of integer sample indices, got {p.dtype} of shape {p.shape}")
    r = _checked(rows, "rows", ("float32",), ndim=2)
    others = [_checked(o, f"other_leads[{k}]", ("float32",), ndim=2) for k, o in enumerate(other_leads)]
    lead = None if signal is None else _checked(signal, "signal", ("float32",), ndim=1)
    d = _core._classify_beats(
        p.astype(np.int64).tolist(),
        r,
        int(window_before),
        int(window_after),
        float(sample_rate),
        dict(params),
        others,
        lead,
    )
    return BeatClasses(
        classes=np.array(list(d["classes"]), dtype="<U1"),
        similarity=np.asarray(d["similarity"], dtype=np.float32),
        p_similarity=np.asarray(d["p_similarity"], dtype=np.float32),
        p_coherence=np.asarray(d["p_coherence"], dtype=np.float32),
        prematurity=np.asarray(d["prematurity"], dtype=np.float32),
        in_af=np.asarray(d["in_af"], dtype=bool),
        clarity=np.asarray(d["clarity"], dtype=np.float32),
        unreadable=np.asarray(d["unreadable"], dtype=bool),
        dominant_bound=float(d["dominant_bound"]),
        other_lead_similarity=np.asarray(d["other_lead_similarity"], dtype=np.float32),
        other_lead_deviation=np.asarray(d["other_lead_deviation"], dtype=np.float32),
        family=np.asarray(d["family"], dtype=np.int32),
        f_wave_rate=np.asarray(d["f_wave_rate"], dtype=np.float32),
        episodes=[tuple(int(v) for v in e) for e in d["episodes"]],
        fast_rhythm=[tuple(int(v) for v in e) for e in d["fast_rhythm"]],
    )


__all__ = ["CLASS_DEFAULTS", "BeatClasses", "classify_beats"]
