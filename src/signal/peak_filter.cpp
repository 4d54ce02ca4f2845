#include "zeroflow/signal/peak_filter.hpp"

#include <algorithm>
#include <vector>

#include "checks.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::signal {

array drop_weak_peaks(const array& filtered, const array& positions, std::int64_t nms_window, double ratio,
                      float baseline, stream_view stream) {
  detail::expect_1d(filtered, "drop_weak_peaks: filtered", {float32});
  detail::expect_1d(positions, "drop_weak_peaks: positions", {int64});
  detail::expect_same_device(filtered, positions, "drop_weak_peaks");
  ZF_EXPECTS(nms_window >= 1, "drop_weak_peaks: nms_window must be >= 1, got ", nms_window);
  if (ratio <= 0 || positions.size() == 0) return positions;
  const std::int64_t offset = (nms_window + 1) / 2;
  if (detail::on_cuda(filtered))
    return detail::drop_weak_peaks_cuda(detail::cuda_input(filtered, "drop_weak_peaks: filtered"),
                                        detail::cuda_input(positions, "drop_weak_peaks: positions"), offset, ratio,
                                        baseline, stream);
  return detail::drop_weak_peaks_host(detail::host_input(filtered, stream), detail::host_input(positions, stream),
                                      offset, ratio, baseline, stream);
}

namespace detail {

array drop_weak_peaks_host(const array& filtered, const array& positions, std::int64_t offset, double ratio,
                           float baseline, stream_view stream) {
  const auto x = filtered.span<const float>();
  const auto p = positions.span<const std::int64_t>();
  std::vector<float> heights(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::int64_t at = p[i] + offset;
    ZF_EXPECTS(at >= 0 && at < static_cast<std::int64_t>(x.size()), "drop_weak_peaks: position ", p[i], " + ", offset,
               " is outside the ", x.size(), "-sample signal");
    heights[i] = x[static_cast<std::size_t>(at)] - baseline;
  }
  std::vector<float> sorted = heights;
  const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>((sorted.size() - 1) / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  // Same float arithmetic as the CUDA path, so both keep exactly the same positions.
  const float threshold = static_cast<float>(ratio) * *middle;
  std::vector<std::int64_t> kept;
  kept.reserve(p.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    if (heights[i] >= threshold) kept.push_back(p[i]);
  array out = empty({static_cast<std::int64_t>(kept.size())}, int64, cpu_device, stream);
  std::copy(kept.begin(), kept.end(), out.data_as<std::int64_t>());
  return out;
}

#if !ZEROFLOW_HAS_CUDA
array drop_weak_peaks_cuda(const array&, const array&, std::int64_t, double, float, stream_view) {
  ZF_THROW(cuda_error, "drop_weak_peaks on a CUDA array needs a CUDA build of zeroflow");
}
#endif

}  // namespace detail
}  // namespace zeroflow::signal
