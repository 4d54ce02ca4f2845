"""One memory pool for all: make PyTorch, CuPy and Numba allocate GPU memory from zeroflow's
current resource, so one pool (a CUDA stream-ordered memory pool by default) and one set of
statistics cover the whole pipeline (docs/architecture.md, "Memory").

The one call::

    stats = zeroflow.allocators.share_pool()   # before any framework allocates on the GPU
    ...                                        # zeroflow, PyTorch, CuPy and Numba work
    stats.statistics()                         # bytes of all of them, now and at peak

or framework by framework: :func:`use_for_torch`, :func:`use_for_cupy`, :func:`use_for_numba`
(each takes any zeroflow resource on a CUDA device).

- PyTorch: LibTorch's CUDA caching allocator is replaced, process-wide, by zeroflow's router (the
  same one zeroflow's own training uses; CUDA graph private pools included). It must happen before
  PyTorch's first CUDA allocation; ``torch.cuda.memory_stats`` is unavailable afterwards (use the
  resource's statistics). PyTorch's pinned host memory is not routed.
- CuPy: ``cupy.cuda.set_allocator`` with a function allocating on CuPy's current stream; each block
  goes back to the pool when CuPy drops it. Pinned memory is not routed.
- Numba: an External Memory Management plugin (``set_memory_manager`` before the first CUDA
  context, or ``NUMBA_CUDA_MEMORY_MANAGER=zeroflow.allocators``). Numba's EMM interface has no
  streams: memory is allocated and freed on the legacy default stream. ``defer_cleanup`` has no
  effect on device memory (freed blocks return to the pool at once, in stream order).
- JAX has no external-allocator hook. Keep XLA from taking most of the GPU up front so the pool
  can grow: ``XLA_PYTHON_CLIENT_PREALLOCATE=false`` (allocate on demand), or
  ``XLA_PYTHON_CLIENT_MEM_FRACTION=0.3`` (a smaller preallocation), or
  ``XLA_PYTHON_CLIENT_ALLOCATOR=platform`` (no caching at all: exact but slow). Set them before
  JAX initialises its GPU backend. JAX arrays still exchange data with zeroflow without copies
  (DLPack); only their allocations stay outside zeroflow's statistics.
"""

from __future__ import annotations

import atexit
import ctypes
import os
from typing import Any, Callable, Iterable, Optional

from . import memory
from ._interop import _core

_numba_resource: Optional[memory.MemoryResource] = None


def _cuda_resource(resource: Optional[memory.MemoryResource], device: int = 0) -> memory.MemoryResource:
    if resource is None:
        resource = memory.current_resource(f"cuda:{device}")
    if not resource.device.startswith("cuda:"):
        raise ValueError(f"a framework's GPU memory needs a CUDA resource, not one on {resource.device}")
    return resource


def use_for_torch(resource: Optional[memory.MemoryResource] = None) -> memory.MemoryResource:
    """PyTorch (LibTorch) takes its CUDA memory from `resource` (default: the current resource of
    cuda:0), for the rest of the process. Call it before PyTorch's first CUDA allocation.

    Raises zeroflow.Error when PyTorch already allocated CUDA memory, zeroflow.CudaError without CUDA.
    """
    resource = _cuda_resource(resource)
    _core.route_torch_allocator_to(resource)
    return resource


def cupy_allocator(resource: memory.MemoryResource) -> Callable[[int], Any]:
    """A ``cupy.cuda.set_allocator`` function allocating from `resource` on CuPy's current stream."""
    import cupy

    def malloc(nbytes: int):
        stream = cupy.cuda.get_current_stream().ptr or 1  # CuPy's null stream is the legacy default
        block = resource.allocate_block(nbytes, stream)
        device = cupy.cuda.Device().id
        return cupy.cuda.MemoryPointer(cupy.cuda.UnownedMemory(block.ptr, nbytes, block, device), 0)

    return malloc


def use_for_cupy(resource: Optional[memory.MemoryResource] = None) -> memory.MemoryResource:
    """CuPy allocates device memory from `resource` (default: the current resource of cuda:0)."""
    import cupy

    resource = _cuda_resource(resource)
    cupy.cuda.set_allocator(cupy_allocator(resource))
    atexit.register(_release_cupy_allocator)
    return resource


