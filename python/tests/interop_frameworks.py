"""The frameworks of the interop matrix (the seed talk's cheat sheet, through zeroflow): how to make
an array in each, find its data pointer, read it back as NumPy, and the one-line recipes that move
it into zeroflow and out again. Used by test_interop_matrix.py and scripts/interop-matrix."""

from __future__ import annotations

import importlib
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

import zeroflow as zf


def np_pointer(x: np.ndarray) -> Optional[int]:
    return x.__array_interface__["data"][0] if x.size else None


@dataclass
class Framework:
    name: str
    device: str  #: "cpu" or "cuda"
    module: str  #: what must import for the row to run
    make: Callable[[np.ndarray], Any]  #: a native array holding these values
    pointer: Callable[[Any], Optional[int]]  #: address of element 0 (None: no data)
    to_numpy: Callable[[Any], np.ndarray]
    to_zeroflow: Callable[[Any], Any]  #: the import recipe
    from_zeroflow: Callable[[Any], Any]  #: the export recipe
    import_recipe: str
    export_recipe: str
    untested: str = ""  #: why the row is kept but never run

    def unavailable(self) -> str:
        """Why this framework cannot run here ('' when it can)."""
        if self.untested:
            return self.untested
        try:
            importlib.import_module(self.module)
        except Exception as error:  # ImportError, or a broken install
            if self.name == "MXNet":
                return (
                    "not installable: mxnet 1.9.1, the last release, requires numpy < 2 "
                    f"(`pip install mxnet` would downgrade numpy) [{type(error).__name__}]"
                )
            return f"not installed ({type(error).__name__}: {error})"
        if self.device == "cuda" and not zf.cuda_available():
            return "needs a GPU and a CUDA build of zeroflow"
        return ""


# ---- CPU frameworks ------------------------------------------------------------------------------


def _pandas_make(x):
    import pandas as pd

    return pd.Series(x) if x.ndim == 1 else pd.DataFrame(x)


def _pandas_from_zeroflow(a):
    import pandas as pd

    values = np.asarray(a)
    return pd.Series(values, copy=False) if values.ndim == 1 else pd.DataFrame(values, copy=False)


def _pandas_to_zeroflow(obj):
    return zf.asarray(obj) if obj.ndim == 1 else zf.asarray(obj.to_numpy())


def _arrow_make(x):
    import pyarrow as pa

    if x.ndim == 1:
        return pa.array(x)
    # Arrow has no strided 2-D arrays: rows are a fixed-size list over contiguous values.
    return pa.FixedSizeListArray.from_arrays(pa.array(np.ascontiguousarray(x).ravel()), x.shape[1])


def _arrow_pointer(p):
    import pyarrow as pa

    if len(p) == 0:
        return None
    if isinstance(p, pa.FixedSizeListArray):
        return p.values.buffers()[1].address + p.offset * p.type.list_size * p.type.value_type.bit_width // 8
    if p.type == pa.bool_():
        return p.buffers()[1].address  # bits: never the bytes of a NumPy/zeroflow bool array
    return p.buffers()[1].address + p.offset * p.type.bit_width // 8


def _arrow_to_numpy(p):
    import pyarrow as pa

    if isinstance(p, pa.FixedSizeListArray):
        flat = p.flatten().to_numpy(zero_copy_only=False)
        return flat.reshape(len(p), p.type.list_size)
    return p.to_numpy(zero_copy_only=False)


def _arrow_from_zeroflow(a):
    import pyarrow as pa

    try:
        return pa.array(a)
    except BufferError:  # a strided view: Arrow needs contiguous memory
        return pa.array(zf.ascontiguousarray(a))


def _torch():
    import torch

    return torch


def _torch_pointer(t):
    return t.data_ptr() if t.numel() else None


def _jax():
    import jax

    # JAX keeps 64-bit types only with x64 enabled (else int64 becomes int32 on the way in).
    jax.config.update("jax_enable_x64", True)
    return jax


def _jnp_from_zeroflow(a):
    jnp = _jax() and importlib.import_module("jax.numpy")
    if not a.is_contiguous:  # JAX takes compact (row-major or transposed) layouts only
        return jnp.from_dlpack(zf.ascontiguousarray(a))
    return jnp.from_dlpack(a)


def _jax_pointer(x):
    return x.unsafe_buffer_pointer() if x.size else None


def _tf_pointer(t):
    if int(np.prod(t.shape)) == 0:
        return None
    import tensorflow as tf

    return zf.from_dlpack(tf.experimental.dlpack.to_dlpack(t)).data_ptr


