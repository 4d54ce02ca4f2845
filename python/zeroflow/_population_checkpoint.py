"""Checkpoints of a population run (:mod:`zeroflow.population`): what it takes to continue an
interrupted run so that it ends exactly where an uninterrupted one would, and the checks that a
resumed run is the same run.

A checkpoint holds the weights, Adam's state, the shared generator's state, the epochs done and
their losses, the number of beats, and the run's settings (its fingerprint): the recordings in order
with their sizes, the seed, the global batch, the learning rate, the test fraction, the sample rate,
the lead and the epochs in all. Only the epochs may be raised on resume; the number of processes
may change, because every process holds the same state and a global batch does not depend on it.

The file is ``torch.save`` of plain containers, numbers, strings and tensors, read back with
``torch.load(weights_only=True)``, which builds no other objects, so reading one is as safe as
reading safetensors. safetensors itself is not a run-time dependency of zeroflow (only the tests'
reference reader), and it holds flat tensors and string metadata only, whereas Adam's state is
nested; torch, which trains the model, is always there.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any, Dict, List, Mapping, Optional, Sequence

import torch

FORMAT = "zeroflow-population-checkpoint"
VERSION = 1

# The settings a resumed run must share with the interrupted one, in the order they are checked,
# with the words an error message names them by.
_SETTING_NAMES = {
    "seed": "seed",
    "batch": "global batch",
    "learning_rate": "learning rate",
    "test_fraction": "test fraction",
    "sample_rate": "sample rate",
    "lead": "lead",
}


def default_path(out: "os.PathLike[str] | str") -> str:
    """Where a run that writes the model file `out` keeps its checkpoint unless told otherwise."""
    return os.fspath(out) + ".checkpoint"


def _size(path: str) -> int:
    # A missing or unreadable recording is skipped by the run, not fatal, so it is fingerprinted too.
    try:
        return os.path.getsize(path)
    except OSError:
        return -1


def settings(
    paths: Sequence[str],
    *,
    seed: int,
    batch: int,
    learning_rate: float,
    test_fraction: float,
    sample_rate: Optional[float],
    column: Any,
    epochs: int,
) -> Dict[str, Any]:
    """The fingerprint of a run: the settings its result depends on (how many processes share the
    work is not one of them)."""
    return {
        "recordings": [[os.path.abspath(p), _size(p)] for p in paths],
        "seed": int(seed),
        "batch": int(batch),
        "learning_rate": float(learning_rate),
        "test_fraction": float(test_fraction),
        "sample_rate": None if sample_rate is None else float(sample_rate),
        "lead": column,
        "epochs": int(epochs),
    }


def _shown(value: Any) -> str:
    return "the default" if value is None else repr(value)


def _difference(saved: Mapping[str, Any], now: Mapping[str, Any]) -> Optional[str]:
    """What differs between the checkpoint's settings and this run's (the first difference), or None."""
    was: List[List[Any]] = saved["recordings"]
    new: List[List[Any]] = now["recordings"]
    if len(was) != len(new):
        return f"it was written by a run over {len(was)} recordings, and this run has {len(new)}"
    for i, ((path_was, size_was), (path_now, size_now)) in enumerate(zip(was, new)):
        if path_was != path_now:
            return f"recording {i + 1} was {path_was} and is now {path_now}"
        if size_was != size_now:
            return f"{path_now} has changed since ({size_was} bytes then, {size_now} now)"
    for key, name in _SETTING_NAMES.items():
        if saved[key] != now[key]:
            return f"the {name} differs ({_shown(saved[key])} then, {_shown(now[key])} now)"
    if now["epochs"] < saved["epochs"]:
        return f"it was written by a run of {saved['epochs']} epochs; resuming may raise --epochs, not lower it to {now['epochs']}"
    return None


def read(path: str) -> Dict[str, Any]:
    """The state a checkpoint holds.

    Raises:
        ValueError: the file is not a population checkpoint of this version, or it is damaged.
    """
    with open(path, "rb") as f:  # a file that cannot be opened is an OSError, as anywhere
        try:
            state = torch.load(f, map_location="cpu", weights_only=True)
        except Exception as e:  # noqa: BLE001  (the reader's errors have many types, OSError too; all mean damaged)
            raise ValueError(f"{path} is not a zeroflow population checkpoint or is damaged ({e})") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError(f"{path} is not a zeroflow population checkpoint")
    if state.get("format_version") != VERSION:
        raise ValueError(
            f"{path} is a population checkpoint of version {state.get('format_version')}; this zeroflow "
            f"reads version {VERSION}"
        )
    # Every field a resumed run reads, with its kind: a checkpoint without one is damaged, and says
    # so in one line rather than failing deep inside the resume.
    fields = {"settings": dict, "beats": int, "epochs_done": int, "epoch_loss": list, "model": dict,
              "optimizer": dict, "generator": torch.Tensor}  # fmt: skip
    for name, kind in fields.items():
        if not isinstance(state.get(name), kind):
            raise ValueError(
                f"{path} is a damaged population checkpoint: its '{name}' field is missing or not a {kind.__name__}"
            )
    for name in ("recordings", "epochs", *_SETTING_NAMES):
        if name not in state["settings"]:
            raise ValueError(f"{path} is a damaged population checkpoint: its settings have no '{name}'")
    return state


def start(path: str, now: Mapping[str, Any], *, resume: bool, force: bool) -> Optional[Dict[str, Any]]:
    """The checkpoint a run continues from (`resume`), or None when it starts from the beginning.

    Raises:
        ValueError: `resume` without a checkpoint, or with one of a run of other settings; a
            checkpoint that neither `resume` nor `force` says what to do with.
    """
    if not refuse_or_resume(path, resume=resume, force=force):
        return None
    state = read(path)
    why = _difference(state["settings"], now)
    if why:
        raise ValueError(
            f"cannot resume from {path}: {why}; resume with the interrupted run's settings, or give "
            "--force (without --resume) to start over"
        )
    return state


def refuse_or_resume(path: str, *, resume: bool, force: bool) -> bool:
    """Whether a run resumes from the checkpoint at `path` (whichever trainer wrote it).

    Raises:
        ValueError: `resume` without a checkpoint; a checkpoint that neither `resume` nor `force`
            says what to do with.
    """
    exists = os.path.exists(path)
    if resume:
        if not exists:
            raise ValueError(f"nothing to resume: {path} does not exist (a run deletes it when it finishes)")
        return True
    if exists and not force:
        raise ValueError(f"an interrupted run left {path}: add --resume to continue it, or --force to start over")
    return False


def _on_cpu(value: Any) -> Any:
    # Device tensors leave as host copies, so that a checkpoint resumes on any device.
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: _on_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_on_cpu(v) for v in value)
    return value


def snapshot(
    run_settings: Mapping[str, Any],
    beats: int,
    epoch_loss: Sequence[float],
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    generator: torch.Generator,
) -> Dict[str, Any]:
    """The state of a run after ``len(epoch_loss)`` epochs, as :func:`write` stores it."""
    return {
        "format": FORMAT,
        "format_version": VERSION,
        "settings": dict(run_settings),
        "beats": int(beats),
        "epochs_done": len(epoch_loss),
        "epoch_loss": [float(x) for x in epoch_loss],
        "model": _on_cpu(model.state_dict()),
        "optimizer": _on_cpu(optimizer.state_dict()),
        "generator": generator.get_state(),
    }


def _temporary(path: str) -> str:
    # One fixed name: a write cut short leaves one stray file, which the next write replaces.
    return os.path.join(os.path.dirname(os.path.abspath(path)), f".{os.path.basename(path)}.tmp")


def write(path: str, state: Mapping[str, Any]) -> None:
    """Writes `state` to `path` atomically: a reader (or a run killed at any moment) finds the
    previous checkpoint or this one, never part of one."""
    tmp = _temporary(path)
    with open(tmp, "wb") as f:
        torch.save(dict(state), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _is_library_checkpoint(path: str) -> bool:
    """Whether `path` is the GPU trainer's checkpoint: a safetensors file whose metadata says so."""
    try:
        with open(path, "rb") as f:
            (length,) = struct.unpack("<Q", f.read(8))
            if not 2 <= length <= 1 << 20:
                return False
            header = json.loads(f.read(length))
        return isinstance(header, dict) and header.get("__metadata__", {}).get("format") == FORMAT
    except (OSError, ValueError, struct.error, AttributeError):
        return False


def discard(path: str) -> None:
    """Removes a checkpoint (and a stray temporary file of it): its run has finished or starts over.

    Raises:
        ValueError: `path` is no population checkpoint of either trainer. Only a file a run wrote
            is ever removed: a recording or a model given as --checkpoint stays where it is.
    """
    if os.path.exists(path) and not _is_library_checkpoint(path):
        try:
            read(path)
        except ValueError as e:
            if "damaged population checkpoint" not in str(e) and "of version" not in str(e):
                raise ValueError(
                    f"{path} is not a zeroflow population checkpoint; --force starts over by removing only a "
                    "checkpoint a run left: give another --checkpoint"
                ) from None
    for p in (path, _temporary(path)):
        if os.path.exists(p):
            os.remove(p)