def _release_cupy_allocator() -> None:
    # CuPy's global allocator would otherwise hold `resource` (a Python object) past the interpreter's
    # shutdown. Arrays still alive keep their blocks, and so their memory, on their own.
    import cupy

    cupy.cuda.set_allocator(None)


def _numba_uses_nvidia_binding() -> bool:
    # Numba's driver says which binding it runs on; numba-cuda releases without that switch have
    # only NVIDIA's (cuda-python), whatever their config's old CUDA_USE_NVIDIA_BINDING says.
    from numba.cuda.cudadrv import driver

    return bool(getattr(driver, "USE_NV_BINDING", True))


def _device_pointer(address: int):
    """Numba's device pointer type: a CUdeviceptr with NVIDIA's bindings, else a ctypes pointer."""
    if _numba_uses_nvidia_binding():
        try:
            from cuda.bindings.driver import CUdeviceptr
        except ImportError:
            from cuda.cuda import CUdeviceptr
        return CUdeviceptr(address)
    return ctypes.c_uint64(address)


def _numba_manager_class():
    from numba import cuda

    class ZeroflowNumbaMemoryManager(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
        """Numba EMM plugin: device memory from zeroflow (see the module docs)."""

        def initialize(self):
            super().initialize()

        def memalloc(self, size):
            resource = _numba_resource or memory.current_resource(f"cuda:{self.context.device.id}")
            block = resource.allocate_block(size)
            return cuda.MemoryPointer(self.context, _device_pointer(block.ptr), size, finalizer=block.free)

        def get_memory_info(self):
            free, total = _core.cuda_memory_info(self.context.device.id)
            return cuda.MemoryInfo(free=free, total=total)

        @property
        def interface_version(self):
            return 1

    return ZeroflowNumbaMemoryManager


def use_for_numba(resource: Optional[memory.MemoryResource] = None) -> memory.MemoryResource:
    """Numba allocates device memory from `resource` (default: each context's current zeroflow
    resource). Call it before Numba creates its first CUDA context."""
    from numba import cuda

    global _numba_resource
    _numba_resource = None if resource is None else _cuda_resource(resource)
    cuda.set_memory_manager(_numba_manager_class())
    return _numba_resource or memory.current_resource("cuda:0")


def __getattr__(name: str) -> Any:
    # NUMBA_CUDA_MEMORY_MANAGER=zeroflow.allocators: Numba reads this attribute (built on demand,
    # so importing zeroflow does not import Numba).
    if name == "_numba_memory_manager":
        return _numba_manager_class()
    raise AttributeError(name)


def share_pool(device: int = 0, frameworks: Iterable[str] = ("torch", "cupy", "numba")) -> memory.StatisticsAdaptor:
    """zeroflow, and every installed framework of `frameworks`, allocate on GPU `device` from one
    statistics-wrapped pool, which is returned. Frameworks that are not installed are skipped.

    Call it first thing: PyTorch and Numba can only be redirected before their first allocation.
    Raises zeroflow.CudaError without CUDA.
    """
    if not _core.cuda_available():
        raise _core.CudaError("share_pool needs a CUDA build of zeroflow and a GPU")
    stats = memory.track(f"cuda:{device}")
    wanted = set(frameworks)
    unknown = wanted - {"torch", "cupy", "numba"}
    if unknown:
        raise ValueError(f"unknown frameworks {sorted(unknown)}; zeroflow routes torch, cupy and numba")
    for name, use in (("torch", use_for_torch), ("cupy", use_for_cupy), ("numba", use_for_numba)):
        if name not in wanted:
            continue
        try:
            __import__("numba.cuda" if name == "numba" else name)
        except ImportError:
            continue
        if name == "torch" and _core.torch_allocator_routed():
            continue
        use(stats)
    return stats


JAX_ENVIRONMENT = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}


def configure_jax(environment: Optional[dict] = None) -> None:
    """Sets JAX's allocator environment (default: no preallocation) unless already set; only
    effective before JAX initialises its GPU backend."""
    for key, value in (environment or JAX_ENVIRONMENT).items():
        os.environ.setdefault(key, value)
