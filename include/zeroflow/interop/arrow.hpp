#pragma once
/// @file arrow.hpp
/// Export zeroflow arrays and tables through the Arrow C Data Interface (ArrowSchema,
/// ArrowArray, ArrowArrayStream) and the C Device Data Interface (ArrowDeviceArray), and import
/// Arrow data as zeroflow arrays and tables, without copying the values where Arrow's layout is
/// zeroflow's. The structs are zeroflow's own ABI-compatible copies (interop/arrow_abi.hpp).
///
/// Mapping (formats are Arrow's format strings):
/// - 1-D arrays, stride 1: int8..int64 "c s i l", uint8..uint64 "C S I L", float16/32/64
///   "e f g" — the values buffer is the array's memory (element 0, offset 0).
/// - bool "b": Arrow packs booleans into bits, zeroflow stores one byte each, so export packs
///   and import unpacks: a copy either way (host memory only). arrow_export_copies and
///   arrow_import_copies say when that happens, so callers can refuse or warn.
/// - 2-D C-contiguous arrays N×W: fixed-size lists "+w:W" of N rows whose child holds the N·W
///   values (the VAE's beat rows are exchanged this way); import gives N×W back.
/// - A table: a struct array "+s" with one child per column (named as the columns).
/// Refused (zeroflow::invalid_argument): other dtypes (bfloat16, complex, vector lanes),
/// 0-d or >2-D arrays, non-contiguous arrays (copy them first), Arrow data with nulls (zeroflow
/// arrays have no validity bitmap), other Arrow types, and dictionary-encoded data.
///
/// Ownership follows the spec: every exported struct (children included) has its own release
/// callback; the private data holds a copy of the array, so the buffer lives until the last
/// exported struct viewing it is released. Imports move the consumer's struct (bitwise copy, the
/// source's release set to NULL) and call its release exactly once, when the last array viewing
/// it goes. Release callbacks never throw.
#include <string_view>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/core/table.hpp"
#include "zeroflow/interop/arrow_abi.hpp"

namespace zeroflow {

/// @brief True when exporting `a` to Arrow must copy its values (bool arrays: bit packing).
[[nodiscard]] bool arrow_export_copies(const array& a);

/// @brief Describes `a` as an Arrow field named `name` into `*out` (which the caller releases).
/// @throws invalid_argument when `a` has no Arrow representation (see the file comment)
void export_arrow_schema(const array& a, std::string_view name, arrow::ArrowSchema* out);

/// @brief Describes `t` as a struct ("+s") with one field per column into `*out`.
/// @throws invalid_argument when the table is invalid or a column has no Arrow representation
void export_arrow_schema(const table& t, arrow::ArrowSchema* out);

/// @brief Fills `*out` with a view of `a` (C Data Interface: the memory must be host-accessible).
/// @throws invalid_argument when `a` has no Arrow representation or lives in device memory
void export_arrow_array(const array& a, arrow::ArrowArray* out);

/// @brief Fills `*out` with a struct array of `t`'s columns (host-accessible memory).
void export_arrow_array(const table& t, arrow::ArrowArray* out);

/// @brief Fills `*out` with a view of `a` on its device (C Device Data Interface).
/// For device memory (cuda:N) a CUDA event is recorded on `stream` (the stream that produced
/// `a`) and `sync_event` points to it; consumers wait on it before reading. For host memory
/// `sync_event` is NULL. Booleans are packed on the host only.
/// @throws invalid_argument when `a` has no Arrow representation (or is a device bool array)
void export_arrow_device_array(const array& a, arrow::ArrowDeviceArray* out, stream_view stream);

/// @brief The same for a table (all columns on one device).
void export_arrow_device_array(const table& t, arrow::ArrowDeviceArray* out, stream_view stream);

/// @brief A stream that yields `t` as one struct array, then ends (host-accessible memory).
void export_arrow_stream(const table& t, arrow::ArrowArrayStream* out);

/// @brief True when importing data of this schema must copy (booleans: bit unpacking).
[[nodiscard]] bool arrow_import_copies(const arrow::ArrowSchema& schema);

/// @brief Takes ownership of `*in` (moved: in->release becomes NULL) and returns an array
/// viewing its values on `where` (a host device for the C Data Interface).
/// @param schema the type of `in`; only read (the caller releases it)
/// @throws invalid_argument for unsupported types, nulls, or a released `in`; `in` is released
///         (or left untouched when it was already released) before the throw
[[nodiscard]] array import_arrow_array(const arrow::ArrowSchema& schema, arrow::ArrowArray* in,
                                       device where = cpu_device);

/// @brief The same for a device array: takes ownership of in->array; when `sync_event` is set
/// (CUDA), `stream` is made to wait on it before this returns.
[[nodiscard]] array import_arrow_device_array(const arrow::ArrowSchema& schema, arrow::ArrowDeviceArray* in,
                                              stream_view stream);

/// @brief Takes ownership of a struct array `*in` and returns its children as a table.
[[nodiscard]] table import_arrow_table(const arrow::ArrowSchema& schema, arrow::ArrowArray* in,
                                       device where = cpu_device);

/// @brief The same for a device struct array.
[[nodiscard]] table import_arrow_device_table(const arrow::ArrowSchema& schema, arrow::ArrowDeviceArray* in,
                                              stream_view stream);

}  // namespace zeroflow
