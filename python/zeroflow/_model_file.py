"""zeroflow's model files (``model.safetensors``) from Python: read and written with the standard
library and NumPy, so any framework's weights can become a model ``zeroflow score`` reads.

The file is safetensors (a u64 little-endian header length, a JSON header, the raw tensors); its
``__metadata__`` records the model kind, its width, how its rows were made and its history, and a
checksum of all of it. include/zeroflow/model/model_file.hpp documents every entry, and
include/zeroflow/io/safetensors.hpp the checksum, which :func:`checksum` computes the same way.
"""

from __future__ import annotations

import json
import os
import struct
import uuid
from typing import Any, Dict, Mapping, Optional, Tuple, Union

import numpy as np

PathLike = Union[str, os.PathLike]

FORMAT = "zeroflow-model"
VERSION = "3"
_DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32}


def _fnv1a(data: bytes, h: int) -> int:
    # 64-bit FNV-1a; each step depends on the last, and a model file is tens of KB, so a plain
    # loop is fast enough.
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def checksum(metadata: Mapping[str, str], tensors: Mapping[str, Tuple[str, Tuple[int, ...], bytes]]) -> str:
    """io::content_checksum: every metadata entry but ``checksum`` (key order), then every tensor
    (name order) as name, dtype, sizes joined by ',', each followed by NUL, then its bytes."""
    h = 0xCBF29CE484222325
    for key in sorted(metadata):
        if key == "checksum":
            continue
        h = _fnv1a(key.encode() + b"\0" + metadata[key].encode() + b"\0", h)
    for name in sorted(tensors):
        dtype, shape, data = tensors[name]
        h = _fnv1a(name.encode() + b"\0" + dtype.encode() + b"\0" + ",".join(map(str, shape)).encode() + b"\0", h)
        h = _fnv1a(data, h)
    return f"fnv1a64:{h:016x}"


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
    ("robust" or "seed"), normalized, window_before, window_after, min_length, max_length."""
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
    parts: Dict[str, Tuple[str, Tuple[int, ...], bytes]] = {}
    for name, value in weights.items():
        a = _as_numpy(value).astype("<f4", copy=False)
        parts[name] = ("F32", tuple(int(d) for d in a.shape), a.tobytes())
    meta = {k: v for k, v in meta.items() if k != "checksum"}
    meta["checksum"] = checksum(meta, parts)
    header: Dict[str, Any] = {"__metadata__": meta}
    offset = 0
    for name, (dtype, shape, data) in parts.items():
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(data for _, _, data in parts.values())


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
    """The metadata and the tensors (NumPy arrays) of a model file, checksum verified.

    Raises:
        ValueError: the file is not a zeroflow model file of format 3, or it is damaged.
    """
    path = os.fspath(path)
    data = open(path, "rb").read()
    try:
        (n,) = struct.unpack("<Q", data[:8])
        if n > len(data) - 8:
            raise ValueError("its header length does not fit the file")
        header = json.loads(data[8 : 8 + n])
        meta = header.pop("__metadata__", {})
        body = data[8 + n :]
        tensors: Dict[str, np.ndarray] = {}
        parts: Dict[str, Tuple[str, Tuple[int, ...], bytes]] = {}
        for name, entry in header.items():
            begin, end = entry["data_offsets"]
            raw = body[begin:end]
            shape = tuple(int(d) for d in entry["shape"])
            parts[name] = (entry["dtype"], shape, raw)
            tensors[name] = np.frombuffer(raw, dtype=np.dtype(_DTYPES[entry["dtype"]]).newbyteorder("<")).reshape(shape)
    except (ValueError, KeyError, TypeError, struct.error) as e:
        raise ValueError(f"{path} is not a zeroflow model file or is damaged ({e})") from None
    if meta.get("format") != FORMAT:
        raise ValueError(f"{path} is not a zeroflow model file (its metadata has no format '{FORMAT}')")
    if meta.get("checksum") != checksum(meta, parts):
        raise ValueError(f"{path} is damaged (its checksum does not match)")
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
