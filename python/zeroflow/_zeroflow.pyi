"""zeroflow's compiled core (import zeroflow, not this module)."""

from typing import overload

from zeroflow import (
    CopyWarning as CopyWarning,
    CudaError as CudaError,
    Error as Error,
    ParseError as ParseError
)


has_cuda: bool = ...

has_torch: bool = ...

class Array:
    """
    A strided N-d view of zeroflow memory (host or GPU). Exports itself through DLPack (__dlpack__), the CUDA Array Interface (device arrays), NumPy's array interface (host arrays) and the Arrow PyCapsule interface, without copying.
    """

    @property
    def shape(self) -> tuple:
        """Extents, as a tuple."""

    @property
    def strides(self) -> tuple:
        """Strides in BYTES (NumPy's convention); may be negative or zero."""

    @property
    def element_strides(self) -> tuple:
        """Strides in elements (zeroflow's and DLPack's convention)."""

    @property
    def dtype(self) -> str:
        """
        Element type name ("float32", "int64", "bool"...); numpy.dtype() accepts it.
        """

    @property
    def device(self) -> str:
        """"cpu", "cuda:N", "cuda_host" or "cuda_managed:N"."""

    @property
    def ndim(self) -> int: ...

    @property
    def size(self) -> int:
        """Number of elements."""

    @property
    def itemsize(self) -> int: ...

    @property
    def nbytes(self) -> int: ...

    @property
    def readonly(self) -> bool: ...

    @property
    def is_contiguous(self) -> bool:
        """True for C-contiguous arrays."""

    @property
    def data_ptr(self) -> int:
        """Address of element 0 (an integer)."""

    @property
    def stream(self) -> int:
        """
        Handle of the CUDA stream whose queued work produces this array (1: legacy default). Exports make their consumer wait on it.
        """

    def __len__(self) -> int: ...

    def __repr__(self) -> str: ...

    def __getitem__(self, arg: object, /) -> Array:
        """Integer and slice indexing; the result is a view (no copy)."""

    def as_readonly(self) -> Array:
        """
        The same memory as a read-only view (exports carry the read-only flag).
        """

    def reshape(self, shape: object) -> Array:
        """A view with another shape (contiguous arrays only)."""

    def copy(self, device: object | None = ...) -> Array:
        """A C-contiguous copy, on `device` (default: the same device)."""

    def __dlpack__(self, *, stream: object | None = ..., max_version: object | None = ..., dl_device: object | None = ..., copy: object | None = ...) -> object:
        """
        DLPack export (array API standard). Returns a "dltensor_versioned" capsule when max_version >= (1, 0) and a legacy "dltensor" capsule otherwise (read-only arrays cannot go legacy). `stream`: the consumer's CUDA stream (None = legacy default, 1 legacy, 2 per-thread, -1 no sync, 0 refused); it is made to wait on this array's stream. CPU exports take stream=None only. `dl_device`: export to another device (a copy, refused with copy=False; pinned and managed memory are seen as CPU memory without one). `copy=True` always copies and sets the IS_COPIED flag.
        """

    def __dlpack_device__(self) -> tuple:
        """(DLPack device type, device id)."""

    @property
    def __cuda_array_interface__(self) -> dict:
        """
        CUDA Array Interface v3 (device arrays only): strides in bytes, `stream` is this array's stream (the consumer synchronises with it).
        """

    @property
    def __array_interface__(self) -> dict:
        """NumPy array interface v3 (host-accessible arrays only)."""

    def __arrow_c_schema__(self) -> object:
        """
        Arrow PyCapsule interface: the array's Arrow type (an "arrow_schema" capsule).
        """

    def __arrow_c_array__(self, requested_schema: object | None = ...) -> tuple:
        """
        Arrow PyCapsule interface (host arrays): ("arrow_schema", "arrow_array") capsules viewing this array. 1-D arrays are primitive columns, 2-D C-contiguous arrays fixed-size lists of rows. Strided views raise BufferError (use zeroflow.ascontiguousarray); bool arrays are packed into bits (a copy, with a CopyWarning).
        """

    def __arrow_c_device_array__(self, requested_schema: object | None = ..., **kwargs) -> tuple:
        """
        Arrow C Device interface: ("arrow_schema", "arrow_device_array") capsules. For GPU memory the struct's sync_event is a CUDA event recorded on the array's stream.
        """

