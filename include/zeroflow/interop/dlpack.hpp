#pragma once
/// @file dlpack.hpp
/// Export zeroflow arrays as DLPack tensors and import DLPack tensors as arrays, without copying.
/// The structs are zeroflow's own ABI-compatible copy of DLPack 1.x (interop/dlpack_abi.hpp),
/// in namespace zeroflow::dlpack so they never clash with a framework's dlpack.h; a consumer
/// that has the real header reinterpret_casts (the layouts are static_assert-ed equal).
#include "zeroflow/core/array.hpp"
#include "zeroflow/interop/dlpack_abi.hpp"

namespace zeroflow {

/// A new DLManagedTensorVersioned viewing `a`; the caller owns it and must call its deleter
/// exactly once. The deleter keeps `a`'s buffer alive until then. A read-only array sets
/// DLPACK_FLAG_BITMASK_READ_ONLY.
[[nodiscard]] dlpack::DLManagedTensorVersioned* to_dlpack_versioned(const array& a);
/// The same as a legacy (pre-1.0) DLManagedTensor.
[[nodiscard]] dlpack::DLManagedTensor* to_dlpack(const array& a);

/// Takes ownership of `t` and returns an array viewing its memory; t's deleter runs once, when
/// the last view of the array goes. A major version other than 1, an unknown device or dtype:
/// the deleter is called at once and zeroflow::invalid_argument is thrown. NULL strides mean
/// C-contiguous. The READ_ONLY flag gives a read-only array.
[[nodiscard]] array from_dlpack(dlpack::DLManagedTensorVersioned* t);
/// The same for a legacy DLManagedTensor.
[[nodiscard]] array from_dlpack(dlpack::DLManagedTensor* t);

}  // namespace zeroflow
