#pragma once
/// @file dlpack.hpp
/// Export zeroflow arrays as DLPack tensors and import DLPack tensors as arrays, without copying.
/// The structs are zeroflow's own ABI-compatible copy of DLPack 1.x (interop/dlpack_abi.hpp),
/// in namespace zeroflow::dlpack so they never clash with a framework's dlpack.h; a consumer
/// that has the real header reinterpret_casts (the layouts are static_assert-ed equal).
///
/// What an export looks like:
/// - `data` is the address of element 0 and `byte_offset` is 0. DLPack would rather have the
///   allocation's (aligned) start in `data` and the view's offset in `byte_offset`, but several
///   consumers in use ignored `byte_offset` (older PyTorch releases, cuda.core's StridedMemoryView,
///   NVIDIA Warp) and silently read the wrong elements, while every consumer honours `data`. The
///   spec itself tells consumers not to rely on the alignment. For a fresh allocation (offset 0)
///   `data` is still the buffer's aligned start. A tensor with no elements has `data` NULL.
/// - `strides` are always filled in (elements; negative and zero strides pass through as they
///   are), `shape`/`strides` are NULL only for 0-d arrays.
/// - Version 1.1; flags READ_ONLY for a read-only array.
/// - No stream synchronisation happens here: the caller orders the consumer after the work that
///   produced the data (the Python layer does this for `__dlpack__(stream=...)`).
///
/// Misuse is an error, never a crash or a double free:
/// - zeroflow keeps a registry of its live exports keyed by the address handed out; its deleter
///   looks its argument up there and never reads through it. Calling the deleter of a zeroflow
///   export a second time (or on an address zeroflow never exported) prints one line to stderr
///   and does nothing (a deleter is called from C and cannot throw).
/// - A deleted export keeps its memory for the next 256 deletions, so its address cannot be
///   reused meanwhile; from_dlpack on such an address throws invalid_argument without touching
///   it. (Beyond that window a stale pointer is indistinguishable from a foreign tensor.)
/// - from_dlpack on a managed tensor whose imported array is still alive throws
///   invalid_argument and leaves the tensor to the first import.
#include "zeroflow/core/array.hpp"
#include "zeroflow/interop/dlpack_abi.hpp"

namespace zeroflow {

/// @brief A new DLManagedTensorVersioned (version 1.1) viewing `a`, without copying.
/// The caller owns it and must call its deleter exactly once; until then it keeps `a`'s buffer
/// alive (the array `a` itself may go). A read-only array sets flag_bitmask_read_only.
/// @param a the array to export (host or device memory)
/// @throws invalid_argument when `a` is empty (default-constructed)
[[nodiscard]] dlpack::DLManagedTensorVersioned* to_dlpack_versioned(const array& a);

/// @brief The same as a legacy (pre-1.0) DLManagedTensor, for consumers without 1.x support.
/// @throws invalid_argument when `a` is empty, or read-only (the legacy struct has no flag to
///         say so, and a consumer would write through it; use to_dlpack_versioned)
[[nodiscard]] dlpack::DLManagedTensor* to_dlpack(const array& a);

/// @brief Takes ownership of `t` and returns an array viewing its memory, without copying.
/// t's deleter runs exactly once: when the last view of the returned array (and any export of
/// it) goes, or before the throw when `t` cannot be represented. NULL strides mean C-contiguous;
/// negative and zero strides, 0-d and 0-size tensors are accepted; the READ_ONLY flag gives a
/// read-only array. Devices: CPU, CUDA, CUDAHost, CUDAManaged.
/// @param t a managed tensor of any producer (zeroflow, PyTorch, NumPy, CuPy...)
/// @throws invalid_argument after calling t's deleter: a major version other than 1, an
///         unsupported device or dtype, a negative extent, NULL data with elements.
/// @throws invalid_argument without calling the deleter: `t` is NULL, is already imported (and
///         that array is alive), or is a zeroflow export whose deleter already ran.
[[nodiscard]] array from_dlpack(dlpack::DLManagedTensorVersioned* t);

/// @brief The same for a legacy DLManagedTensor (no version to check; never read-only).
[[nodiscard]] array from_dlpack(dlpack::DLManagedTensor* t);

}  // namespace zeroflow
