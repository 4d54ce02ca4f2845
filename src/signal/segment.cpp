#include "zeroflow/signal/segment.hpp"

#include <algorithm>

#include "checks.hpp"
#include "zeroflow/config.hpp"
#if ZEROFLOW_HAS_CUDA
#include "detail_cuda/segment.hpp"
#endif
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/beat_windows.hpp"
#include "zeroflow/signal/peak_filter.hpp"
#include "zeroflow/signal/qrs_detect.hpp"

namespace zeroflow::signal {

segmentation segment_beats(const array& signal, const segment_params& params, stream_view stream) {
  detail::expect_1d(signal, "segment_beats: signal", {float32});
  segmentation s;
  // The gate-to-gate method whatever params.method says: its rows hold the longest kept beat.
  segment_params gated = params;
  gated.method = segmentation_method::gate_to_gate;
  s.sizes = sizes_for(gated);
  const std::int64_t needed = std::max(s.sizes.ricker_width, s.sizes.nms_window);
  ZF_EXPECTS(signal.size() >= needed, "segment_beats: the signal has ", signal.size(),
             " samples, fewer than the band-pass and NMS windows need (", needed, " at ", params.sample_rate, " Hz)");
  // Strided input is made contiguous once here instead of once per stage.
  const array x = detail::on_cuda(signal) ? detail::cuda_input(signal, "segment_beats: signal")
                                          : detail::host_input(signal, stream);

  // The median and MAD of a long recording are those of an evenly strided subsample of at least
  // 2^20 samples (exact below that): an hour at 250 Hz is exact, 22 hours use every 19th sample.
  // The estimate moves by ~0.1 % at most, and on the GPU the selection no longer reads 80 MB four
  // times (which was most of the segmentation's time); host and GPU take the same subsample.
  const std::int64_t stride = std::max<std::int64_t>(1, x.size() >> statistics_sample_bits);
  // What the band-pass makes of the recording's offset, so the weak-peak test ignores units.
  const array kernel = ricker_kernel(s.sizes.ricker_width, cpu_device, stream);  // named: span() must not dangle
  double kernel_sum = 0;
  for (float tap : kernel.span<const float>()) kernel_sum += tap;
#if ZEROFLOW_HAS_CUDA
  if (detail::on_cuda(x)) return detail::segment_beats_cuda(x, gated, s.sizes, kernel_sum, stride, stream);
#endif
  const array sample = stride == 1 ? x : copy_to(x.slice(0, 0, x.size(), stride), x.where(), stream);
  const normalization robust = robust_zscore(sample, stream);
  s.filtered = bandpass(x, s.sizes.ricker_width, stream);
  s.gate = nms_gate(s.filtered, s.sizes.nms_window, stream);
  s.norm = params.normalize_rows ? robust : normalization{0.0F, 1.0F};
  const auto baseline = static_cast<float>(robust.center * kernel_sum);
  s.positions = drop_weak_peaks(s.filtered, gate_positions(s.gate, stream), s.sizes.nms_window, params.min_peak_ratio,
                                baseline, stream);
  s.lengths = beat_lengths(s.positions, stream);
  s.histogram = length_histogram(s.lengths, 2 * s.sizes.max_length + 1, stream);
  s.peaks = locate_peaks(x, s.positions, s.sizes.nms_window, s.sizes.ricker_width, robust.center, stream);
  s.beats =
      embed_beats(x, s.positions, s.lengths, s.sizes.min_length, s.sizes.max_length, s.sizes.row_width, s.norm, stream);
  return s;
}

namespace {

// What the robust method derives from its beats' R peaks (segment_recording's fields after
// detection), from x as segment_recording prepares it.
void beats_at(segmentation& s, const array& x, const array& peaks, const segment_params& params, stream_view stream) {
  s.peaks = peaks;
  s.positions = peaks;
  s.lengths = beat_lengths(peaks, stream);
  s.histogram = length_histogram(s.lengths, 2 * s.sizes.max_length + 1, stream);
  s.beats.rows =
      embed_windows(x, peaks, s.sizes.window_before, s.sizes.window_after, s.sizes.row_width, s.norm, stream);
  s.rr = rhythm_features(peaks, params.sample_rate, stream);
}

}  // namespace

segmentation segment_recording(const array& signal, const segment_params& params, stream_view stream) {
  if (params.method == segmentation_method::gate_to_gate) return segment_beats(signal, params, stream);
  detail::expect_1d(signal, "segment_recording: signal", {float32});
  segmentation s;
  s.sizes = sizes_for(params);
  const bool cuda = detail::on_cuda(signal);
  const array x = cuda ? detail::cuda_input(signal, "segment_recording: signal") : detail::host_input(signal, stream);
  // The recording's median and MAD from a strided subsample, as segment_beats takes them.
  const std::int64_t stride = std::max<std::int64_t>(1, x.size() >> statistics_sample_bits);
  const array sample = stride == 1 ? x : copy_to(x.slice(0, 0, x.size(), stride), x.where(), stream);
  const normalization robust = robust_zscore(sample, stream);
  s.norm = params.normalize_rows ? robust : normalization{0.0F, 1.0F};
  qrs_detection d = detect_qrs(x, params, robust.center, stream);
  s.filtered = std::move(d.filtered);
  beats_at(s, x, d.peaks, params, stream);
  return s;
}

void place_beats(segmentation& s, const array& signal, const array& peaks, const segment_params& params,
                 stream_view stream) {
  detail::expect_1d(signal, "place_beats: signal", {float32});
  ZF_EXPECTS(params.method == segmentation_method::robust, "place_beats: only the robust method's beats can be placed");
  const bool cuda = detail::on_cuda(signal);
  const array x = cuda ? detail::cuda_input(signal, "place_beats: signal") : detail::host_input(signal, stream);
  beats_at(s, x, peaks, params, stream);
}

}  // namespace zeroflow::signal
