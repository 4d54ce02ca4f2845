"""zeroflow's model files (``model.safetensors``) from Python, read, checked and sealed by zeroflow's
own reader and writer (include/zeroflow/model/model_file.hpp, through the compiled core), so any
framework's weights can become a model ``zeroflow score`` reads and every file is judged alike.

The file is safetensors (a u64 little-endian header length, a JSON header, the raw tensors); its
``__metadata__`` records the model kind, its width, how its rows were made and its history, and a
checksum of all of it. include/zeroflow/model/model_file.hpp documents every entry, and
include/zeroflow/io/safetensors.hpp the checksum.
"""

from __future__ import annotations

import os
import uuid
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

from ._interop import _core

PathLike = Union[str, os.PathLike]

FORMAT = "zeroflow-model"
VERSION = "3"
_DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32}


def _parts(tensors: Mapping[str, Tuple[str, Tuple[int, ...], bytes]]) -> List[Tuple[str, str, List[int], bytes]]:
    return [(name, dtype, [int(d) for d in shape], bytes(data)) for name, (dtype, shape, data) in tensors.items()]


def checksum(metadata: Mapping[str, str], tensors: Mapping[str, Tuple[str, Tuple[int, ...], bytes]]) -> str:
    """io::content_checksum of a model file's content: ``tensors`` maps a name to (dtype, shape, bytes);
    every metadata entry but ``checksum`` counts."""
    return _core._model_file_checksum(dict(metadata), _parts(tensors))


def metadata(
    model: str,
    width: int,
    *,
    rows: Optional[Mapping[str, Any]] = None,
    init_seed: int = 42,
    train_seed: Optional[int] = None,
    epochs: int = 0,
) -> Dict[str, str]:
    """The shared metadata entries (no checksum). ``rows``: sample_rate, segmentation
    ("robust" or "gate-to-gate"), normalized, window_before, window_after, min_length, max_length."""
    m = {"format": FORMAT, "format_version": VERSION, "model": model, "width": str(int(width))}
    if rows is not None:
        m["rows.sample_rate"] = repr(float(rows["sample_rate"]))
        m["rows.segmentation"] = str(rows["segmentation"])
        m["rows.normalized"] = "1" if rows.get("normalized", True) else "0"
        for key in ("window_before", "window_after", "min_length", "max_length"):
            m[f"rows.{key}"] = str(int(rows.get(key, 0)))
    m["init_seed"] = str(int(init_seed))
    if train_seed is not None:
        m["train_seed"] = str(int(train_seed))
    m["epochs"] = str(int(epochs))
    return m


def _as_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor, on any device
        value = value.detach().cpu().numpy()
    return np.ascontiguousarray(value)


def file_bytes(weights: Mapping[str, Any], meta: Mapping[str, str]) -> bytes:
    """A sealed model file: float32 ``weights`` (name -> array or tensor) and ``meta`` plus its checksum."""
    parts = []
    for name, value in weights.items():
        a = _as_numpy(value).astype("<f4", copy=False)
        parts.append((name, "F32", [int(d) for d in a.shape], a.tobytes()))
    return _core._seal_model_file(dict(meta), parts)


def write(path: PathLike, weights: Mapping[str, Any], meta: Mapping[str, str]) -> None:
    """Writes :func:`file_bytes` atomically (a temporary file beside ``path``, renamed)."""
    content = file_bytes(weights, meta)
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.tmp-{uuid.uuid4().hex[:12]}")
    try:
        with open(tmp, "wb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def read(path: PathLike) -> Tuple[Dict[str, str], Dict[str, np.ndarray]]:
    """The metadata and the tensors (NumPy arrays) of a model file, after every check of zeroflow's
    reader (format name and version, checksum, shared metadata).

    Raises:
        ValueError: the file is not a zeroflow model file of format 3, or it is damaged.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    try:
        meta, parts = _core._open_model_file(data)
        tensors: Dict[str, np.ndarray] = {}
        for name, dtype, shape, raw in parts:
            if dtype not in _DTYPES:
                raise ValueError(f"its tensor {name} is of type {dtype}, not one of {', '.join(_DTYPES)}")
            tensors[name] = np.frombuffer(raw, dtype=np.dtype(_DTYPES[dtype]).newbyteorder("<")).reshape(shape)
    except ValueError as e:
        raise ValueError(f"{path} is not a zeroflow model file or is damaged ({e})") from None
    return meta, tensors


def template_weights(width: int, seed: int) -> Dict[str, np.ndarray]:
    """zeroflow's initial LightVAE weights for ``seed`` (drawn by zeroflow itself)."""
    import tempfile

    from .model import VAE

    fd, path = tempfile.mkstemp(suffix=".safetensors", prefix="zeroflow-template-")
    os.close(fd)
    try:
        VAE(width, "cpu", seed).save(path)
        return {k: v.copy() for k, v in read(path)[1].items()}
    finally:
        os.remove(path)
