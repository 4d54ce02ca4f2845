"""The pipelines in one call each.

* :func:`run` -- the ECG outlier pipeline: load, segment, train (or load a model), score, evaluate
  against labels, and optionally write ``zeroflow run``'s files (beats.csv, summary.json,
  report.html).
* :func:`run_timeseries` -- the seed-004 pipeline of ``zeroflow timeseries``: one column of a CSV
  table, min-max scaled, the notebook's MLP autoencoder, a reconstruction-error score per point
  and Tukey's fence over the scores.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Union

import numpy as np

from ._interop import Array, _core
from .signal import _DEFAULTS, Normalization

PathLike = Union[str, os.PathLike]


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


def run(
    input: PathLike,
    *,
    column: Union[str, int, None] = None,
    sample_rate: float = _DEFAULTS["sample_rate"],
    device: str = "auto",
    epochs: int = 30,
    batch: int = 1024,
    seed: int = 42,
    labels: Union[PathLike, str, None] = "auto",
    model: Optional[PathLike] = None,
    threads: int = 0,
    out: Optional[PathLike] = None,
    model_out: Optional[PathLike] = None,
    ricker_seconds: float = _DEFAULTS["ricker_seconds"],
    nms_window_seconds: float = _DEFAULTS["nms_window_seconds"],
    min_beat_seconds: float = _DEFAULTS["min_beat_seconds"],
    max_beat_seconds: float = _DEFAULTS["max_beat_seconds"],
    min_peak_ratio: float = _DEFAULTS["min_peak_ratio"],
    route_torch_memory: bool = True,
    progress: Optional[Callable[[str], None]] = None,
    max_device_memory: Union[int, str, None] = None,
) -> RunResult:
    """Runs the pipeline of ``zeroflow run`` on a CSV recording.

    Args:
        input: the CSV recording.
        column: column name or 0-based index (default: the first column).
        device: "auto" (the GPU when present), "cpu" or "cuda".
        labels: R-peak labels (sample,label) to evaluate against; "auto" takes INPUT's .labels.csv
            when it exists, None evaluates nothing.
        model: score with this saved model instead of training one.
        out: a folder to write beats.csv, summary.json and report.html into (and model.safetensors unless
            ``model_out`` says otherwise).
        model_out: where to save the trained model.
        route_torch_memory: on CUDA, make LibTorch allocate from zeroflow's pool. Only possible
            before PyTorch's first CUDA allocation in this process (zeroflow.Error otherwise: pass
            False, or call zeroflow.allocators.share_pool() first thing).
        progress: called with one line per stage and epoch.
        max_device_memory: the most device memory the run may hold at once, in bytes or as "2G",
            "512M" (``zeroflow run --max-device-memory``): the recording stays on the host and is
            segmented and scored in chunks, with the same results as without; robust segmentation
            only, at least 64M. None: no bound.
    """
    if not _core.has_torch:
        raise RuntimeError("this zeroflow was built without LibTorch (ZEROFLOW_TORCH=OFF): no pipeline")
    input = os.fspath(input)
    if labels == "auto":
        guess = os.path.splitext(input)[0] + ".labels.csv"
        labels = guess if os.path.exists(guess) else None
    if model_out is None and out is not None and model is None:
        model_out = os.path.join(os.fspath(out), "model.safetensors")
    d = _core._run(
        input,
        "" if column is None else str(column),
        sample_rate,
        ricker_seconds,
        nms_window_seconds,
        min_beat_seconds,
        max_beat_seconds,
        min_peak_ratio,
        device,
        epochs,
        batch,
        seed,
        labels,
        model,
        threads,
        route_torch_memory,
        progress,
        "" if model_out is None else os.fspath(model_out),
        None if out is None else os.fspath(out),
        max_device_memory=max_device_memory,
    )
    return RunResult(**d)


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
    """
    if not _core.has_torch:
        raise RuntimeError("this zeroflow was built without LibTorch (ZEROFLOW_TORCH=OFF): no pipeline")
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
    )
    for name in ("value", "scaled", "reconstruction", "score", "outlier"):
        d[name] = np.from_dlpack(d[name])
    if d["label"] is not None:
        d["label"] = np.from_dlpack(d["label"])
    return TimeseriesResult(**d)
