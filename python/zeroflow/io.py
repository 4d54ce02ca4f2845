"""Reading recordings: CSV into a :class:`~zeroflow.Table`, on the host or straight into GPU memory;
one signal of a WFDB record, an EDF/EDF+ file or a CSV file; WFDB beat annotations and EDF+ annotations."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, List, Mapping, NamedTuple, Optional, Sequence, Union

from ._interop import Array, _core

Table = _core.Table
ColumnRef = Union[str, int]


def _options(columns, delimiter, header, dtype, dtypes, comment, quote, na, threads, device, stream, chunk_bytes):
    return dict(
        columns=columns,
        delimiter=delimiter,
        header=header,
        dtype=dtype,
        dtypes=dtypes,
        comment=comment,
        quote=quote,
        na=na,
        threads=threads,
        device=device,
        stream=stream,
        chunk_bytes=chunk_bytes,
    )


def read_csv(
    path: Union[str, os.PathLike],
    *,
    columns: Union[ColumnRef, Sequence[ColumnRef], None] = None,
    delimiter: Optional[str] = ",",
    header: str = "auto",
    dtype: Any = "float32",
    dtypes: Optional[Mapping[ColumnRef, Any]] = None,
    comment: Optional[str] = "#",
    quote: Optional[str] = '"',
    na: str = "error",
    threads: int = 0,
    device: Any = "cpu",
    stream: Any = None,
    chunk_bytes: int = 0,
) -> Table:
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
    return _core._read_csv(
        os.fspath(path),
        **_options(columns, delimiter, header, dtype, dtypes, comment, quote, na, threads, device, stream, chunk_bytes),
    )


def read_csv_text(
    text: str,
    *,
    name: str = "<text>",
    columns: Union[ColumnRef, Sequence[ColumnRef], None] = None,
    delimiter: Optional[str] = ",",
    header: str = "auto",
    dtype: Any = "float32",
    dtypes: Optional[Mapping[ColumnRef, Any]] = None,
    comment: Optional[str] = "#",
    quote: Optional[str] = '"',
    na: str = "error",
    threads: int = 0,
    device: Any = "cpu",
    stream: Any = None,
    chunk_bytes: int = 0,
) -> Table:
    """Parses CSV text exactly as :func:`read_csv` parses a file's bytes; ``name`` is what error
    messages call the input."""
    return _core._read_csv_buffer(
        text,
        name,
        **_options(columns, delimiter, header, dtype, dtypes, comment, quote, na, threads, device, stream, chunk_bytes),
    )


@dataclass
class Recording:
    """One signal of a recording, as :func:`read_recording` gives it."""

    signal: Array  #: float32 1-D samples in physical units, on the device asked for
    sample_rate: float  #: samples per second; 0.0 when the file does not say (CSV, raw)
    lead: str  #: the chosen signal's name
    units: str = ""  #: its physical units ("mV", "uV", ...); empty for CSV
    leads: List[str] = field(default_factory=list)  #: every signal of the file (CSV: the column read)


@dataclass
class BeatLabels:
    """Reference beats of a recording, in increasing sample order."""

    samples: Array  #: int64 R-peak sample index of every beat
    symbols: List[str]  #: MIT-BIH beat symbol of every beat (N, V, A, /, ...)
    classes: List[str]  #: AAMI EC57 class of every beat: N, S, V, F or Q


def read_recording(
    path: Union[str, os.PathLike],
    lead: Union[str, int, None] = None,
    device: Any = "cpu",
    *,
    threads: int = 0,
    stream: Any = None,
) -> Recording:
    """Reads one signal of an ECG recording, in physical units, onto ``device``.

    ``NAME.hea`` (or ``NAME`` when ``NAME.hea`` exists) is a WFDB record, ``.edf`` an EDF/EDF+ file,
    ``.f32``, ``.i16`` or ``.i32`` raw little-endian float32, int16 or int32 samples of one channel,
    taken as stored (no header, no sample rate: ``sample_rate`` is 0.0), anything else a CSV file
    (read as :func:`read_csv` reads it).

    Args:
        path: the recording.
        lead: the signal's name (case-insensitive; a CSV column's header) or 0-based index. None: for
            WFDB and EDF the lead named MLII (else "ECG II" or "II"), else the first signal that looks
            like ECG, else the first; for CSV the first column.
        device: "cpu", or "cuda[:N]" to put the signal in GPU memory.
        threads: reader threads (0: all cores).
        stream: the CUDA stream the copy to the GPU is ordered on (complete on return).

    Raises:
        zeroflow.ParseError (a ValueError): a missing, truncated or malformed file (named in the message).
        ValueError: a lead that is not in the file (the message lists those there).
    """
    if lead is None:
        lead_text = ""
    elif isinstance(lead, bool) or not isinstance(lead, (str, int)):
        raise TypeError("lead is a name (str) or a 0-based index (int)")
    elif isinstance(lead, int):
        if lead < 0:
            raise ValueError("lead indices are 0-based and not negative")
        lead_text = str(lead)
    else:
        lead_text = lead
    signal, sample_rate, name, units, leads = _core._read_recording(os.fspath(path), lead_text, device, threads, stream)
    return Recording(signal, sample_rate, name, units, list(leads))


def read_wfdb_annotations(path: Union[str, os.PathLike]) -> BeatLabels:
    """Reads the beat annotations of a WFDB annotation file (MIT format, e.g. ``106.atr``); rhythm,
    noise and comment annotations are skipped.

    Raises:
        zeroflow.ParseError (a ValueError): a truncated or malformed file (the message gives the byte offset).
        zeroflow.Error: a file that cannot be opened.
    """
    samples, symbols, classes = _core._read_wfdb_annotations(os.fspath(path))
    return BeatLabels(samples, list(symbols), list(classes))


class EdfAnnotation(NamedTuple):
    """One EDF+ annotation."""

    onset: float  #: seconds from the start of the recording
    duration: float  #: seconds; -1.0 when the annotation gives none
    text: str


def read_edf_annotations(path: Union[str, os.PathLike]) -> List[EdfAnnotation]:
    """Reads every annotation of an EDF+ file (its ``EDF Annotations`` signals), in file order; the
    empty time-keeping entry of each data record is left out. A plain EDF file gives none.

    Raises:
        zeroflow.ParseError (a ValueError): a malformed header or annotation (the message gives the byte offset).
        zeroflow.Error: a file that cannot be opened.
    """
    return [EdfAnnotation(*a) for a in _core._read_edf_annotations(os.fspath(path))]
