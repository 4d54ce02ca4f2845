"""The pipelines in one call each.

* :func:`run` -- the ECG outlier pipeline of ``zeroflow run`` and ``zeroflow score``: load, segment,
  train (or load a model), score, classify, evaluate against labels, and optionally write the
  command's files (beats.csv, summary.json, report.html, figures).
* :func:`run_timeseries` -- the seed-004 pipeline of ``zeroflow timeseries``: one column of a CSV
  table, min-max scaled, the notebook's MLP autoencoder, a reconstruction-error score per point
  and Tukey's fence over the scores.

Every option of ``zeroflow run`` and ``zeroflow score`` is a keyword argument of :func:`run` (and a
field of :class:`RunOptions`), under the library's name for it: the names, defaults, ranges and help
come from the library's table of run options (``zeroflow/pipeline/run_option_table.hpp``), so the
command line and Python cannot drift apart. An option left at ``None`` takes the library's default.
:func:`run`'s typed signature and :class:`RunOptions` are generated from that table
(``_run_keywords.py``, written by ``scripts/generate-run-keywords``); :func:`_run_impl` does the run.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from ._interop import Array, _core
from ._run_keywords import RunOptions, run
from .signal import Normalization

PathLike = Union[str, os.PathLike]

#: The library's table of run options: one dict per option (name, flags, kind, use, default,
#: range, unit, choices, help, group), in the order ``zeroflow run --help`` lists them.
OPTION_TABLE: List[Dict[str, Any]] = _core._run_option_table()
_BY_NAME = {o["name"]: o for o in OPTION_TABLE}

# RunOptions (run options as one object, for settings kept and reused: ``run(path, RunOptions(...))``;
# a field left at None takes the library's default) and run() are generated from the library's table
# (_run_keywords.py, imported above). They belong to this module, as before: help(zeroflow.pipeline)
# lists them, and pickles and documentation name them zeroflow.pipeline.RunOptions and .run.
RunOptions.__module__ = __name__
run.__module__ = __name__


def _as_text(name: str, value: Any) -> str:
    """A Python value as the library reads the option's value (the command line's text)."""
    kind = _BY_NAME[name]["kind"]
    if kind == "bool":
        if not isinstance(value, bool):
            raise TypeError(f"{name}= takes True or False, not {value!r}")
        return "true" if value else "false"
    if kind in ("path",) or isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, bool) or (kind in ("int", "float") and not isinstance(value, (int, float, str))):
        raise TypeError(f"{name}= takes a number, not {value!r}")
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _given(options: Any, keywords: Dict[str, Any]) -> List[Tuple[str, str]]:
    """The options a call sets, as (name, value text), for the library to check and apply."""
    chosen: Dict[str, Any] = {}
    if options is not None:
        if not isinstance(options, RunOptions):
            raise TypeError(f"options= takes a zeroflow.pipeline.RunOptions, not {type(options).__name__}")
        chosen.update({k: v for k, v in dataclasses.asdict(options).items() if v is not None})
    if "column" in keywords:  # the older name of lead
        keywords = dict(keywords)
        keywords.setdefault("lead", keywords.pop("column"))
    for name, value in keywords.items():
        if name not in _BY_NAME:
            raise TypeError(
                f"run() got an unexpected keyword argument {name!r}; the run options are " + ", ".join(_BY_NAME)
            )
        if value is not None:
            chosen[name] = value
    return [(name, _as_text(name, value)) for name, value in chosen.items()]


@dataclass
class RunResult:
    """What :func:`run` returns: per-candidate arrays (host), the training curve and the summary.

    Per beat candidate (a span between two consecutive gate positions): ``start``, ``peak``,
    ``length`` (int64 samples), ``kept`` (bool), ``split`` (int8: 1 train, 2 test, 0 not kept),
    ``score``, ``mu0``, ``mu1`` (float32, NaN where not kept). ``summary`` is summary.json's content.
    """

    summary: Dict[str, Any]
    input: str
    device: str
    samples: int
    sample_rate: float
    row_width: int
    norm: Normalization
    start: Array
    peak: Array
    length: Array
    kept: Array
    split: Array
    score: Array
    mu0: Array
    mu1: Array
    histogram: Array
    detected_peaks: Array
    decoded_grid: Array
    epoch_loss: List[float]
    test_loss: float
    trained: bool
    stages_ms: Dict[str, float]
    peak_host_bytes: int
    peak_device_bytes: int
    model_file: str


run.__annotations__["return"] = RunResult  # the generated module names it only for type checkers


def _run_impl(
    input: PathLike,
    options: Optional[RunOptions],
    *,
    out: Optional[PathLike],
    model_out: Optional[PathLike],
    figures: str,
    progress: Optional[Callable[[str], None]],
    keywords: Dict[str, Any],
) -> RunResult:
    """:func:`run`'s body: `keywords` holds the run options given (by their names, and ``column``),
    ``labels`` only when given (None among them: evaluate nothing)."""
    if figures not in ("none", "png"):
        raise ValueError(f"figures={figures!r}: expected 'none' or 'png'")
    input = os.fspath(input)
    # Labels not mentioned are those beside the recording, as zeroflow run finds them; None: none.
    if "labels" not in keywords and (options is None or getattr(options, "labels", None) is None):
        keywords = dict(keywords, labels="auto")
    if keywords.get("labels") == "auto":
        keywords = dict(keywords, labels=_core._labels_beside(input))
    given = _given(options, keywords)
    if model_out is None and out is not None and not any(name == "model" for name, _ in given):
        model_out = os.path.join(os.fspath(out), "model.safetensors")
    if out is not None:
        os.makedirs(os.fspath(out), exist_ok=True)
    d = _core._run(
        input,
        given,
        progress,
        "" if model_out is None else os.fspath(model_out),
        None if out is None else os.fspath(out),
        png_figures=figures == "png",
    )
    return RunResult(**d)


def _option_lines() -> str:
    lines = []
    group = None
    for o in OPTION_TABLE:
        if o["group"] != group:
            group = o["group"]
            lines.append(f"    {group.capitalize()}:")
        default = o["default"] if o["default"] != "" else "none"
        extra = f"; {o['range']}" if o["range"] else ""
        lines.append(f"        {o['name']}: {o['help']} (default: {default}{extra})")
    return "\n".join(lines)


run.__doc__ = f"""Runs the pipeline of ``zeroflow run`` (training) or ``zeroflow score`` (``model=``) on a recording.

    Args:
        input: the recording: CSV, WFDB (NAME.hea), EDF/EDF+ or raw samples (.f32, .i16, .i32).
        options: a :class:`RunOptions` whose set fields apply first; keyword arguments override them.
        out: a folder to write beats.csv, summary.json, report.html (and model.safetensors unless
            ``model_out`` says otherwise) into; made when missing.
        model_out: where to save the trained model.
        figures: "png" also writes the report's figures to ``out/figures/*.png``.
        progress: called with one line per stage and epoch.
        run options: the keyword-only parameters below, each None (the default) or a value;
            their signature is generated from the library's table. With ``labels`` left at its
            default ``"auto"`` (unless ``options`` names labels), or given as ``"auto"``, the labels
            beside the recording (NAME.atr, else NAME.labels.csv) are evaluated against, as
            ``zeroflow run`` does; ``labels=None`` evaluates nothing. ``column`` is an older name
            of ``lead``. An unknown keyword raises TypeError.

    Run options (the library's table; ``zeroflow run --help`` lists the same):
{_option_lines()}

    Raises:
        ValueError: a value an option does not take, or options that contradict each other; the
            message names the option as ``name=``.
    """


@dataclass
class TimeseriesResult:
    """What :func:`run_timeseries` returns: per-point NumPy arrays, the threshold and the summary.

    Per row of the table: ``value`` (as read), ``scaled`` (min-max scaled to [0, 1]),
    ``reconstruction`` (the model's), ``score`` (squared reconstruction error of the scaled
    value; higher = more anomalous), all float32, and ``outlier`` (bool: score > threshold).
    ``threshold`` is Tukey's fence ``q3 + 1.5 (q3 - q1)`` over the scores. ``label`` (bool) marks
    the rows labelled anomalous in the column when labels were given, else None. ``summary`` is
    the content of ``zeroflow timeseries``'s summary.json (without the writing stage).
    """

    summary: Dict[str, Any]
    column: str
    device: str
    value: np.ndarray
    scaled: np.ndarray
    reconstruction: np.ndarray
    score: np.ndarray
    outlier: np.ndarray
    label: Optional[np.ndarray]
    threshold: float
    q1: float
    q3: float
    epoch_loss: List[float]
    stages_ms: Dict[str, float]


def run_timeseries(
    input: PathLike,
    *,
    column: Union[str, int],
    device: str = "auto",
    epochs: int = 100,
    batch: int = 0,
    learning_rate: float = 0.01,
    weight_decay: float = 1e-5,
    seed: int = 42,
    labels: Union[PathLike, str, None] = "auto",
    progress: Optional[Callable[[str], None]] = None,
    io: str = "auto",
) -> TimeseriesResult:
    """Runs the seed-004 pipeline of ``zeroflow timeseries`` on one column of a CSV table.

    The same computation as the command (the library's ``pipeline::run_timeseries``): the
    column is read onto the device, min-max scaled there, the notebook's MLP autoencoder
    (1-32-32-32-1) trains on it, and every point is scored and flagged.

    Args:
        input: the CSV table (with a header; one row per point in time).
        column: the column's name, or its 0-based index.
        device: "auto" (the GPU when present), "cpu" or "cuda".
        epochs: training epochs (the notebook: 100).
        batch: rows per Adam step; 0: every row in one step, as the notebook.
        learning_rate: Adam's learning rate.
        weight_decay: Adam's L2 weight decay.
        seed: seeds the initial weights (and the shuffles of a batched training).
        labels: anomaly labels (row,datetime,column,kind) to evaluate against; "auto" takes
            INPUT's .labels.csv when it exists, None evaluates nothing.
        progress: called with one line per stage as it ends.
        io: how the table's bytes reach a GPU: "auto", "kvikio", "posix" or "mmap" (as ``--io``).
    """
    input = os.fspath(input)
    if labels == "auto":
        guess = os.path.splitext(input)[0] + ".labels.csv"
        labels = guess if os.path.exists(guess) else None
    d = _core._run_timeseries(
        input,
        str(column),
        device,
        int(epochs),
        int(batch),
        float(learning_rate),
        float(weight_decay),
        int(seed),
        None if labels is None else os.fspath(labels),
        progress,
        io=io,
    )
    for name in ("value", "scaled", "reconstruction", "score", "outlier"):
        d[name] = np.from_dlpack(d[name])
    if d["label"] is not None:
        d["label"] = np.from_dlpack(d["label"])
    return TimeseriesResult(**d)
