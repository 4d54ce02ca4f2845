"""Reading CSV recordings into a :class:`~zeroflow.Table`, on the host or straight into GPU memory."""
from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Sequence, Union

from ._interop import _core

Table = _core.Table
ColumnRef = Union[str, int]


def _options(columns, delimiter, header, dtype, dtypes, comment, quote, na, threads, device, stream, chunk_bytes):
    return dict(columns=columns, delimiter=delimiter, header=header, dtype=dtype, dtypes=dtypes, comment=comment,
                quote=quote, na=na, threads=threads, device=device, stream=stream, chunk_bytes=chunk_bytes)


def read_csv(path: Union[str, os.PathLike], *, columns: Union[ColumnRef, Sequence[ColumnRef], None] = None,
             delimiter: Optional[str] = ",", header: str = "auto", dtype: Any = "float32",
             dtypes: Optional[Mapping[ColumnRef, Any]] = None, comment: Optional[str] = "#",
             quote: Optional[str] = '"', na: str = "error", threads: int = 0, device: Any = "cpu",
             stream: Any = None, chunk_bytes: int = 0) -> Table:
    """Reads a numeric CSV file (memory-mapped, multi-threaded) into a Table of 1-D columns.

    Args:
        path: the file; its name prefixes every error message.
        columns: names or 0-based positions of the columns to read, in the order wanted (default: all).
        delimiter: the field separator; None detects it (',', tab or ';').
        header: "auto" (a header when the first line has a non-number), "yes" or "no" (columns "0", "1"...).
        dtype: the dtype of every column (float32, float64 or int64); ``dtypes`` overrides it per column.
        comment: lines starting with this prefix are skipped (None: no comments).
        quote: the quote character (None: no quoting).
        na: "error" (missing values are parse errors) or "nan" (they read as NaN).
        threads: parser threads (0: all cores).
        device: "cpu", or "cuda[:N]" to parse on the GPU into device memory (CUDA builds).
        stream: the CUDA stream the GPU parse is ordered on (synchronised before returning).
        chunk_bytes: work-item size (0: automatic); for tuning and tests.

    Raises:
        zeroflow.ParseError (a ValueError): a file that cannot be opened or parsed; the message is
            "FILE:LINE: column C ("NAME"): what".
        ValueError: contradictory options. zeroflow.CudaError: a CUDA device without CUDA.
    """
    return _core._read_csv(os.fspath(path), **_options(columns, delimiter, header, dtype, dtypes, comment, quote, na,
                                                        threads, device, stream, chunk_bytes))


def read_csv_text(text: str, *, name: str = "<text>", columns: Union[ColumnRef, Sequence[ColumnRef], None] = None,
                  delimiter: Optional[str] = ",", header: str = "auto", dtype: Any = "float32",
                  dtypes: Optional[Mapping[ColumnRef, Any]] = None, comment: Optional[str] = "#",
                  quote: Optional[str] = '"', na: str = "error", threads: int = 0, device: Any = "cpu",
                  stream: Any = None, chunk_bytes: int = 0) -> Table:
    """Parses CSV text exactly as :func:`read_csv` parses a file's bytes; ``name`` is what error
    messages call the input."""
    return _core._read_csv_buffer(text, name, **_options(columns, delimiter, header, dtype, dtypes, comment, quote, na,
                                                         threads, device, stream, chunk_bytes))
