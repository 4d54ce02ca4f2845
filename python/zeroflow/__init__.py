"""zeroflow: GPU-resident, zero-copy data pipelines (Python interface).

Arrays (:class:`Array`) and tables (:class:`Table`) share memory with NumPy, PyTorch, JAX, CuPy,
Numba, TensorFlow, pyarrow and pandas through DLPack, the CUDA Array Interface, NumPy's array
interface and the Arrow PyCapsule interface; every function that takes an array accepts any of
them (:func:`asarray`). Submodules: :mod:`zeroflow.io` (read_csv), :mod:`zeroflow.signal`
(segmentation), :mod:`zeroflow.model` (the VAE), :mod:`zeroflow.pipeline` (run),
:mod:`zeroflow.memory` (resources and statistics), :mod:`zeroflow.synth` (synthetic ECGs), :mod:`zeroflow.rhythm` (AF from beat times), :mod:`zeroflow.classify` (the class rule), :mod:`zeroflow.holter` (what a Holter report prints),
:mod:`zeroflow.allocators` (one pool for PyTorch, CuPy and Numba), and, imported on request,
:mod:`zeroflow.sklearn` (scikit-learn estimators: BeatSegmenter, MinMaxScaler, VAEOutlierDetector,
AutoEncoderOutlierDetector; needs scikit-learn).
"""

from __future__ import annotations

from ._load import load_core

_core = load_core()

# The submodules load after the core and in this order (the later ones use the earlier ones).
# isort: off
from ._interop import CopyWarning, asarray, ascontiguousarray, from_dlpack  # noqa: E402
from ._arrow import Table, as_table, table  # noqa: E402
from . import allocators, io, memory, rhythm, signal, synth  # noqa: E402
from . import classify, holter  # noqa: E402
from .io import read_csv  # noqa: E402
from .signal import detect_qrs, segment_beats  # noqa: E402
from . import model, pipeline  # noqa: E402
from .model import VAE  # noqa: E402
from .pipeline import run  # noqa: E402
# isort: on

Array = _core.Array
Error = _core.Error
CudaError = _core.CudaError
ParseError = _core.ParseError
empty = _core.empty
zeros = _core.zeros
cuda_available = _core.cuda_available
has_cuda: bool = _core.has_cuda  #: this build has CUDA code paths
has_torch: bool = _core.has_torch  #: this build has the LibTorch backend (PyTorch's CUDA memory from zeroflow's pool)
__version__ = _core.__version__

__all__ = [
    "Array",
    "Table",
    "CopyWarning",
    "Error",
    "CudaError",
    "ParseError",
    "asarray",
    "ascontiguousarray",
    "from_dlpack",
    "as_table",
    "table",
    "empty",
    "zeros",
    "cuda_available",
    "read_csv",
    "segment_beats",
    "detect_qrs",
    "VAE",
    "run",
    "io",
    "signal",
    "model",
    "pipeline",
    "memory",
    "synth",
    "rhythm",
    "classify",
    "holter",
    "allocators",
]
