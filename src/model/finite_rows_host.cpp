/// @file finite_rows_host.cpp
/// The host census of non-finite row values, and the dispatch by device (finite_rows.hpp).
#include <cmath>

#include "finite_rows.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#if ZEROFLOW_HAS_CUDA
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::model::detail {

namespace {

/// @param data the element (0, 0) in host memory; @param row_stride, col_stride in elements.
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

}  // namespace

non_finite_count count_non_finite(const float* data, device where, std::int64_t rows, std::int64_t width,
                                  std::int64_t row_stride, std::int64_t col_stride,
                                  [[maybe_unused]] stream_view stream) {
  if (where.host_accessible()) return count_non_finite_on_host(data, rows, width, row_stride, col_stride);
#if ZEROFLOW_HAS_CUDA
  const zeroflow::detail::cuda_device_guard on(where.id);
  return count_non_finite_on_gpu(data, rows, width, row_stride, col_stride, stream);
#else
  ZF_THROW(cuda_error, "rows on ", where.name(), " in a build without CUDA");
#endif
}

}  // namespace zeroflow::model::detail
