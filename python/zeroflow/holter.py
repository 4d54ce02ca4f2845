"""What a Holter report prints, from beats and their classes (``holter/holter.hpp``): the heart rate
per minute and its extremes, events (pauses, brady- and tachycardia, ventricular and
supraventricular couplets, runs, bigeminy and trigeminy, AF), beats by class and hour, the AF burden
and the Task Force's time-domain heart-rate variability.

``zeroflow run`` writes the same analysis into ``summary.json`` (``"holter"``) and ``events.csv``;
this function runs it on any beats — a run's ``beats.csv`` after a reader's corrections, reference
annotations, another detector's beats. docs/holter.md gives every definition.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pathlib
import shutil
import tempfile
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
    family: Optional[Any] = None,
    **params: float,
) -> Dict[str, Any]:
    """The Holter analysis of beats at R-peak samples ``peaks`` (strictly increasing integers) with
    ``classes`` (a string or a sequence of ``'N'``, ``'S'``, ``'V'``, ``'Q'``, one per beat) at
    ``sample_rate`` Hz.

    ``samples`` is the recording's length (default: one sample past the last peak);
    ``af_episodes`` and ``unreadable`` are (first_beat, last_beat) pairs, or dicts with those keys
    (``zeroflow.rhythm.find_af_episodes``' episodes). ``family`` is each beat's shape family
    (beats.csv's ``family`` column; 0 the dominant shape) and adds the ``families`` list. ``params`` override :data:`HOLTER_DEFAULTS`.
    Returns summary.json's ``"holter"`` object as a dict, with every event under ``"event_list"``
    (unmeasured values are None). Raises ValueError for peaks that do not increase, a class other
    than N S V Q, episodes out of order or a parameter out of range; TypeError for an unknown
    parameter.
    """
    p = np.asarray(peaks)
    if p.ndim != 1 or not (np.issubdtype(p.dtype, np.integer) or p.size == 0):
        raise TypeError(f"peaks must be a 1-D array of integer sample indices, got {p.dtype} of shape {p.shape}")
    text = classes if isinstance(classes, str) else "".join(str(c) for c in classes)
    if samples is None:
        length = int(p.max()) + 1 if p.size else 0
    elif isinstance(samples, (int, np.integer)) and not isinstance(samples, bool) and 0 <= samples < 2**63:
        length = int(samples)
    else:
        raise ValueError(f"samples must be a whole number of samples from 0 to 2**63 - 1, got {samples!r}")
    families: list = []
    if family is not None:
        f = np.asarray(family)
        if f.ndim != 1 or not (np.issubdtype(f.dtype, np.integer) or f.size == 0):
            raise TypeError(f"family must be a 1-D array of whole numbers, got {f.dtype} of shape {f.shape}")
        if f.size and (f.min() < 0 or f.max() > np.iinfo(np.int32).max):
            raise ValueError("family numbers must be from 0 to 2**31 - 1 (beats.csv's family column)")
        families = f.astype(np.int64).tolist()
    result = _core._holter_analyse(
        p.astype(np.int64).tolist(),
        text,
        float(sample_rate),
        length,
        _stretches(af_episodes),
        _stretches(unreadable),
        families,
        dict(params),
    )
    return json.loads(result)


@contextlib.contextmanager
def _folder_lock(folder: pathlib.Path):
    """The lock `zeroflow` takes on an output folder (flock on the folder itself): no two writers."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"another zeroflow is writing into {folder}; wait for it to finish") from None
        yield
    finally:
        os.close(fd)


def correct(results: Any, corrections: Any) -> Dict[str, int]:
    """Applies a reader's corrections to the run in the folder ``results``, as ``zeroflow correct``
    does: ``corrections`` is the JSON file the report page exports (a path) or the same as a dict
    (``{"zeroflow_corrections": 1, "families": [...], "beats": [...], "af_episodes": {...}}``,
    docs/holter.md). beats.csv, beats.atr, episodes.csv, events.csv, summary.json and report.html are
    written to a folder beside them and moved in as one set (the earlier ones set aside first and put
    back if a move fails), under the folder's lock, so a failure leaves the results as they were.
    Returns ``beats_relabelled``, ``episodes_before`` and ``episodes_after``. Raises ValueError
    (zeroflow.ParseError) for a corrections file that is not one, naming what is wrong, and
    RuntimeError (zeroflow.Error) for results it does not fit or a folder another zeroflow writes.
    """
    folder = pathlib.Path(results)
    if isinstance(corrections, dict):
        text, name = json.dumps(corrections), "corrections"
    else:
        path = pathlib.Path(corrections)
        if not path.exists():
            raise FileNotFoundError(f"{path} does not exist; expected a zeroflow corrections file (JSON)")
        if not path.is_file():  # a FIFO would be waited on forever
            raise ValueError(f"{path} is not a regular file; expected a zeroflow corrections file (JSON)")
        text, name = path.read_text(encoding="utf-8", errors="replace"), str(path)
    _core._check_corrections(text, name)  # refused before anything is made in the folder
    with _folder_lock(folder):
        staging = pathlib.Path(tempfile.mkdtemp(prefix=".zeroflow-correct-", dir=folder))
        try:
            done = dict(_core._write_corrected_results(str(folder), text, name, str(staging)))
            aside = staging / ".earlier"
            aside.mkdir()
            written = [n for n in _core._corrected_result_names() if (staging / n).exists()]
            moved, replaced = [], []
            try:
                for entry in written:
                    if os.path.lexists(folder / entry):
                        os.replace(folder / entry, aside / entry)
                        replaced.append(entry)
                    os.replace(staging / entry, folder / entry)
                    moved.append(entry)
            except BaseException:
                for entry in moved:
                    os.replace(folder / entry, staging / entry)
                for entry in replaced:
                    os.replace(aside / entry, folder / entry)
                raise
            return done
        finally:
            shutil.rmtree(staging, ignore_errors=True)


__all__: Sequence[str] = ["HOLTER_DEFAULTS", "analyse", "correct"]
