"""The checkpoint of a population run (:mod:`zeroflow.population`, ``zeroflow train-population``):
the library's file (src/model/population_checkpoint.hpp), one format for the CPU and GPUs, one
process or many. The trainer writes, reads and verifies it; this module holds what a run checks
before it starts (a checkpoint left by an interrupted run is continued only when asked, and
--force removes only a file a run wrote) and reads one back for people and tests.

The file is safetensors: tensors ``weights``, ``exp_avg``, ``exp_avg_sq`` (float32) and
``epoch_loss`` (float64); metadata ``format`` "zeroflow-population-checkpoint", ``epochs_done``,
``adam_step``, ``noise_step`` and the settings the steps depend on (width, rows, rows_identity,
seed, batch, learning_rate, test_fraction).
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any, Dict, Optional

import numpy as np

FORMAT = "zeroflow-population-checkpoint"

_DTYPES = {"F32": np.float32, "F64": np.float64}


def default_path(out: "os.PathLike[str] | str") -> str:
    """Where a run that writes the model file `out` keeps its checkpoint unless told otherwise."""
    return os.fspath(out) + ".checkpoint"


def _header(path: str) -> Optional[Dict[str, Any]]:
    """The safetensors header of `path` (None when it is not a safetensors file)."""
    try:
        with open(path, "rb") as f:
            (length,) = struct.unpack("<Q", f.read(8))
            if not 2 <= length <= 1 << 24:
                return None
            header = json.loads(f.read(length))
        return header if isinstance(header, dict) else None
    except (OSError, ValueError, struct.error):
        return None


def is_checkpoint(path: str) -> bool:
    """Whether `path` is a population checkpoint: a safetensors file whose metadata says so."""
    header = _header(path)
    meta = header.get("__metadata__") if header else None
    return isinstance(meta, dict) and meta.get("format") == FORMAT


def prepare(path: str, *, resume: bool, force: bool) -> None:
    """The checks before a run starts, as ``zeroflow train-population`` makes them.

    Raises:
        ValueError: a checkpoint is there and neither `resume` nor `force` was given; `force` would
            remove a file that is no population checkpoint; `resume` without a checkpoint.
    """
    there = os.path.exists(path)
    if resume:
        if not there:
            raise ValueError(f"resume: there is no checkpoint {path} to continue from")
        return
    if not there:
        return
    if not force:
        raise ValueError(f"an interrupted run left {path}: add --resume to continue it, or --force to start over")
    if not is_checkpoint(path):
        raise ValueError(
            f"{path} is not a zeroflow population checkpoint; --force starts over by replacing only a checkpoint "
            "a run left: give another --checkpoint"
        )
    os.remove(path)


def read(path: str) -> Dict[str, Any]:
    """A checkpoint's metadata (epochs_done, adam_step, noise_step and the settings, as numbers where
    they are numbers) and its tensors as NumPy arrays (weights, exp_avg, exp_avg_sq, epoch_loss).

    Raises:
        ValueError: `path` is no population checkpoint. (The trainer verifies the checksum.)
    """
    header = _header(path)
    if header is None or not is_checkpoint(path):
        raise ValueError(f"{path} is not a zeroflow population checkpoint")
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        f.seek(8 + length)
        body = f.read()
    out: Dict[str, Any] = {}
    for key, value in header["__metadata__"].items():
        try:
            out[key] = int(value)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                out[key] = value
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(body[start:end], dtype=_DTYPES[info["dtype"]]).reshape(info["shape"]).copy()
    out["epoch_loss"] = [float(v) for v in out.get("epoch_loss", [])]
    return out
