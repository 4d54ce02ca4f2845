"""zeroflow: GPU-resident, zero-copy data pipelines (Python interface)."""
from __future__ import annotations

from ._load import load_core

_core = load_core()

from ._interop import CopyWarning, asarray, ascontiguousarray, from_dlpack  # noqa: E402
from ._arrow import Table, as_table, table  # noqa: E402

Array = _core.Array
Error = _core.Error
CudaError = _core.CudaError
ParseError = _core.ParseError
empty = _core.empty
zeros = _core.zeros
cuda_available = _core.cuda_available
__version__ = _core.__version__
