"""What a Holter report prints, from beats and their classes (``holter/holter.hpp``): the heart rate
per minute and its extremes, events (pauses, brady- and tachycardia, ventricular and
supraventricular couplets, runs, bigeminy and trigeminy, AF), beats by class and hour, the AF burden
and the Task Force's time-domain heart-rate variability.

``zeroflow run`` writes the same analysis into ``summary.json`` (``"holter"``) and ``events.csv``;
this function runs it on any beats — a run's ``beats.csv`` after a reader's corrections, reference
annotations, another detector's beats. docs/holter.md gives every definition.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, Optional, Sequence

import numpy as np

from ._interop import _core

#: The analysis's parameters and their defaults (``holter::holter_params``).
HOLTER_DEFAULTS: Dict[str, float] = dict(_core._holter_defaults())


def _stretches(value: Optional[Iterable[Any]]) -> list:
    """(first_beat, last_beat) pairs from pairs or from dicts with those keys (a run's episodes)."""
    out = []
    for item in value or ():
        if isinstance(item, dict):
            out.append((int(item["first_beat"]), int(item["last_beat"])))
        else:
            first, last = item
            out.append((int(first), int(last)))
    return out


def analyse(
    peaks: Any,
    classes: Any,
    sample_rate: float,
    *,
    samples: Optional[int] = None,
    af_episodes: Optional[Iterable[Any]] = None,
    unreadable: Optional[Iterable[Any]] = None,
    **params: float,
) -> Dict[str, Any]:
    """The Holter analysis of beats at R-peak samples ``peaks`` (strictly increasing integers) with
    ``classes`` (a string or a sequence of ``'N'``, ``'S'``, ``'V'``, ``'Q'``, one per beat) at
    ``sample_rate`` Hz.

    ``samples`` is the recording's length (default: one sample past the last peak);
    ``af_episodes`` and ``unreadable`` are (first_beat, last_beat) pairs, or dicts with those keys
    (``zeroflow.rhythm.find_af_episodes``' episodes). ``params`` override :data:`HOLTER_DEFAULTS`.
    Returns summary.json's ``"holter"`` object as a dict, with every event under ``"event_list"``
    (unmeasured values are None). Raises ValueError for peaks that do not increase, a class other
    than N S V Q, episodes out of order or a parameter out of range; TypeError for an unknown
    parameter.
    """
    p = np.asarray(peaks)
    if p.ndim != 1 or not (np.issubdtype(p.dtype, np.integer) or p.size == 0):
        raise TypeError(f"peaks must be a 1-D array of integer sample indices, got {p.dtype} of shape {p.shape}")
    text = classes if isinstance(classes, str) else "".join(str(c) for c in classes)
    length = int(samples) if samples is not None else (int(p[-1]) + 1 if p.size else 0)
    result = _core._holter_analyse(
        p.astype(np.int64).tolist(),
        text,
        float(sample_rate),
        length,
        _stretches(af_episodes),
        _stretches(unreadable),
        dict(params),
    )
    return json.loads(result)


__all__: Sequence[str] = ["HOLTER_DEFAULTS", "analyse"]
