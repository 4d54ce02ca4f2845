#include "zeroflow/signal/qrs_detect.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "checks.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/beats.hpp"
#include "zeroflow/signal/detail/qrs_decide.hpp"
#include "zeroflow/signal/nms.hpp"
#include "zeroflow/signal/ricker.hpp"

namespace zeroflow::signal {

qrs_detection detect_qrs(const array& signal, const segment_params& params, float /*center*/, stream_view stream) {
  detail::expect_1d(signal, "detect_qrs: signal", {float32});
  const segment_sizes sizes = sizes_for(params);
  // Candidates are maxima of a window of 2·(refractory/2) + 1 samples, centred.
  const std::int64_t window = 2 * (sizes.refractory / 2) + 1;
  const std::int64_t needed = std::max(sizes.ricker_width, window);
  ZF_EXPECTS(signal.size() >= needed, "the recording has ", signal.size(),
             " samples, fewer than beat detection needs (", needed, " at ", params.sample_rate, " Hz)");
  const bool cuda = detail::on_cuda(signal);
  const array x = cuda ? detail::cuda_input(signal, "detect_qrs: signal") : detail::host_input(signal, stream);

  qrs_detection d;
  d.filtered = bandpass(x, sizes.ricker_width, stream);
  // The band-pass made zero-mean (qrs_energy_at), so that squaring ignores the units' offset and
  // the baseline's steps.
  const array kernel = ricker_kernel(sizes.ricker_width, cpu_device, stream);
  double kernel_sum = 0;
  for (float tap : kernel.span<const float>()) kernel_sum += tap;
  const auto mean_tap = static_cast<float>(kernel_sum / static_cast<double>(sizes.ricker_width));
  const std::int64_t delay = (sizes.ricker_width - 1) / 2;
  d.energy = cuda ? detail::qrs_energy_cuda(x, d.filtered, sizes.ricker_width, delay, mean_tap, stream)
                  : detail::qrs_energy_host(x, d.filtered, sizes.ricker_width, delay, mean_tap, stream);
  const array gate = gate_positions(nms_gate(d.energy, window, stream), stream);
  const std::int64_t offset = (window + 1) / 2;
  // A QRS complex lies within half a refractory period of its energy maximum: the background's
  // blocks are that long, and the candidate's own block is left out.
  const std::int64_t block = std::max<std::int64_t>(1, sizes.refractory / 2);
  if (cuda)
    detail::qrs_candidates_cuda(x, d.energy, gate, offset, sizes.slope_half_window, block, d, stream);
  else
    detail::qrs_candidates_host(x, d.energy, gate, offset, sizes.slope_half_window, block, d, stream);
  const auto rules = detail::qrs_rules_for(sizes);
  d.peaks =
      cuda ? detail::qrs_select_cuda(d, x.size(), rules, stream) : detail::qrs_select_host(d, x.size(), rules, stream);
  return d;
}

namespace detail {

qrs_rules qrs_rules_for(const segment_sizes& sizes) {
  qrs_rules r;
  r.refractory = sizes.refractory;
  r.t_wave = sizes.t_wave;
  r.replace = sizes.replace;
  r.learn = sizes.learn;
  r.stretch = sizes.stretch;
  r.overlap = sizes.overlap;
  r.rhythm_reach = sizes.rhythm_reach;
  return r;
}

array qrs_energy_host(const array& signal, const array& filtered, std::int64_t width, std::int64_t delay,
                      float mean_tap, stream_view stream) {
  const auto* x = signal.data_as<const float>();
  const auto* y = filtered.data_as<const float>();
  const std::int64_t n = filtered.size();
  array out = empty({n}, float32, cpu_device, stream);
  float* e = out.data_as<float>();
  // The circular band-pass mixes the recording's end into its first width − 1 outputs: those,
  // and the samples whose delayed output lies past the end, have no energy.
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t at = i + delay;
    e[i] = at < width - 1 || at >= n ? 0.0F : qrs_energy_at(x, y, at, width, mean_tap);
  }
  return out;
}

void qrs_candidates_host(const array& signal, const array& energy, const array& gate_positions, std::int64_t offset,
                         std::int64_t slope_half_window, std::int64_t background_block, qrs_detection& out,
                         stream_view stream) {
  const auto x = signal.span<const float>();
  const auto e = energy.span<const float>();
  const auto g = gate_positions.span<const std::int64_t>();
  const auto n = static_cast<std::int64_t>(x.size());
  const auto count = static_cast<std::int64_t>(g.size());
  out.candidates = empty({count}, int64, cpu_device, stream);
  out.amplitude = empty({count}, float32, cpu_device, stream);
  out.slope = empty({count}, float32, cpu_device, stream);
  out.background = empty({count}, float32, cpu_device, stream);
  auto* c = out.candidates.data_as<std::int64_t>();
  auto* a = out.amplitude.data_as<float>();
  auto* s = out.slope.data_as<float>();
  auto* b = out.background.data_as<float>();
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t at = g[static_cast<std::size_t>(i)] + offset;
    c[i] = at;
    a[i] = e[static_cast<std::size_t>(at)];
    s[i] = qrs_slope(x.data(), n, at, slope_half_window);
    b[i] = qrs_background(e.data(), static_cast<std::int64_t>(e.size()), at, background_block);
  }
}

namespace {

/// The accepted beats (candidate indices, ascending) and their clear intervals (qrs_reference_rr).
struct accepted_beats {
  std::vector<std::int64_t> beat_of, clear;

