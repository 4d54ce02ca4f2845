"""One memory manager (docs/architecture.md, "Memory"): stream-ordered resources, stackable adaptors and the
current resource of each device, through which every zeroflow allocation goes.

Typical use: count what a pipeline allocates::

    stats = zeroflow.memory.track("cpu")        # StatisticsAdaptor over the current host resource
    ...                                         # zeroflow work
    stats.statistics()["peak_bytes"]

:mod:`zeroflow.allocators` makes PyTorch, CuPy and Numba allocate from the same resource.
"""

from __future__ import annotations

import atexit
import contextlib
from typing import Any, Iterator

from ._interop import _core

MemoryResource = _core.MemoryResource
MemoryBlock = _core.MemoryBlock
HostResource = _core.HostResource
PinnedResource = _core.PinnedResource
CudaPoolResource = _core.CudaPoolResource
StatisticsAdaptor = _core.StatisticsAdaptor
LimitingAdaptor = _core.LimitingAdaptor
LeakTrackingAdaptor = _core.LeakTrackingAdaptor
LoggingAdaptor = _core.LoggingAdaptor
current_resource = _core.current_resource
cuda_memory_info = _core.cuda_memory_info

#: Devices whose current resource was set from Python (reset to C++ defaults at exit, so that the
#: process-wide registry holds no Python object while the interpreter shuts down).
_set_from_python: set = set()


def set_current_resource(resource: MemoryResource) -> MemoryResource:
    """Makes `resource` the current one for its device; returns the previous one. Arrays already
    allocated keep the resource that made them alive."""
    current_resource(resource.device)  # creates the default first, so there always is a previous one
    _set_from_python.add(resource.device)
    return _core.set_current_resource(resource)


@atexit.register
def _reset_at_exit() -> None:
    for device in _set_from_python:
        try:
            _core._reset_current_resource(device)
        except Exception:  # a device that can no longer be reached: nothing to release there
            pass


def track(device: Any = "cpu") -> StatisticsAdaptor:
    """Wraps the current resource of `device` in a StatisticsAdaptor and makes it current (once:
    a device already tracked returns its adaptor)."""
    current = current_resource(device)
    if isinstance(current, StatisticsAdaptor):
        return current
    stats = StatisticsAdaptor(current)
    set_current_resource(stats)
    return stats


@contextlib.contextmanager
def using(resource: MemoryResource) -> Iterator[MemoryResource]:
    """Makes `resource` current for its device inside the block, then restores the previous one."""
    previous = set_current_resource(resource)
    try:
        yield resource
    finally:
        set_current_resource(previous)
