"""Import from anything: every zeroflow function that takes an array passes it through
:func:`asarray`, which accepts any object speaking DLPack, the CUDA Array Interface, NumPy's array
interface or the Arrow C (Device) Data Interface, and uses its memory in place.

Copies happen only when the layout cannot be shared (Arrow booleans are bits, zeroflow's are
bytes; a chunked Arrow column; an object that only offers ``__array__``), when another device or
dtype is asked for, or with ``copy=True``. With ``copy=None`` an unavoidable copy of an array-like
input emits :class:`CopyWarning`; with ``copy=False`` it raises instead (``ValueError``, as the
array API standard's ``asarray`` does; ``BufferError`` from a DLPack producer that cannot export
without one).
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Callable, List, Optional, Tuple

from ._load import load_core

_core = load_core()
Array = _core.Array

#: DLPack device types that take a stream (CUDA, CUDA managed).
_STREAM_DEVICES = (2, 13)
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


#: zeroflow copied data that it could not use in place (``copy=None``); a UserWarning.
CopyWarning = _core.CopyWarning


def _is_capsule(obj: Any) -> bool:
    return type(obj).__name__ == "PyCapsule"


def _caller_stacklevel() -> int:
    """The stacklevel of the first frame outside the zeroflow package (the user's call)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def _copy_needed(reason: str, copy: Optional[bool]) -> None:
    """Called before an unavoidable copy: raises with copy=False, warns with copy=None."""
    if copy is False:
        raise ValueError(f"{reason}: a copy is needed and copy=False was given")
    if copy is None:
        warnings.warn(f"zeroflow copied the input: {reason}", CopyWarning, stacklevel=_caller_stacklevel())


def from_dlpack(x: Any, /, *, device: Any = None, copy: Optional[bool] = None, stream: Any = None) -> Array:
    """Imports an object with ``__dlpack__`` / ``__dlpack_device__`` (or a DLPack capsule).

    Follows the array API standard: asks for a versioned capsule (``max_version=(1, 1)``) and falls
    back to the legacy protocol for older producers; ``device`` and ``copy`` are passed on to the
    producer. For CUDA data the producer is asked to order its work before ``stream`` (default: the
    legacy default stream), which becomes the array's stream.

    Raises BufferError when the producer cannot export (or cannot without a copy and copy=False),
    ValueError for a capsule consumed twice, TypeError for an object that is not a DLPack producer.
    """
    if _is_capsule(x):
        array = _core._from_dlpack_capsule(x, stream)
        return _to_device(array, device, copy, "a DLPack capsule on another device")
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"{type(x).__name__} does not implement __dlpack__")
    kind, _ = x.__dlpack_device__()
    handle = _core._stream_handle(stream)
    kwargs: dict = {}
    if int(kind) in _STREAM_DEVICES:
        kwargs["stream"] = handle
    modern = dict(kwargs, max_version=(1, 1))
    if device is not None:
        modern["dl_device"] = _core._dlpack_device(device)
    if copy is not None:
        modern["copy"] = copy
    try:
        capsule = x.__dlpack__(**modern)
        return _core._from_dlpack_capsule(capsule, handle)
    except TypeError:
        # A producer older than the 2023.12 array API (no max_version, dl_device or copy).
        capsule = x.__dlpack__(**kwargs)
    array = _core._from_dlpack_capsule(capsule, handle)
    if copy is True:
        return array.copy(device)
    return _to_device(array, device, copy, "the producer cannot export to another device")


def _to_device(array: Array, device: Any, copy: Optional[bool], reason: str) -> Array:
    if device is None or _core._same_device(array, device):
        return array
    if copy is False:
        raise BufferError(f"{reason}: moving {array.device} data to {device} needs a copy and copy=False was given")
    return array.copy(device)


def _import(obj: Any, copy: Optional[bool], stream: Any) -> tuple[Array, bool]:
    """The zero-copy protocols, best first. Returns the array and whether it was copied."""
    if isinstance(obj, Array):
        return obj, False
    if _is_capsule(obj):
        return from_dlpack(obj, stream=stream), False
    if _stream_only_arrow(obj) and getattr(obj, "ndim", None) == 1:
        # A pandas (>= 3) Series: its Arrow stream is a converted copy, its NumPy view is its memory.
        view = _numpy_view(obj)
        if view is not None:
            return view, False
    arrow = _arrow_import(obj, copy, stream)  # Arrow objects first: their __dlpack__ (if any) skips bools
    if arrow is not None:
        return arrow
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        try:
            return from_dlpack(obj, stream=stream, copy=False if copy is False else None), False
        except (BufferError, TypeError, ValueError):
            # A layout the producer cannot export (NumPy's byte-swapped arrays, Numba's strided
            # views, whose __dlpack__ raises ValueError): try the others.
            pass
    if hasattr(obj, "__cuda_array_interface__"):
        return _core._from_cuda_array_interface(obj, stream), False
    if hasattr(obj, "__array_interface__"):
        try:
            return _core._from_array_interface(obj), False
        except (TypeError, ValueError):
            pass  # a layout zeroflow cannot view (big-endian, odd strides): NumPy copies below
    return _via_numpy(obj, copy), True


# Importers of kinds this module does not know, tried before the array protocols: zeroflow._arrow
# registers Arrow's here when it is imported (it builds on this module, which so never imports it).
_importers: List[Callable[[Any, Optional[bool], Any], Optional[Tuple[Array, bool]]]] = []


def register_importer(importer: Callable[[Any, Optional[bool], Any], Optional[Tuple[Array, bool]]]) -> None:
    """Adds `importer(obj, copy, stream)`: (Array, copied), or None for an object it does not take."""
    _importers.append(importer)


