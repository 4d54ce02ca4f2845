#pragma once
/// @file finite_rows.hpp
/// Internal: how many values of N × W float32 rows are NaN or infinite, and where the first is —
/// the census the models take before training or scoring (a NaN makes every loss NaN). On a GPU one
/// pass of zeroflow's own kernel and a 16-byte read-back; on the host one loop.
#include <cstdint>

#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail {

struct non_finite_count {
  std::int64_t count = 0;
  std::int64_t first = -1;  ///< flat index row · W + column of the first one; -1 when none
};

/// @param data the element (0, 0) on the current GPU; @param row_stride, col_stride in elements.
/// Waits for `stream` to read the count.
[[nodiscard]] non_finite_count count_non_finite_on_gpu(const float* data, std::int64_t rows, std::int64_t width,
                                                       std::int64_t row_stride, std::int64_t col_stride,
                                                       stream_view stream);

/// The census wherever the rows live: `where` is the device whose memory `data` is in (the host's
/// loop for the CPU, the kernel on `where`'s GPU otherwise).
/// @throws zeroflow::cuda_error for GPU rows in a build without CUDA
[[nodiscard]] non_finite_count count_non_finite(const float* data, device where, std::int64_t rows, std::int64_t width,
                                                std::int64_t row_stride, std::int64_t col_stride, stream_view stream);

}  // namespace zeroflow::model::detail
