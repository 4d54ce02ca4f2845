"""Atrial fibrillation from beat times alone: the rhythm half of the class rule's AF test
(``classify/af_rhythm.hpp``), so that it can be run on any beat annotations (the AF Database's
``.qrs``, another detector's beats) and judged on its own.

``zeroflow run`` uses the same rule with the recording's P waves as a second condition; here,
without a signal, the rhythm decides. docs/classification.md gives the rule and the
cross-validation that chose its thresholds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

from ._interop import _core

#: The rule's parameters and their defaults (``classify::af_params``).
AF_DEFAULTS: Dict[str, float] = dict(_core._af_defaults())


@dataclass
class AFRhythm:
    """The rule's answer: per beat ``irregular`` (its window is irregular) and ``in_af`` (inside
    an episode), and the ``episodes`` as dicts with ``rhythm``, ``first_beat``, ``last_beat``,
    ``onset`` and ``offset`` (R-peak samples of the first and last beat)."""

    irregular: np.ndarray
    in_af: np.ndarray
    episodes: List[Dict[str, Any]] = field(default_factory=list)


def find_af_episodes(
    peaks: Any,
    sample_rate: float,
    *,
    left_out: Optional[Any] = None,
    p_wave_coherence: Optional[Any] = None,
    **params: float,
) -> AFRhythm:
    """AF episodes from R-peak samples (strictly increasing integers) at ``sample_rate`` Hz.

    ``left_out`` marks beats whose intervals are not the atria's (e.g. ventricular beats), one
    truthy value per beat. ``p_wave_coherence`` (one float per beat, NaN where unmeasured: beats.csv's
    ``p_coherence`` column) adds the rule's P-wave test; without it the rhythm alone decides.
    ``params`` override :data:`AF_DEFAULTS` by name. Raises ValueError on peaks that do not
    increase, a bad rate, sizes that differ or a parameter out of range, TypeError on an unknown
    parameter or peaks that are not integers.
    """
    p = np.asarray(peaks)
    if p.ndim != 1 or not (np.issubdtype(p.dtype, np.integer) or p.size == 0):
        raise TypeError(f"peaks must be a 1-D array of integer sample indices, got {p.dtype} of shape {p.shape}")
    marks = [] if left_out is None else np.asarray(left_out).astype(bool).astype(np.uint8).tolist()
    coherence = [] if p_wave_coherence is None else np.asarray(p_wave_coherence, dtype=np.float64).tolist()
    irregular, in_af, episodes = _core._find_af_episodes(
        p.astype(np.int64).tolist(), float(sample_rate), marks, coherence, dict(params)
    )
    return AFRhythm(np.asarray(irregular, dtype=bool), np.asarray(in_af, dtype=bool), list(episodes))


__all__ = ["AF_DEFAULTS", "AFRhythm", "find_af_episodes"]
