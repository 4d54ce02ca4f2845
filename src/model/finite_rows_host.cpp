/// @file finite_rows_host.cpp
/// The host census of non-finite row values (finite_rows.hpp).
#include <cmath>

#include "finite_rows.hpp"

namespace zeroflow::model::detail {

non_finite_count count_non_finite_on_host(const float* data, std::int64_t rows, std::int64_t width,
                                          std::int64_t row_stride, std::int64_t col_stride) {
  non_finite_count found;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < width; ++j)
      if (!std::isfinite(data[i * row_stride + j * col_stride])) {
        if (found.first < 0) found.first = i * width + j;
        ++found.count;
      }
  return found;
}

}  // namespace zeroflow::model::detail
