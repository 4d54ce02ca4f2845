"""Arrow inputs: anything with the Arrow PyCapsule interface (pyarrow arrays, chunked arrays,
record batches and tables; pandas DataFrames; polars...) as zeroflow arrays and tables.

Primitive columns without nulls are used in place. Copies (announced by a CopyWarning with
copy=None, refused with copy=False) are unavoidable for booleans (Arrow packs them into bits) and
for data split over several chunks or batches (zeroflow arrays are one block of memory).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, Tuple

from ._interop import Array, _copy_needed, _core, asarray, register_importer

Table = _core.Table

#: Arrow primitive formats and their zeroflow dtypes (for empty streams).
_FORMATS = {
    "c": "int8",
    "s": "int16",
    "i": "int32",
    "l": "int64",
    "C": "uint8",
    "S": "uint16",
    "I": "uint32",
    "L": "uint64",
    "e": "float16",
    "f": "float32",
    "g": "float64",
    "b": "bool",
}


def _is_arrow(obj: Any) -> bool:
    return any(hasattr(obj, name) for name in ("__arrow_c_device_array__", "__arrow_c_array__", "__arrow_c_stream__"))


def _consume(obj: Any, copy: Optional[bool], stream: Any) -> Tuple[list, Optional[str]]:
    """The Arrow data of `obj` as a list of batches (Arrays or Tables)."""
    if hasattr(obj, "__arrow_c_device_array__") or hasattr(obj, "__arrow_c_array__"):
        device = hasattr(obj, "__arrow_c_device_array__")
        schema, data = obj.__arrow_c_device_array__() if device else obj.__arrow_c_array__()
        if _core._arrow_import_copies(schema):
            _copy_needed("Arrow stores booleans as bits; zeroflow unpacks them into bytes", copy)
        table = _core._arrow_format(schema) == "+s"
        if device:
            batch = (_core._from_arrow_device_table if table else _core._from_arrow_device_array)(schema, data, stream)
        else:
            batch = (_core._from_arrow_table if table else _core._from_arrow_array)(schema, data)
        return [batch], _core._arrow_format(schema)
    capsule = obj.__arrow_c_stream__()
    return _core._from_arrow_stream(capsule), None


def _concatenate(arrays: list, copy: Optional[bool]) -> Array:
    import numpy

    _copy_needed(f"the Arrow data comes in {len(arrays)} chunks; zeroflow arrays are one block", copy)
    return asarray(numpy.concatenate([numpy.asarray(a) for a in arrays]))


def import_array(obj: Any, copy: Optional[bool], stream: Any = None) -> Optional[Tuple[Array, bool]]:
    """Arrow input as one array: (Array, copied) or None when `obj` speaks no Arrow protocol.

    A table or record batch of exactly one column gives that column."""
    if not _is_arrow(obj):
        return None
    batches, _ = _consume(obj, copy, stream)
    columns = []
    for batch in batches:
        if isinstance(batch, Table):
            if batch.num_columns != 1:
                raise TypeError(
                    f"{type(obj).__name__} is a table of {batch.num_columns} columns, not an array; "
                    "use zeroflow.as_table (or pick a column)"
                )
            batch = batch[0]
        columns.append(batch)
    if not columns:
        raise ValueError(f"{type(obj).__name__} holds no Arrow batches (an empty stream has no data to view)")
    if len(columns) == 1:
        return columns[0], False
    return _concatenate(columns, copy), True


def as_table(obj: Any, /, *, copy: Optional[bool] = None, stream: Any = None) -> Table:
    """A zeroflow :class:`Table` from a mapping of names to array-likes, or from any object with the
    Arrow PyCapsule interface (pyarrow Table/RecordBatch, pandas DataFrame, polars DataFrame...).

    Columns are used in place when Arrow's layout allows (see the module docs for when a copy is
    unavoidable: CopyWarning with copy=None, ValueError with copy=False).
    """
    if isinstance(obj, Table):
        return obj
    if isinstance(obj, Mapping):
        names = [str(name) for name in obj]
        return _core._make_table(names, [asarray(v, copy=copy, stream=stream) for v in obj.values()])
    if not _is_arrow(obj):
        raise TypeError(f"{type(obj).__name__} is neither a mapping of columns nor an Arrow table-like object")
    batches, _ = _consume(obj, copy, stream)
    tables = [b if isinstance(b, Table) else _core._make_table([""], [b]) for b in batches]
    if not tables:
        raise ValueError(f"{type(obj).__name__} holds no Arrow batches")
    if len(tables) == 1:
        return tables[0]
    names = tables[0].names
    columns = [_concatenate([t[i] for t in tables], copy) for i in range(len(names))]
    return _core._make_table(names, columns)


def table(data: Mapping, /) -> Table:
    """A :class:`Table` of the given columns (any array-likes, used in place): ``table({"x": x})``."""
    return as_table(data)


register_importer(import_array)  # zeroflow.asarray takes Arrow objects through this module