def _arrow_import(obj: Any, copy: Optional[bool], stream: Any) -> Optional[Tuple[Array, bool]]:
    """The registered importers' take on `obj` (Arrow's), or None."""
    for importer in _importers:
        taken = importer(obj, copy, stream)
        if taken is not None:
            return taken
    return None


def _from_numpy(array: Any) -> Array:
    """A NumPy array as a zeroflow Array over the same memory (versioned DLPack: read-only survives)."""
    return _core._from_dlpack_capsule(array.__dlpack__(max_version=(1, 0)), None)


def _stream_only_arrow(obj: Any) -> bool:
    return hasattr(obj, "__arrow_c_stream__") and not any(
        hasattr(obj, name) for name in ("__arrow_c_device_array__", "__arrow_c_array__")
    )


def _numpy_view(obj: Any) -> Optional[Array]:
    """`obj` through ``numpy.asarray(copy=False)`` when that shares its memory; else None."""
    import numpy

    if not hasattr(obj, "__array__"):
        return None
    try:
        array = numpy.asarray(obj, copy=False)
    except (ValueError, TypeError):
        return None
    if array.dtype.kind not in "biufc" or not array.flags.aligned or not array.dtype.isnative:
        return None
    return _from_numpy(array)


def _via_numpy(obj: Any, copy: Optional[bool]) -> Array:
    import numpy

    if isinstance(obj, (list, tuple, int, float, bool, complex, str, bytes)):
        if copy is False:
            raise ValueError("a Python sequence or scalar has no memory to share; copy=False cannot be honoured")
        array = numpy.asarray(obj)  # Python values are always copied: no warning
    else:
        try:
            array = numpy.asarray(obj, copy=False)  # NumPy 2: raises when __array__ must copy
        except ValueError:
            _copy_needed(f"{type(obj).__name__} offers no zero-copy protocol (only __array__ with a copy)", copy)
            array = numpy.asarray(obj)
    if array.dtype.kind not in "biufc" or array.dtype.itemsize > 16:
        raise TypeError(f"unsupported dtype {array.dtype} (zeroflow takes bool, int, uint, float and complex)")
    if not array.flags.aligned or not array.dtype.isnative:
        _copy_needed(f"a {array.dtype} array that is unaligned or not in native byte order", copy)
        array = numpy.ascontiguousarray(array, dtype=array.dtype.newbyteorder("="))
    return _from_numpy(array)


def asarray(
    obj: Any, /, *, dtype: Any = None, device: Any = None, copy: Optional[bool] = None, stream: Any = None
) -> Array:
    """Any array-like as a zeroflow :class:`Array`, sharing its memory when the layout allows.

    Protocols, in this order: zeroflow arrays and DLPack capsules; ``__dlpack__`` (NumPy, PyTorch,
    JAX, CuPy, TensorFlow via its capsule...); ``__cuda_array_interface__`` (CuPy, Numba, ...);
    the Arrow PyCapsule interface (``__arrow_c_device_array__``, ``__arrow_c_array__``,
    ``__arrow_c_stream__``: pyarrow, pandas, polars...); ``__array_interface__``; and last
    ``numpy.asarray`` for everything else (Python sequences are copied silently; other objects with
    a :class:`CopyWarning`).

    Args:
        obj: the input.
        dtype: the dtype wanted; a different one converts (host arrays only, a copy).
        device: the device wanted ("cpu", "cuda:0"...); another one copies.
        copy: True always copies; False never does (ValueError when it would have to);
            None copies only when unavoidable, with a CopyWarning.
        stream: for CUDA inputs, the stream the result is used on (default: legacy default stream);
            producers are made to finish their work on it first.
    """
    array, copied = _import(obj, copy, stream)
    if array.size and array.data_ptr % _alignment(array) != 0:
        # NumPy exports unaligned views; zeroflow's kernels (and CUDA) need aligned elements.
        _copy_needed(f"the input's {array.dtype} elements are not aligned in memory", copy)
        array, copied = array.copy(), True
    if dtype is not None and _core._dtype_name(dtype) != array.dtype:
        if copy is False:
            raise ValueError(
                f"converting {array.dtype} to {_core._dtype_name(dtype)} needs a copy and copy=False was given"
            )
        if not array.device.startswith("cpu"):
            raise TypeError(
                f"zeroflow does not convert dtypes of {array.device} arrays; convert with the producing framework"
            )
        import numpy

        converted = numpy.asarray(array).astype(_core._dtype_name(dtype))
        array, copied = _from_numpy(converted), True
    if device is not None and not _core._same_device(array, device):
        if copy is False:
            raise ValueError(f"moving {array.device} data to {device} needs a copy and copy=False was given")
        array, copied = array.copy(device), True
    if copy is True and not copied:
        array = array.copy()
    return array


def _alignment(array: Array) -> int:
    """The alignment zeroflow expects of an element (its size; complex: of one part)."""
    size = array.itemsize // 2 if array.dtype.startswith("complex") else array.itemsize
    return max(1, min(size, 8))


def ascontiguousarray(obj: Any, /, *, copy: Optional[bool] = None, stream: Any = None) -> Array:
    """``asarray(obj)``, copied into C-contiguous memory when it is a strided view.

    Use it before handing a view to something that needs contiguous memory (Arrow exports). A copy
    of a strided view is what the caller asked for, so it emits no warning; copy=False raises
    ValueError when one would be needed.
    """
    array = asarray(obj, copy=copy, stream=stream)
    if array.is_contiguous:
        return array
    if copy is False:
        raise ValueError("the array is a strided view; making it contiguous needs a copy and copy=False was given")
    return array.copy()
