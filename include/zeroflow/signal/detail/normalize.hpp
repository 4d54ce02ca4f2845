#pragma once
/// @file detail/normalize.hpp
/// Device-specific halves of normalize.hpp (contract: see detail/ricker.hpp).
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/normalize.hpp"

namespace zeroflow::signal::detail {

/// signal: contiguous 1-D float32, not empty. The CUDA version returns once the result is on the host.
[[nodiscard]] normalization robust_zscore_host(const array& signal, stream_view stream);
[[nodiscard]] normalization robust_zscore_cuda(const array& signal, stream_view stream);

/// The fallback chain shared by both implementations: the first of 1.4826·mad, stddev, 1 that
/// is finite and positive once rounded to float.
[[nodiscard]] float robust_scale(double mad, double stddev);

}  // namespace zeroflow::signal::detail
