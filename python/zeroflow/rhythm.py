"""Atrial fibrillation from beat times alone: the rhythm half of the class rule's AF test
(``classify/af_rhythm.hpp``), so that it can be run on any beat annotations (the AF Database's
``.qrs``, another detector's beats) and judged on its own.

``zeroflow run`` uses the same rule with the recording's P waves as a second condition; here,
without a signal, the rhythm decides. A strip (beats spanning at most ``strip_max_seconds``, a
minute) is read whole by a small learned prior (``classify/af_strip.hpp``): :func:`measure_af_strip`
gives its seven measures, :data:`AF_STRIP_PRIOR` the prior. docs/classification.md gives the rule,
the cross-validation that chose its thresholds and the prior's provenance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

from ._interop import _core

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


def _arguments(peaks: Any, left_out: Any, p_wave_coherence: Any, p_wave_similarity: Any) -> tuple:
    p = np.asarray(peaks)
    if p.ndim != 1 or not (np.issubdtype(p.dtype, np.integer) or p.size == 0):
        raise TypeError(f"peaks must be a 1-D array of integer sample indices, got {p.dtype} of shape {p.shape}")
    marks = [] if left_out is None else np.asarray(left_out).astype(bool).astype(np.uint8).tolist()
    floats = lambda v: [] if v is None else np.asarray(v, dtype=np.float64).tolist()  # noqa: E731
    return p.astype(np.int64).tolist(), marks, floats(p_wave_coherence), floats(p_wave_similarity)


def find_af_episodes(
    peaks: Any,
    sample_rate: float,
    *,
    left_out: Optional[Any] = None,
    p_wave_coherence: Optional[Any] = None,
    p_wave_similarity: Optional[Any] = None,
    **params: float,
) -> AFRhythm:
    """AF episodes from R-peak samples (strictly increasing integers) at ``sample_rate`` Hz.

    ``left_out`` marks beats whose intervals are not the atria's (e.g. ventricular beats), one
    truthy value per beat. ``p_wave_coherence`` (one float per beat, NaN where unmeasured: beats.csv's
    ``p_coherence`` column) adds the rule's P-wave test; without it the rhythm alone decides.
    ``p_wave_similarity`` (beats.csv's ``p_similarity``) is the strip prior's other P-wave measure.
    ``params`` override :data:`AF_DEFAULTS` by name. Raises ValueError on peaks that do not
    increase, a bad rate, sizes that differ or a parameter out of range, TypeError on an unknown
    parameter or peaks that are not integers.
    """
    p, marks, coherence, similarity = _arguments(peaks, left_out, p_wave_coherence, p_wave_similarity)
    irregular, in_af, episodes = _core._find_af_episodes(
        p, float(sample_rate), marks, coherence, similarity, dict(params)
    )
    return AFRhythm(np.asarray(irregular, dtype=bool), np.asarray(in_af, dtype=bool), list(episodes))


def measure_af_strip(
    peaks: Any,
    sample_rate: float,
    *,
    left_out: Optional[Any] = None,
    p_wave_coherence: Optional[Any] = None,
    p_wave_similarity: Optional[Any] = None,
    **params: float,
) -> Optional[np.ndarray]:
    """The strip prior's seven measures (:data:`AF_STRIP_FEATURES`) of these beats, as
    :func:`find_af_episodes` measures a strip (same arguments): a float64 array, NaN for a P-wave
    measure not given, or None when fewer than eight steps are measured."""
    p, marks, coherence, similarity = _arguments(peaks, left_out, p_wave_coherence, p_wave_similarity)
    x = _core._measure_af_strip(p, float(sample_rate), marks, coherence, similarity, dict(params))
    return None if x is None else np.asarray(x, dtype=np.float64)


__all__ = ["AF_DEFAULTS", "AF_STRIP_FEATURES", "AF_STRIP_PRIOR", "AFRhythm", "find_af_episodes", "measure_af_strip"]