def _tf_from_zeroflow(a):
    import tensorflow as tf

    if not a.is_contiguous:  # TensorFlow refuses strided DLPack tensors ("Invalid strides array")
        a = zf.ascontiguousarray(a)
    return tf.experimental.dlpack.from_dlpack(a.__dlpack__())


def _jax_make(x, device=None):
    # The CPU row's arrays live on the CPU even where JAX's default device is a GPU.
    jax = _jax()
    return jax.device_put(x, device if device is not None else jax.devices("cpu")[0])


def _zf_make(x, device="cpu"):
    """zeroflow memory (from its resource, 256-byte aligned) holding x; a strided case stays a view."""
    strided = x.ndim == 2 and not x.flags.c_contiguous
    base = x.base if strided else x
    a = zf.empty(base.shape, base.dtype.name)
    np.asarray(a)[...] = base
    if device != "cpu":
        a = a.copy(device)
    return a[::2, 1::3] if strided else a


def _zf_pointer(a):
    return a.data_ptr if a.size else None


CPU_FRAMEWORKS = [
    Framework("zeroflow", "cpu", "zeroflow", _zf_make, _zf_pointer, np.asarray, lambda a: a, lambda a: a, "a", "a"),
    Framework(
        "NumPy",
        "cpu",
        "numpy",
        lambda x: x,
        np_pointer,
        lambda x: x,
        zf.asarray,
        np.asarray,
        "zf.asarray(x)",
        "np.asarray(a)  # or np.from_dlpack(a)",
    ),
    Framework(
        "pandas",
        "cpu",
        "pandas",
        _pandas_make,
        lambda s: np_pointer(s.to_numpy()),
        lambda s: s.to_numpy(),
        _pandas_to_zeroflow,
        _pandas_from_zeroflow,
        "zf.asarray(series)  # DataFrame: zf.as_table(df), or zf.asarray(df.to_numpy())",
        "pd.Series(np.asarray(a), copy=False)  # 2-D: pd.DataFrame(np.asarray(a), copy=False)",
    ),
    Framework(
        "pyarrow",
        "cpu",
        "pyarrow",
        _arrow_make,
        _arrow_pointer,
        _arrow_to_numpy,
        zf.asarray,
        _arrow_from_zeroflow,
        "zf.asarray(arrow_array)  # tables: zf.as_table(t)",
        "pa.array(a)  # strided: pa.array(zf.ascontiguousarray(a)); tables: pa.table(zf_table)",
    ),
    Framework(
        "PyTorch",
        "cpu",
        "torch",
        lambda x: _torch().from_numpy(x),
        _torch_pointer,
        lambda t: t.numpy(),
        zf.asarray,
        lambda a: _torch().from_dlpack(a),
        "zf.asarray(t)",
        "torch.from_dlpack(a)",
    ),
    Framework(
        "JAX",
        "cpu",
        "jax",
        _jax_make,
        _jax_pointer,
        np.asarray,
        zf.asarray,
        _jnp_from_zeroflow,
        "zf.asarray(x)  # with jax_enable_x64 for 64-bit types",
        "jnp.from_dlpack(a)  # strided: jnp.from_dlpack(zf.ascontiguousarray(a))",
    ),
    Framework(
        "TensorFlow",
        "cpu",
        "tensorflow",
        lambda x: importlib.import_module("tensorflow").constant(x),
        _tf_pointer,
        lambda t: t.numpy(),
        zf.asarray,
        _tf_from_zeroflow,
        "zf.asarray(t)",
        "tf.experimental.dlpack.from_dlpack(a.__dlpack__())  # strided: zf.ascontiguousarray(a) first",
    ),
    Framework(
        "MXNet",
        "cpu",
        "mxnet",
        lambda x: None,
        lambda x: None,
        lambda x: x,
        zf.asarray,
        lambda a: a,
        "zf.asarray(mx.nd.array(...).to_dlpack_for_read())",
        "mx.nd.from_dlpack(a.__dlpack__())",
    ),
]


# ---- GPU frameworks ----------------------------------------------------------------------------


def _cupy():
    import cupy

    return cupy


def _numba_cuda():
    from numba import cuda

    return cuda


def _cai_pointer(x):
    interface = x.__cuda_array_interface__
    return interface["data"][0] if int(np.prod(interface["shape"])) else None


def _cupy_make(x):
    cp = _cupy()
    if x.ndim == 2 and not x.flags.c_contiguous:  # rebuild the same strided view on the GPU
        base = cp.asarray(x.base if x.base is not None else x)
        return base[::2, 1::3]
    return cp.asarray(x)


