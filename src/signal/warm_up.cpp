#include "zeroflow/signal/warm_up.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/segment.hpp"

namespace zeroflow::signal {

void warm_up(const segment_params& params, device where, stream_view stream) {
  const segment_sizes sizes = sizes_for(params);  // bad parameters fail here on every device
  if (where.host_accessible()) return;
  // Beats of a length the pruning keeps, enough of them for every stage to have work.
  const std::int64_t period = std::max<std::int64_t>((sizes.min_length + sizes.max_length) / 2, 2);
  const std::int64_t n = std::max<std::int64_t>(24 * period, 4 * std::max(sizes.nms_window, sizes.ricker_width));
  array host = empty({n}, float32, cpu_device);
  auto samples = host.span<float>();
  const double width = std::max<double>(1.0, static_cast<double>(sizes.ricker_width) / 6.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const double offset = static_cast<double>(i % period - period / 2) / width;
    samples[static_cast<std::size_t>(i)] = static_cast<float>(std::exp(-0.5 * offset * offset));
  }
  const array signal = copy_to(host, where, stream);
  // The statistics subsample of a long recording is gathered through a strided copy: load it too.
  (void)copy_to(signal.slice(0, 0, n, 2), where, stream);
  (void)segment_beats(signal, params, stream);
  synchronize(stream);
}

}  // namespace zeroflow::signal
