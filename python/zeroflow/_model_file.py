"""zeroflow's LightVAE model file (``model.pt``) from PyTorch weights, for models trained outside
zeroflow's own trainer (zeroflow.population's data-parallel training).

The file is a LibTorch archive followed by a 32-byte trailer (its length, the FNV-1a hash of the
archive, the format number, ``ZEROFLOW``; src/model/vae_file.hpp). Rather than build that archive
here, a model is first written by zeroflow itself (:meth:`zeroflow.model.VAE.save`, so every entry
and name is the C++ writer's), then only the values of named entries are replaced and the trailer
recomputed. zeroflow's reader then verifies the result like any other model file.
"""

from __future__ import annotations

import io
import os
import struct
import tempfile
import uuid
import warnings
from typing import Dict, Mapping, Union

PathLike = Union[str, os.PathLike]
_MAGIC = b"ZEROFLOW"
_TRAILER = 32


def _fnv1a(data: bytes) -> int:
    # 64-bit FNV-1a, as the C++ writer computes it; each step depends on the last, and a model file
    # is tens of KB, so a plain loop is fast enough.
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def read_archive(path: PathLike) -> bytes:
    """The LibTorch archive inside a zeroflow model file (trailer checked)."""
    data = open(os.fspath(path), "rb").read()
    if len(data) < _TRAILER or data[-8:] != _MAGIC:
        raise ValueError(f"{os.fspath(path)} is not a zeroflow model file")
    length, digest, _format = struct.unpack("<QQQ", data[-_TRAILER:-8])
    if length != len(data) - _TRAILER or _fnv1a(data[:length]) != digest:
        raise ValueError(f"{os.fspath(path)} is damaged (its checksum does not match)")
    return data[:length]


def _load(archive: bytes):
    import torch

    # LibTorch's C++ archives are TorchScript containers; torch.jit is the Python reader of that
    # format (deprecated for new models, not for reading these).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return torch.jit.load(io.BytesIO(archive), map_location="cpu")


def state_of(path: PathLike) -> Dict[str, "torch.Tensor"]:  # noqa: F821
    """Every named entry of a model file (metadata and weights) as CPU tensors."""
    module = _load(read_archive(path))
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def rewrite(template: PathLike, values: Mapping[str, "torch.Tensor"], out: PathLike) -> None:  # noqa: F821
    """Writes `out`: the model file `template` with the entries named in `values` replaced (same
    shape and dtype, or ValueError), atomically (a temporary file beside `out`, renamed)."""
    import torch

    module = _load(read_archive(template))
    entries = module.state_dict()
    unknown = sorted(set(values) - set(entries))
    if unknown:
        raise ValueError(f"the model file has no entries {', '.join(unknown)}")
    with torch.no_grad():
        for name, value in values.items():
            target = entries[name]
            value = torch.as_tensor(value).detach().to("cpu")
            if tuple(value.shape) != tuple(target.shape):
                raise ValueError(f"entry {name}: shape {tuple(value.shape)}, the model's is {tuple(target.shape)}")
            target.copy_(value.to(target.dtype))
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.save(module, buffer)
    archive = buffer.getvalue()
    fmt = struct.unpack("<Q", open(os.fspath(template), "rb").read()[-16:-8])[0]
    content = archive + struct.pack("<QQQ", len(archive), _fnv1a(archive), fmt) + _MAGIC
    out = os.fspath(out)
    folder = os.path.dirname(os.path.abspath(out))
    tmp = os.path.join(folder, f".{os.path.basename(out)}.tmp-{uuid.uuid4().hex[:12]}")
    try:
        with open(tmp, "wb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def temporary_template(width: int, seed: int) -> str:
    """A fresh zeroflow LightVAE (initial weights of `seed`) saved by zeroflow into a temporary file."""
    from .model import VAE

    fd, path = tempfile.mkstemp(suffix=".pt", prefix="zeroflow-template-")
    os.close(fd)
    VAE(width, "cpu", seed).save(path)
    return path