  accepted_beats(const float* amplitude, const float* background, std::int64_t n, const qrs_rules& rules,
                 const std::uint8_t* beat) {
    for (std::int64_t i = 0; i < n; ++i)
      if (beat[i]) beat_of.push_back(i);
    for (std::size_t b = 0; b + 1 < beat_of.size(); ++b)
      if (qrs_is_clear_beat(amplitude, background, beat_of[b], rules) &&
          qrs_is_clear_beat(amplitude, background, beat_of[b + 1], rules))
        clear.push_back(static_cast<std::int64_t>(b));
  }
  [[nodiscard]] std::int64_t beats() const { return static_cast<std::int64_t>(beat_of.size()); }
  [[nodiscard]] std::int64_t clear_count() const { return static_cast<std::int64_t>(clear.size()); }
};

/// Unmarks the beats that qrs_off_rhythm finds extra and moves those that qrs_recentred finds
/// displaced, all judged against the same accepted beats.
void keep_time(const std::int64_t* position, const float* amplitude, const float* slope, const float* background,
               std::int64_t n, const qrs_rules& rules, std::uint8_t* beat) {
  const accepted_beats accepted(amplitude, background, n, rules, beat);
  const std::int64_t* beat_of = accepted.beat_of.data();
  const std::int64_t* clear = accepted.clear.data();
  std::vector<std::int64_t> extra, moved;
  for (std::int64_t k = 0; k < accepted.beats(); ++k) {
    if (qrs_off_rhythm(position, amplitude, slope, background, beat_of, accepted.beats(), clear, accepted.clear_count(),
                       k, rules)) {
      extra.push_back(beat_of[k]);
    } else if (const std::int64_t to = qrs_recentred(position, amplitude, slope, background, beat_of, accepted.beats(),
                                                     clear, accepted.clear_count(), k, rules);
               to >= 0) {
      extra.push_back(beat_of[k]);
      moved.push_back(to);
    }
  }
  // Dropped marks are on beats, moved ones on candidates between beats: the order does not matter.
  for (std::int64_t i : extra) beat[i] = 0;
  for (std::int64_t i : moved) beat[i] = 1;
}

/// Re-decides the beats in noise between anchors as rhythm paths (qrs_follow_rhythm), every path
/// judged against the same accepted beats.
void follow_rhythm(const std::int64_t* position, const float* amplitude, const float* slope, const float* background,
                   std::int64_t n, const qrs_rules& rules, std::uint8_t* beat) {
  const accepted_beats accepted(amplitude, background, n, rules, beat);
  std::vector<std::int64_t> anchors;
  for (std::int64_t k = 0; k < accepted.beats(); ++k)
    if (qrs_is_anchor(position, amplitude, slope, background, accepted.beat_of.data(), accepted.clear.data(),
                      accepted.clear_count(), k, rules))
      anchors.push_back(k);
  std::vector<float> cost(static_cast<std::size_t>(n));
  std::vector<std::int64_t> back(static_cast<std::size_t>(n));
  for (std::size_t c = 0; c + 1 < anchors.size(); ++c)
    qrs_follow_rhythm(position, amplitude, slope, background, accepted.beat_of.data(), accepted.clear.data(),
                      accepted.clear_count(), anchors.data(), static_cast<std::int64_t>(c), rules, cost.data(),
                      back.data(), beat);
}

}  // namespace

array qrs_select_host(const qrs_detection& d, std::int64_t /*samples*/, const qrs_rules& rules, stream_view stream) {
  const auto n = d.candidates.size();
  const auto* position = d.candidates.data_as<const std::int64_t>();
  const auto* amplitude = d.amplitude.data_as<const float>();
  const auto* slope = d.slope.data_as<const float>();
  const auto* background = d.background.data_as<const float>();
  std::vector<std::uint8_t> beat(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)));
  const std::int64_t stretches = n ? position[n - 1] / rules.stretch + 1 : 0;
  for (std::int64_t k = 0; k < stretches; ++k)
    qrs_decide_stretch(position, amplitude, slope, background, n, k, rules, beat.data());
  for (std::int64_t k = 1; k < stretches; ++k) qrs_join_stretches(position, amplitude, n, k, rules, beat.data());
  keep_time(position, amplitude, slope, background, n, rules, beat.data());
  follow_rhythm(position, amplitude, slope, background, n, rules, beat.data());
  std::int64_t beats = 0;
  for (std::int64_t i = 0; i < n; ++i) beats += beat[static_cast<std::size_t>(i)];
  array out = empty({beats}, int64, cpu_device, stream);
  auto* p = out.data_as<std::int64_t>();
  for (std::int64_t i = 0, k = 0; i < n; ++i)
    if (beat[static_cast<std::size_t>(i)]) p[k++] = position[i];
  return out;
}

#if !ZEROFLOW_HAS_CUDA
array qrs_energy_cuda(const array&, const array&, std::int64_t, std::int64_t, float, stream_view) {
  ZF_THROW(cuda_error, "beat detection on a GPU array needs a CUDA build of zeroflow");
}
void qrs_candidates_cuda(const array&, const array&, const array&, std::int64_t, std::int64_t, std::int64_t,
                         qrs_detection&, stream_view) {
  ZF_THROW(cuda_error, "beat detection on a GPU array needs a CUDA build of zeroflow");
}
array qrs_select_cuda(const qrs_detection&, std::int64_t, const qrs_rules&, stream_view) {
  ZF_THROW(cuda_error, "beat detection on a GPU array needs a CUDA build of zeroflow");
}
#endif

}  // namespace detail
}  // namespace zeroflow::signal
