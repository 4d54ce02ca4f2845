#include "zeroflow/signal/warm_up.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/segment.hpp"

namespace zeroflow::signal {

void warm_up(const segment_params& params, device where, stream_view stream) {
  const segment_sizes sizes = sizes_for(params);  // bad parameters fail here on every device
  if (where.host_accessible()) return;
  // Beats of a length the pruning keeps, as many as a long recording has: libraries pick their
  // kernels by size (CUB sorts a few thousand keys in one block, more in several passes), and a
  // kernel first launched inside the timed segmentation would cost its loading there.
  constexpr std::int64_t beats = 8192;
  const std::int64_t period = std::max<std::int64_t>((sizes.min_length + sizes.max_length) / 2, 2);
  const std::int64_t n = std::max<std::int64_t>(beats * period, 4 * std::max(sizes.nms_window, sizes.ricker_width));
  std::vector<float> beat(static_cast<std::size_t>(period));
  const double width = std::max<double>(1.0, static_cast<double>(sizes.ricker_width) / 6.0);
  for (std::int64_t i = 0; i < period; ++i) {
    const double offset = static_cast<double>(i - period / 2) / width;
    beat[static_cast<std::size_t>(i)] = static_cast<float>(std::exp(-0.5 * offset * offset));
  }
  array host = empty({n}, float32, cpu_device);
  auto samples = host.span<float>();
  for (std::int64_t i = 0; i < n; ++i)
    samples[static_cast<std::size_t>(i)] = beat[static_cast<std::size_t>(i % period)];
  const array signal = copy_to(host, where, stream);
  // The statistics subsample of a long recording is gathered through a strided copy: load it too.
  (void)copy_to(signal.slice(0, 0, n, 2), where, stream);
  (void)segment_recording(signal, params, stream);
  synchronize(stream);
}

void warm_up(const array& signal, const segment_params& params, stream_view stream) {
  if (signal.where().host_accessible()) return;
  (void)segment_recording(signal, params, stream);
  synchronize(stream);
}

}  // namespace zeroflow::signal
