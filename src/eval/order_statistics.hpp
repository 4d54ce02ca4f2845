#pragma once
// Private to eval/quantile: the order statistics a quantile interpolates between, selected where
// the values live (on a GPU: sorted there, and only the selected values cross to the host).
#include <cstdint>
#include <span>
#include <vector>

#include "zeroflow/config.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::eval::detail {

/// The values of the given 0-based ranks among a 1-D array's values, or none when a value is NaN.
struct order_statistics {
  bool has_nan = false;
  std::vector<double> values;  ///< one per rank, in the order asked (empty when has_nan)
};

#if ZEROFLOW_HAS_CUDA
/// For a 1-D float32 or float64 array (any stride) on a GPU: its values widened to double and
/// radix-sorted on `stream`, then one read-back of the asked ranks and the NaN count.
[[nodiscard]] order_statistics order_statistics_cuda(const array& values, std::span<const std::int64_t> ranks,
                                                     stream_view stream);
#endif

}  // namespace zeroflow::eval::detail
