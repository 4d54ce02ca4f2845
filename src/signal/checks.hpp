#pragma once
// Private helpers of the signal layer: argument checks shared by the public entry points, and
// the preparation of inputs for the host or CUDA implementation.
#include <initializer_list>
#include <string>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal::detail {

/// Throws invalid_argument unless `x` is a valid 1-D array of one of `types`; `what` names it
/// in the message ("bandpass: signal").
void expect_1d(const array& x, const char* what, std::initializer_list<dtype> types);

/// Throws invalid_argument unless `a` and `b` live on the same device.
void expect_same_device(const array& a, const array& b, const char* what);

/// True when the CUDA implementation must run (device memory); pinned and managed memory are
/// host-accessible and take the host path.
[[nodiscard]] inline bool on_cuda(const array& x) { return x.where().type == device_type::cuda; }

/// The input as the host implementation wants it: contiguous (a copy when strided) and safe to
/// read, i.e. after waiting for `stream` when the memory belongs to CUDA (pinned or managed)
/// and the GPU may still be writing it.
[[nodiscard]] array host_input(const array& x, stream_view stream);

/// The input as a CUDA implementation wants it: contiguous (strided device arrays are refused
/// for now with invalid_argument).
[[nodiscard]] array cuda_input(const array& x, const char* what);

}  // namespace zeroflow::signal::detail
