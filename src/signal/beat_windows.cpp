#include "zeroflow/signal/beat_windows.hpp"

#include <cmath>

#include "checks.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/checked_size.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::signal {

array embed_windows(const array& signal, const array& peaks, std::int64_t before, std::int64_t after,
                    std::int64_t row_width, normalization norm, stream_view stream) {
  detail::expect_1d(signal, "embed_windows: signal", {float32});
  detail::expect_1d(peaks, "embed_windows: peaks", {int64});
  detail::expect_same_device(signal, peaks, "embed_windows");
  ZF_EXPECTS(before >= 0 && after >= 1 && after <= row_width && before <= row_width - after,
             "embed_windows: a window of ", before, " + ", after, " samples does not fit a row of ", row_width);
  // One row per peak: a width that wraps the output's size would write past a small allocation.
  (void)contiguous_bytes(shape_t{peaks.size(), row_width}, float32);
  ZF_EXPECTS(std::isfinite(norm.center) && std::isfinite(norm.scale) && norm.scale != 0,
             "embed_windows: the normalisation must be finite with a non-zero scale");
  if (detail::on_cuda(signal))
    return detail::embed_windows_cuda(detail::cuda_input(signal, "embed_windows: signal"),
                                      detail::cuda_input(peaks, "embed_windows: peaks"), before, after, row_width, norm,
                                      stream);
  return detail::embed_windows_host(detail::host_input(signal, stream), detail::host_input(peaks, stream), before,
                                    after, row_width, norm, stream);
}

namespace detail {

array embed_windows_host(const array& signal, const array& peaks, std::int64_t before, std::int64_t after,
                         std::int64_t row_width, normalization norm, stream_view stream) {
  const auto x = signal.span<const float>();
  const auto p = peaks.span<const std::int64_t>();
  const auto n = static_cast<std::int64_t>(x.size());
  const auto rows = static_cast<std::int64_t>(p.size());
  array out = empty({rows, row_width}, float32, cpu_device, stream);
  float* r = out.data_as<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    // Peaks may hold any value: modular arithmetic, as a wrapped sample lands far outside [0, n).
    const auto start = static_cast<std::uint64_t>(p[static_cast<std::size_t>(b)]) - static_cast<std::uint64_t>(before);
    float* row = r + b * row_width;
    for (std::int64_t j = 0; j < row_width; ++j) {
      const auto at = static_cast<std::int64_t>(start + static_cast<std::uint64_t>(j));
      float v = 0.0F;
      if (j < before + after && at >= 0 && at < n) {
        v = (x[static_cast<std::size_t>(at)] - norm.center) / norm.scale;
        if (!std::isfinite(v)) v = 0.0F;  // a gap in the recording reads as its median
      }
      row[j] = v;
    }
  }
  return out;
}

#if !ZEROFLOW_HAS_CUDA
array embed_windows_cuda(const array&, const array&, std::int64_t, std::int64_t, std::int64_t, normalization,
                         stream_view) {
  ZF_THROW(cuda_error, "embed_windows on a GPU array needs a CUDA build of zeroflow");
}
#endif

}  // namespace detail
}  // namespace zeroflow::signal
