#pragma once
/// @file detail/min_max.hpp
/// Device-specific halves of min_max.hpp. The public functions have checked dtypes, shapes and
/// devices; the inputs keep their strides (a column of a wider table is read in place).
#include <cstdint>
#include <optional>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/min_max.hpp"

namespace zeroflow::signal::detail {

/// A 1-D or 2-D input seen as rows × columns with element strides (a 1-D array is one column).
struct matrix_view {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t row_stride = 0;
  std::int64_t col_stride = 0;
};

[[nodiscard]] matrix_view matrix_of(const array& x);

[[nodiscard]] min_max_scaling min_max_fit_host(const array& x, feature_range range, stream_view stream);
[[nodiscard]] min_max_scaling min_max_fit_cuda(const array& x, feature_range range, stream_view stream);

/// inverse = false: y = x·scale + offset (clipped to `clip` when given); true: (x − offset) / scale.
[[nodiscard]] array min_max_apply_host(const array& x, const array& scale, const array& offset,
                                       std::optional<feature_range> clip, bool inverse, stream_view stream);
[[nodiscard]] array min_max_apply_cuda(const array& x, const array& scale, const array& offset,
                                       std::optional<feature_range> clip, bool inverse, stream_view stream);

}  // namespace zeroflow::signal::detail
