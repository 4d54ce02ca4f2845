#include "zeroflow/signal/params.hpp"

#include <bit>
#include <cmath>

#include "zeroflow/core/error.hpp"

namespace zeroflow::signal {

namespace {
// Seconds → samples, nearest; refuses values no recording could use (and int64 overflow).
std::int64_t samples(double seconds, double rate, const char* name) {
  ZF_EXPECTS(std::isfinite(seconds) && seconds > 0, name, " must be a positive number of seconds, got ", seconds);
  const double n = std::round(seconds * rate);
  ZF_EXPECTS(n >= 1 && n <= double{1LL << 40}, name, " = ", seconds, " s at ", rate, " Hz gives ", n,
             " samples; it must be between 1 and 2^40");
  return static_cast<std::int64_t>(n);
}
}  // namespace

std::string_view segmentation_name(segmentation_method method) {
  return method == segmentation_method::gate_to_gate ? "gate-to-gate" : "robust";
}

std::optional<segmentation_method> segmentation_named(std::string_view name) {
  if (name == "robust") return segmentation_method::robust;
  if (name == "gate-to-gate" || name == "seed") return segmentation_method::gate_to_gate;
  return std::nullopt;
}

segment_sizes sizes_for(const segment_params& params) {
  ZF_EXPECTS(std::isfinite(params.sample_rate) && params.sample_rate > 0,
             "the sample rate must be a positive number of samples per second, got ", params.sample_rate);
  segment_sizes s;
  s.ricker_width = samples(params.ricker_seconds, params.sample_rate, "the Ricker band-pass width");
  s.nms_window = samples(params.nms_window_seconds, params.sample_rate, "the NMS window");
  s.min_length = samples(params.min_beat_seconds, params.sample_rate, "the shortest kept beat (`min_beat_seconds`)");
  s.max_length = samples(params.max_beat_seconds, params.sample_rate, "the longest kept beat (`max_beat_seconds`)");
  ZF_EXPECTS(s.nms_window >= 2, "the NMS window must span at least 2 samples, got ", s.nms_window, " (",
             params.nms_window_seconds, " s at ", params.sample_rate, " Hz)");
  ZF_EXPECTS(s.min_length <= s.max_length, "min_beat_seconds (", s.min_length, " samples) exceeds max_beat_seconds (",
             s.max_length, " samples)");
  // The VAE halves the row three times and its decoder doubles it back: a power of two >= 16.
  s.refractory = samples(params.refractory_seconds, params.sample_rate, "the refractory period");
  s.t_wave = samples(params.t_wave_seconds, params.sample_rate, "the T-wave window");
  s.replace = samples(params.replace_seconds, params.sample_rate, "the P-wave window");
  s.slope_half_window = samples(params.slope_seconds, params.sample_rate, "the slope window");
  s.learn = samples(params.learn_seconds, params.sample_rate, "the learning window");
  s.stretch = samples(params.stretch_seconds, params.sample_rate, "the detector's stretch");
  s.overlap = samples(params.overlap_seconds, params.sample_rate, "the detector's overlap");
  ZF_EXPECTS(s.overlap >= s.learn, "the detector's overlap (", params.overlap_seconds,
             " s) must be at least its learning window (", params.learn_seconds, " s)");
  s.rhythm_reach = samples(params.rhythm_seconds, params.sample_rate, "the detector's rhythm reference window");
  s.window_before = samples(params.window_before_seconds, params.sample_rate, "the beat window before the peak");
  s.window_after = samples(params.window_after_seconds, params.sample_rate, "the beat window after the peak");
  const std::int64_t row_samples =
      params.method == segmentation_method::gate_to_gate ? s.max_length : s.window_before + s.window_after;
  // The VAE halves the row three times and its decoder doubles it back: a power of two >= 16.
  s.row_width =
      static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(std::max<std::int64_t>(row_samples, 16))));
  return s;
}

}  // namespace zeroflow::signal