def _torch_cuda_make(x):
    torch = _torch()
    if x.ndim == 2 and not x.flags.c_contiguous:
        return torch.from_numpy(x.base).cuda()[::2, 1::3]
    return torch.from_numpy(x).cuda()


def _numba_make(x):
    cuda = _numba_cuda()
    if x.ndim == 2 and not x.flags.c_contiguous:  # Numba copies only contiguous host arrays
        return cuda.to_device(x.base)[::2, 1::3]
    return cuda.to_device(x)


def _jax_gpu_make(x):
    jax = _jax()
    return jax.device_put(x, jax.devices("gpu")[0])


GPU_FRAMEWORKS = [
    Framework(
        "zeroflow",
        "cuda",
        "zeroflow",
        lambda x: _zf_make(x, "cuda"),
        _zf_pointer,
        lambda a: np.asarray(a.copy("cpu")),
        lambda a: a,
        lambda a: a,
        "a",
        "a",
    ),
    Framework(
        "CuPy",
        "cuda",
        "cupy",
        _cupy_make,
        lambda x: x.data.ptr if x.size else None,
        lambda x: x.get(),
        zf.asarray,
        lambda a: _cupy().from_dlpack(a),
        "zf.asarray(x)  # DLPack; CAI also works",
        "cp.from_dlpack(a)  # or cp.asarray(a) through __cuda_array_interface__",
    ),
    Framework(
        "PyTorch",
        "cuda",
        "torch",
        _torch_cuda_make,
        _torch_pointer,
        lambda t: t.cpu().numpy(),
        zf.asarray,
        lambda a: _torch().from_dlpack(a),
        "zf.asarray(t)",
        "torch.from_dlpack(a)",
    ),
    Framework(
        "JAX",
        "cuda",
        "jax",
        _jax_gpu_make,
        _jax_pointer,
        np.asarray,
        zf.asarray,
        _jnp_from_zeroflow,
        "zf.asarray(x)  # with jax_enable_x64 for 64-bit types",
        "jnp.from_dlpack(a)  # strided: jnp.from_dlpack(zf.ascontiguousarray(a))",
    ),
    Framework(
        "Numba",
        "cuda",
        "numba.cuda",
        _numba_make,
        _cai_pointer,
        lambda d: d.copy_to_host(),
        zf.asarray,
        lambda a: _numba_cuda().as_cuda_array(a),
        "zf.asarray(d)  # __cuda_array_interface__",
        "numba.cuda.as_cuda_array(a)",
    ),
    Framework(
        "cuDF",
        "cuda",
        "cudf",
        lambda x: None,
        lambda x: None,
        lambda x: x,
        zf.asarray,
        lambda a: a,
        "zf.asarray(series)  # __cuda_array_interface__ / Arrow device",
        "cudf.from_dlpack(a.__dlpack__())",
        untested="kept from the cheat sheet, untested: cuDF is not installed on the GPU machine",
    ),
    Framework(
        "TensorFlow",
        "cuda",
        "tensorflow",
        lambda x: None,
        lambda x: None,
        lambda x: x,
        zf.asarray,
        lambda a: a,
        "zf.asarray(t)",
        "tf.experimental.dlpack.from_dlpack(a.__dlpack__())",
        untested="kept from the cheat sheet, untested: no GPU TensorFlow on the GPU machine",
    ),
    Framework(
        "MXNet",
        "cuda",
        "mxnet",
        lambda x: None,
        lambda x: None,
        lambda x: x,
        zf.asarray,
        lambda a: a,
        "zf.asarray(mx.nd.array(...).to_dlpack_for_read())",
        "mx.nd.from_dlpack(a.__dlpack__())",
        untested="kept from the cheat sheet, untested: mxnet does not install with numpy 2",
    ),
]


# ---- the cases ---------------------------------------------------------------------------------


def case_array(case: str) -> np.ndarray:
    """The NumPy values of a case (seeded); the strided case is a view of a larger array."""
    rng = np.random.default_rng(zlib.crc32(case.encode()))
    if case == "float32":
        return rng.standard_normal(1000).astype(np.float32)
    if case == "int64":
        return rng.integers(-(2**60), 2**60, 1000, dtype=np.int64)
    if case == "bool":
        return rng.integers(0, 2, 1000).astype(bool)
    if case == "empty":
        return np.zeros(0, dtype=np.float32)
    if case == "strided2d":
        base = rng.standard_normal((12, 16)).astype(np.float32)
        return base[::2, 1::3]  # 6 x 5, strides (128, 12) bytes
    raise ValueError(case)


CASES = ["float32", "int64", "bool", "empty", "strided2d"]
