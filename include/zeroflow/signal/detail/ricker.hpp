#pragma once
/// @file detail/ricker.hpp
/// Device-specific halves of ricker.hpp. Contract for every *_host / *_cuda function in
/// signal/detail: the public function has validated the arguments (dimensions, dtypes, sizes,
/// devices), made the inputs contiguous, and picked the implementation from the input's
/// device; the implementation allocates its outputs with zeroflow::empty on that device and
/// queues its work on `stream`.
#include <cstdint>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal::detail {

/// The Ricker taps in double, exactly as documented for ricker_kernel (width >= 1). Shared by
/// both implementations so that they filter with the same numbers.
[[nodiscard]] std::vector<double> ricker_taps(std::int64_t width);

[[nodiscard]] array ricker_kernel_host(std::int64_t width, device where, stream_view stream);
[[nodiscard]] array ricker_kernel_cuda(std::int64_t width, device where, stream_view stream);

/// signal: contiguous 1-D float32, 1 <= ricker_width <= size.
[[nodiscard]] array bandpass_host(const array& signal, std::int64_t ricker_width, stream_view stream);
[[nodiscard]] array bandpass_cuda(const array& signal, std::int64_t ricker_width, stream_view stream);

}  // namespace zeroflow::signal::detail