def cuda_available() -> bool:
    """True when this build has CUDA and a GPU answers."""

def empty(shape: object, dtype: object = ..., device: object = ..., stream: object | None = ...) -> Array:
    """
    An uninitialised C-contiguous array from the device's current memory resource.
    """

def zeros(shape: object, dtype: object = ..., device: object = ..., stream: object | None = ...) -> Array:
    """
    A zero-filled C-contiguous array from the device's current memory resource.
    """

class Table:
    """
    Named 1-D columns of equal length (read_csv's result), in Arrow's columnar layout. Exports through the Arrow PyCapsule interface (a struct array / a stream of one batch).
    """

    @property
    def names(self) -> list[str]:
        """Column names, in order."""

    @property
    def columns(self) -> list[Array]:
        """The columns, as zeroflow arrays (views)."""

    @property
    def num_rows(self) -> int: ...

    @property
    def num_columns(self) -> int: ...

    def __len__(self) -> int:
        """Number of rows."""

    def __getitem__(self, arg: object, /) -> Array:
        """A column by name or position."""

    def __contains__(self, arg: str, /) -> bool: ...

    def __repr__(self) -> str: ...

    def __arrow_c_schema__(self) -> object: ...

    def __arrow_c_array__(self, requested_schema: object | None = ...) -> tuple:
        """
        ("arrow_schema", "arrow_array") capsules of a struct array with one child per column.
        """

    def __arrow_c_device_array__(self, requested_schema: object | None = ..., **kwargs) -> tuple:
        """
        The same through the C Device interface (GPU tables carry a CUDA sync event).
        """

    def __arrow_c_stream__(self, requested_schema: object | None = ...) -> object:
        """
        An "arrow_array_stream" capsule yielding the table as one batch (host tables).
        """

