"""Atrial fibrillation from beat times alone: the rhythm half of the class rule's AF test
(``classify/af_rhythm.hpp``), so that it can be run on any beat annotations (the AF Database's
``.qrs``, another detector's beats) and judged on its own.

``zeroflow run`` uses the same rule with the recording's P waves as a second condition; here,
without a signal, the rhythm decides. A strip (beats spanning at most ``strip_max_seconds``, a
minute) is read whole by a small learned prior (``classify/af_strip.hpp``): :func:`measure_af_strip`
gives its measures, :data:`AF_STRIP_PRIOR` the prior, and :func:`f_wave_rates` the one it takes from
the signal between the beats. docs/classification.md gives the rule,
the cross-validation that chose its thresholds and the prior's provenance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

from ._interop import _core
from .signal import _checked

#: The rule's parameters and their defaults (``classify::af_params``).
AF_DEFAULTS: Dict[str, float] = dict(_core._af_defaults())

#: The strip prior the library ships (``data/af_strip_prior.safetensors``): ``features`` (the
#: measures' names, in order), ``mean``, ``scale``, ``weight``, ``bias``, ``threshold`` and
#: ``provenance`` (source, licence, procedure, out-of-sample figures).
AF_STRIP_PRIOR: Dict[str, Any] = dict(_core._af_strip_prior())

#: The names of :func:`measure_af_strip`'s measures, in order.
AF_STRIP_FEATURES: tuple = tuple(AF_STRIP_PRIOR["features"])


@dataclass
class AFRhythm:
    """The rule's answer: per beat ``irregular`` (its window is irregular) and ``in_af`` (inside
    an episode), and the ``episodes`` as dicts with ``rhythm``, ``first_beat``, ``last_beat``,
    ``onset`` and ``offset`` (R-peak samples of the first and last beat)."""

    irregular: np.ndarray
    in_af: np.ndarray
    episodes: List[Dict[str, Any]] = field(default_factory=list)


def _peaks(peaks: Any) -> list:
    p = np.asarray(peaks)
    if p.ndim != 1 or not (np.issubdtype(p.dtype, np.integer) or p.size == 0):
        raise TypeError(f"peaks must be a 1-D array of integer sample indices, got {p.dtype} of shape {p.shape}")
    return p.astype(np.int64).tolist()


def _arguments(peaks: Any, left_out: Any, *atrial: Any) -> tuple:
    marks = [] if left_out is None else np.asarray(left_out).astype(bool).astype(np.uint8).tolist()
    floats = lambda v: [] if v is None else np.asarray(v, dtype=np.float64).tolist()  # noqa: E731
    return (_peaks(peaks), marks, *(floats(v) for v in atrial))


def find_af_episodes(
    peaks: Any,
    sample_rate: float,
    *,
    left_out: Optional[Any] = None,
    p_wave_coherence: Optional[Any] = None,
    p_wave_similarity: Optional[Any] = None,
    f_wave_rate: Optional[Any] = None,
    **params: float,
) -> AFRhythm:
    """AF episodes from R-peak samples (strictly increasing integers) at ``sample_rate`` Hz.

    ``left_out`` marks beats whose intervals are not the atria's (e.g. ventricular beats), one
    truthy value per beat. ``p_wave_coherence`` (one float per beat, NaN where unmeasured: beats.csv's
    ``p_coherence`` column) adds the rule's P-wave test; without it the rhythm alone decides.
    ``p_wave_similarity`` (beats.csv's ``p_similarity``) and ``f_wave_rate`` (beats.csv's
    ``f_wave_rate``, :func:`f_wave_rates`) are the strip prior's other atrial measures.
    ``params`` override :data:`AF_DEFAULTS` by name. Raises ValueError on peaks that do not
    increase, a bad rate, sizes that differ or a parameter out of range, TypeError on an unknown
    parameter or peaks that are not integers.
    """
    args = _arguments(peaks, left_out, p_wave_coherence, p_wave_similarity, f_wave_rate)
    irregular, in_af, episodes = _core._find_af_episodes(args[0], float(sample_rate), *args[1:], dict(params))
    return AFRhythm(np.asarray(irregular, dtype=bool), np.asarray(in_af, dtype=bool), list(episodes))


def measure_af_strip(
    peaks: Any,
    sample_rate: float,
    *,
    left_out: Optional[Any] = None,
    p_wave_coherence: Optional[Any] = None,
    p_wave_similarity: Optional[Any] = None,
    f_wave_rate: Optional[Any] = None,
    **params: float,
) -> Optional[np.ndarray]:
    """The strip prior's measures (:data:`AF_STRIP_FEATURES`) of these beats, as
    :func:`find_af_episodes` measures a strip (same arguments): a float64 array, NaN for an atrial
    measure not given, or None when fewer than eight steps are measured."""
    args = _arguments(peaks, left_out, p_wave_coherence, p_wave_similarity, f_wave_rate)
    x = _core._measure_af_strip(*args[:1], float(sample_rate), *args[1:], dict(params))
    return None if x is None else np.asarray(x, dtype=np.float64)


def f_wave_rates(signal: Any, peaks: Any, sample_rate: float) -> np.ndarray:
    """Each beat's f-wave rate (``classify/f_wave.hpp``): zero crossings per second of the 3-12 Hz
    band (a 4th-order Butterworth band-pass run forward and backward from rest, the signal's first
    finite value its baseline) in the T-Q interval before the beat, from the previous beat's T-wave
    end (0.1 + 0.45 sqrt(RR) s after its R peak, RR the interval between the two beats) to 0.07 s
    before this beat's R peak. AF's fibrillatory
    waves cross 8-9 times a second, a sinus rhythm's flat interval 11-12 times (its noise). A
    float64 array, one value per beat: NaN for the first beat, for intervals under 0.1 s and for
    those within a third of a second (a period of the band's lower edge, where the filter starts
    from rest) of the signal's ends or of a NaN sample (missing: it reads as the first finite
    value). ``signal`` is 1-D float32 on any device. Raises ValueError on peaks outside the signal
    or not increasing, or a bad rate; TypeError on a signal that is not float32."""
    x = _checked(signal, "signal", ("float32",), ndim=1)
    return np.asarray(_core._f_wave_rates(x, _peaks(peaks), float(sample_rate)), dtype=np.float64)


__all__ = [
    "AF_DEFAULTS",
    "AF_STRIP_FEATURES",
    "AF_STRIP_PRIOR",
    "AFRhythm",
    "f_wave_rates",
    "find_af_episodes",
    "measure_af_strip",
]
