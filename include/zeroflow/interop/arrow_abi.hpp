#pragma once
/// @file arrow_abi.hpp
/// zeroflow's own declaration of the Arrow C Data Interface, C Stream Interface and C Device
/// Data Interface structs (https://arrow.apache.org/docs/format/CDataInterface.html,
/// CStreamInterface.html, CDeviceDataInterface.html), written from the specification. They live
/// in namespace zeroflow::arrow so that a translation unit may also include Arrow's own
/// abi.h (whose structs are global); the layouts are identical (static_asserts below), so
/// pointers convert with reinterpret_cast. The spec's macros (ARROW_FLAG_*, ARROW_DEVICE_*) are
/// deliberately not defined here; use the constants below.
///
/// Ownership, as the spec sets it out:
/// - A struct whose `release` is NULL is released (or moved from) and must not be touched.
/// - The consumer of a base struct (ArrowSchema, ArrowArray, ArrowArrayStream) calls its
///   `release` exactly once; the producer's release callback releases the children and the
///   dictionary too, then sets `release` to NULL.
/// - A consumer may move a struct by bitwise copy and then set the source's `release` to NULL;
///   it may also move a child out of its parent the same way (the parent's release then skips
///   it), so every child has a release callback of its own.
/// - ArrowDeviceArray embeds an ArrowArray; releasing it means calling `array.release`.
#include <cstddef>
#include <cstdint>

namespace zeroflow::arrow {

/// ArrowSchema::flags bits.
inline constexpr std::int64_t flag_dictionary_ordered = 1;
inline constexpr std::int64_t flag_nullable = 2;
inline constexpr std::int64_t flag_map_keys_sorted = 4;

/// A type (and field name) description; `format` is the type's format string ("f" float32...).
struct ArrowSchema {
  const char* format;    ///< mandatory, e.g. "f", "l", "b", "+s", "+w:256"
  const char* name;      ///< field name; may be NULL
  const char* metadata;  ///< binary key/value metadata; may be NULL
  std::int64_t flags;    ///< flag_* bits
  std::int64_t n_children;
  ArrowSchema** children;         ///< n_children pointers (NULL when none)
  ArrowSchema* dictionary;        ///< NULL unless dictionary-encoded
  void (*release)(ArrowSchema*);  ///< NULL once released
  void* private_data;             ///< the producer's bookkeeping
};

/// The data of one array: `n_buffers` buffers (for primitives: validity bitmap, values), whose
/// element `offset` is the first one in the array.
struct ArrowArray {
  std::int64_t length;
  std::int64_t null_count;  ///< -1 when not computed
  std::int64_t offset;      ///< in elements (bits for booleans) into every buffer
  std::int64_t n_buffers;
  std::int64_t n_children;
  const void** buffers;  ///< n_buffers pointers; the validity bitmap may be NULL with no nulls
  ArrowArray** children;
  ArrowArray* dictionary;
  void (*release)(ArrowArray*);  ///< NULL once released
  void* private_data;
};

/// Device types (the same numbers as DLPack's DLDeviceType).
using ArrowDeviceType = std::int32_t;
inline constexpr ArrowDeviceType device_cpu = 1;
inline constexpr ArrowDeviceType device_cuda = 2;
inline constexpr ArrowDeviceType device_cuda_host = 3;
inline constexpr ArrowDeviceType device_cuda_managed = 13;

/// An ArrowArray whose buffers live on a device. For CUDA, `sync_event` points to a cudaEvent_t
/// (owned by the producer, freed by the array's release) that the consumer must make its stream
/// wait on before reading; NULL means the data is ready.
struct ArrowDeviceArray {
  ArrowArray array;
  std::int64_t device_id;
  ArrowDeviceType device_type;
  void* sync_event;
  std::int64_t reserved[3];  ///< must be zero
};

/// A pull-style stream of arrays of one schema. Callbacks return 0 or an errno value; a NULL
/// `release` in the ArrowArray given by get_next marks the end of the stream.
struct ArrowArrayStream {
  int (*get_schema)(ArrowArrayStream*, ArrowSchema* out);
  int (*get_next)(ArrowArrayStream*, ArrowArray* out);
  const char* (*get_last_error)(ArrowArrayStream*);
  void (*release)(ArrowArrayStream*);
  void* private_data;
};

// The ABI on LP64 targets (x86-64 and AArch64 Linux); a mismatch would corrupt every exchange.
#if UINTPTR_MAX == UINT64_MAX
static_assert(sizeof(ArrowSchema) == 72 && offsetof(ArrowSchema, format) == 0 && offsetof(ArrowSchema, name) == 8 &&
              offsetof(ArrowSchema, metadata) == 16 && offsetof(ArrowSchema, flags) == 24 &&
              offsetof(ArrowSchema, n_children) == 32 && offsetof(ArrowSchema, children) == 40 &&
              offsetof(ArrowSchema, dictionary) == 48 && offsetof(ArrowSchema, release) == 56 &&
              offsetof(ArrowSchema, private_data) == 64);
static_assert(sizeof(ArrowArray) == 80 && offsetof(ArrowArray, length) == 0 && offsetof(ArrowArray, null_count) == 8 &&
              offsetof(ArrowArray, offset) == 16 && offsetof(ArrowArray, n_buffers) == 24 &&
              offsetof(ArrowArray, n_children) == 32 && offsetof(ArrowArray, buffers) == 40 &&
              offsetof(ArrowArray, children) == 48 && offsetof(ArrowArray, dictionary) == 56 &&
              offsetof(ArrowArray, release) == 64 && offsetof(ArrowArray, private_data) == 72);
static_assert(sizeof(ArrowDeviceArray) == 128 && offsetof(ArrowDeviceArray, array) == 0 &&
              offsetof(ArrowDeviceArray, device_id) == 80 && offsetof(ArrowDeviceArray, device_type) == 88 &&
              offsetof(ArrowDeviceArray, sync_event) == 96 && offsetof(ArrowDeviceArray, reserved) == 104);
static_assert(sizeof(ArrowArrayStream) == 40 && offsetof(ArrowArrayStream, get_schema) == 0 &&
              offsetof(ArrowArrayStream, get_next) == 8 && offsetof(ArrowArrayStream, get_last_error) == 16 &&
              offsetof(ArrowArrayStream, release) == 24 && offsetof(ArrowArrayStream, private_data) == 32);
#endif

}  // namespace zeroflow::arrow