class MemoryResource:
    """
    A stream-ordered memory resource: allocate(bytes, stream) / deallocate(ptr, bytes, stream). Every zeroflow allocation on a device goes through that device's current resource.
    """

    @property
    def device(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def upstream(self) -> MemoryResource:
        """The resource an adaptor forwards to (None for a base resource)."""

    def allocate(self, nbytes: int, stream: object | None = ...) -> int:
        """
        Raw memory (an address; 0 for 0 bytes), usable in stream order on `stream`. Give it back with deallocate(); prefer allocate_block(), which gives it back by itself.
        """

    def deallocate(self, ptr: int, nbytes: int, stream: object | None = ...) -> None: ...

    def allocate_block(self, nbytes: int, stream: object | None = ...) -> MemoryBlock:
        """
        A MemoryBlock of `nbytes`, deallocated on `stream` when the block object dies (or free() is called).
        """

    def __repr__(self) -> str: ...

class MemoryBlock:
    """Memory from a resource, given back when this object dies."""

    @property
    def ptr(self) -> int:
        """The address (0 once freed or for 0 bytes)."""

    @property
    def nbytes(self) -> int: ...

    @property
    def stream(self) -> int: ...

    @property
    def resource(self) -> MemoryResource: ...

    def free(self) -> None:
        """Gives the memory back now (idempotent)."""

class HostResource(MemoryResource):
    """Pageable host memory, 256-byte aligned."""

    def __init__(self) -> None: ...

class PinnedResource(MemoryResource):
    """Page-locked host memory (cudaMallocHost); needs a GPU."""

    def __init__(self) -> None: ...

class CudaPoolResource(MemoryResource):
    """
    Device memory from a CUDA stream-ordered memory pool of its own (cudaMallocFromPoolAsync).
    """

    def __init__(self, device_id: int = ..., release_threshold: object | None = ...) -> None: ...

    @property
    def pool_handle(self) -> int:
        """The cudaMemPool_t (an integer), e.g. for CuPy or JAX-side tooling."""

    @property
    def reserved_bytes(self) -> int: ...

class StatisticsAdaptor(MemoryResource):
    """
    Counts bytes and allocations passing to `upstream`: now, at peak and in total.
    """

    def __init__(self, upstream: MemoryResource) -> None: ...

    def statistics(self) -> dict:
        """
        current_bytes, peak_bytes, total_bytes, current_count, peak_count, total_count (a dict).
        """

    def reset_peak(self) -> None:
        """Starts a new peak window."""

class LimitingAdaptor(MemoryResource):
    """
    Fails allocations past `budget` live bytes (MemoryError) before asking `upstream`.
    """

    def __init__(self, upstream: MemoryResource, budget: int) -> None: ...

    @property
    def budget(self) -> int: ...

    @property
    def used(self) -> int: ...

class LeakTrackingAdaptor(MemoryResource):
    """
    Remembers live allocations; refuses releases of memory that is not live.
    """

    def __init__(self, upstream: MemoryResource, report_on_destruction: bool = ...) -> None: ...

    def outstanding(self) -> list:
        """Live allocations, oldest first, as (ptr, nbytes, sequence) tuples."""

    def report(self) -> str: ...

class LoggingAdaptor(MemoryResource):
    """Writes one CSV line per allocation and deallocation to `path`."""

    def __init__(self, upstream: MemoryResource, path: str) -> None: ...

    def flush(self) -> None: ...

def current_resource(device: object = ...) -> MemoryResource:
    """
    The resource zeroflow allocates from on `device` (created on first use).
    """

def set_current_resource(resource: MemoryResource) -> MemoryResource:
    """
    Makes `resource` the current one for its device; returns the previous one. Arrays already allocated keep the resource that made them.
    """

def cuda_memory_info(device_id: int = ...) -> tuple:
    """(free, total) bytes of a GPU (cudaMemGetInfo)."""

def route_torch_allocator_to(resource: MemoryResource) -> None:
    """
    Makes LibTorch (and so PyTorch in this process) take its CUDA memory from `resource` (a CUDA resource). Must happen before PyTorch's first CUDA allocation; for the whole process.
    """

def torch_allocator_routed() -> bool:
    """
    True once route_torch_allocator_to has installed zeroflow's allocator in LibTorch.
    """

class Normalization:
    """Rows are (x - center) / scale (robust z-score)."""

    @overload
    def __init__(self) -> None: ...

    @overload
    def __init__(self, center: float, scale: float) -> None: ...

    @property
    def center(self) -> float: ...

    @center.setter
    def center(self, arg: float, /) -> None: ...

    @property
    def scale(self) -> float: ...

    @scale.setter
    def scale(self, arg: float, /) -> None: ...

    def __repr__(self) -> str: ...

class VAE:
    """
    The seed's LightVAE on one device: train on beat rows, score them (reconstruction error from the latent mean), decode a latent grid, save and load.
    """

    def __init__(self, width: int, device: object = ..., seed: int = ...) -> None:
        """
        A freshly initialised model for rows of `width` samples (a power of two >= 16).
        """

    @staticmethod
    def load(path: str, device: object = ...) -> VAE:
        """
        Reads a model written by save() (or `zeroflow run`'s model.safetensors).
        """

    def decode_grid(self, n: int = ..., extent: float = ...) -> Array:
        """
        Decodes the n x n latent grid linspace(-extent, extent, n)^2: an (n*n, width) float32 array.
        """

    def save(self, path: str) -> None:
        """Writes the model atomically (a safetensors model file)."""

    @property
    def described_rows(self) -> object: ...

    @property
    def width(self) -> int: ...

    @property
    def device(self) -> str: ...

    @property
    def parameter_count(self) -> int: ...

class MLPAutoencoder:
    """
    The seed-004 MLP autoencoder (features -> hidden -> code -> hidden -> features, ReLU, sigmoid output) on one device: train with Adam on the mean squared error, score rows by their reconstruction error.
    """

    def __init__(self, features: int = ..., hidden: int = ..., code: int = ..., device: object = ..., seed: int = ...) -> None:
        """
        A freshly initialised model (the notebook's initial weights for the same seed).
        """

    @staticmethod
    def from_bytes(data: bytes, device: object = ..., what: str = ...) -> MLPAutoencoder:
        """A model from to_bytes()."""

    @staticmethod
    def load(path: str, device: object = ...) -> MLPAutoencoder:
        """Reads a model written by save()."""

    def to_bytes(self) -> bytes:
        """The widths and weights as bytes (for pickle)."""

    def save(self, path: str) -> None:
        """Writes the model atomically."""

    @property
    def features(self) -> int: ...

    @property
    def hidden(self) -> int: ...

    @property
    def code(self) -> int: ...

    @property
    def device(self) -> str: ...

    @property
    def parameter_count(self) -> int: ...

def set_cpu_threads(threads: int) -> None:
    """
    Threads of the models' own CPU kernels (process-wide); a training's result is the same bits for any count.
    """

def cpu_threads() -> int: ...
