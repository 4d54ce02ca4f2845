#include "zeroflow/signal/segment.hpp"

#include <algorithm>

#include "checks.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::signal {

segmentation segment_beats(const array& signal, const segment_params& params, stream_view stream) {
  detail::expect_1d(signal, "segment_beats: signal", {float32});
  segmentation s;
  s.sizes = sizes_for(params);
  const std::int64_t needed = std::max(s.sizes.ricker_width, s.sizes.nms_window);
  ZF_EXPECTS(signal.size() >= needed, "segment_beats: the signal has ", signal.size(),
             " samples, fewer than the band-pass and NMS windows need (", needed, " at ", params.sample_rate, " Hz)");
  // Strided input is made contiguous once here instead of once per stage.
  const array x = detail::on_cuda(signal) ? signal : detail::host_input(signal, stream);

  s.norm = robust_zscore(x, stream);
  s.filtered = bandpass(x, s.sizes.ricker_width, stream);
  s.gate = nms_gate(s.filtered, s.sizes.nms_window, stream);
  s.positions = gate_positions(s.gate, stream);
  s.lengths = beat_lengths(s.positions, stream);
  s.histogram = length_histogram(s.lengths, 2 * s.sizes.max_length + 1, stream);
  s.peaks = locate_peaks(x, s.positions, s.sizes.nms_window, s.sizes.ricker_width, s.norm.center, stream);
  s.beats = embed_beats(x, s.positions, s.lengths, s.sizes.min_length, s.sizes.max_length, s.sizes.row_width, s.norm,
                        stream);
  return s;
}

}  // namespace zeroflow::signal
