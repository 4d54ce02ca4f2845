#include "zeroflow/signal/qrs_detect.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "checks.hpp"
#include "qrs_decide.hpp"
#include "qrs_measures.hpp"
#include "qrs_paths.hpp"
#include "qrs_rhythm.hpp"
#include "qrs_rules.hpp"
#include "qrs_select.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/detail/parallel_chunks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/beats.hpp"
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
  // The band-pass made zero-mean (qrs_energy_run), so that squaring ignores the units' offset and
  // the baseline's steps.
  const array kernel = ricker_kernel(sizes.ricker_width, cpu_device, stream);
  double kernel_sum = 0;
  for (float tap : kernel.span<const float>()) kernel_sum += tap;
  const double mean_tap = kernel_sum / static_cast<double>(sizes.ricker_width);
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

array qrs_energy_host(const array& signal, const array& filtered, std::int64_t width, std::int64_t delay,
                      double mean_tap, stream_view stream) {
  const auto* x = signal.data_as<const float>();
  const auto* y = filtered.data_as<const float>();
  const std::int64_t n = filtered.size();
  array out = empty({n}, float32, cpu_device, stream);
  float* e = out.data_as<float>();
  zeroflow::detail::parallel_chunks(qrs_energy_runs(n),
                                    std::max<std::int64_t>(1, (std::int64_t{1} << 16) / qrs_energy_run_length),
                                    [&](std::int64_t first, std::int64_t last) {
                                      for (std::int64_t r = first; r < last; ++r)
                                        qrs_energy_run(x, y, n, width, delay, mean_tap, e, r);
                                    });
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

/// The candidates of `d`, on the host.
qrs_candidate_view candidates_of(const qrs_detection& d) {
  return {d.candidates.data_as<const std::int64_t>(), d.amplitude.data_as<const float>(),
          d.slope.data_as<const float>(), d.background.data_as<const float>(), d.candidates.size()};
}

/// The accepted beats (candidate indices, ascending) and their clear intervals (qrs_reference_rr).
struct accepted_beats {
  std::vector<std::int64_t> beat_of, clear;

  accepted_beats(const qrs_candidate_view& c, const qrs_rules& rules, const std::uint8_t* beat) {
    for (std::int64_t i = 0; i < c.n; ++i)
      if (beat[i]) beat_of.push_back(i);
    for (std::size_t b = 0; b + 1 < beat_of.size(); ++b)
      if (qrs_is_clear_beat(c, beat_of[b], rules.rhythm) && qrs_is_clear_beat(c, beat_of[b + 1], rules.rhythm))
        clear.push_back(static_cast<std::int64_t>(b));
  }
  [[nodiscard]] qrs_accepted_view view() const {
    return {beat_of.data(), static_cast<std::int64_t>(beat_of.size()), clear.data(),
            static_cast<std::int64_t>(clear.size())};
  }
};

/// Unmarks the beats that qrs_off_rhythm finds extra and moves those that qrs_recentred finds
/// displaced, all judged against the same accepted beats.
void keep_time(const qrs_candidate_view& c, const qrs_rules& rules, std::uint8_t* beat) {
  const accepted_beats accepted(c, rules, beat);
  const qrs_accepted_view beats = accepted.view();
  std::vector<std::int64_t> extra, moved;
  for (std::int64_t k = 0; k < beats.beats; ++k) {
    if (qrs_off_rhythm(c, beats, k, rules)) {
      extra.push_back(beats.beat_of[k]);
    } else if (const std::int64_t to = qrs_recentred(c, beats, k, rules); to >= 0) {
      extra.push_back(beats.beat_of[k]);
      moved.push_back(to);
    }
  }
  // Dropped marks are on beats, moved ones on candidates between beats: the order does not matter.
  for (std::int64_t i : extra) beat[i] = 0;
  for (std::int64_t i : moved) beat[i] = 1;
}

/// Re-decides the beats in noise between anchors as rhythm paths (qrs_follow_rhythm), every path
/// judged against the same accepted beats.
void follow_rhythm(const qrs_candidate_view& c, const qrs_rules& rules, std::uint8_t* beat) {
  const accepted_beats accepted(c, rules, beat);
  const qrs_accepted_view beats = accepted.view();
  std::vector<std::int64_t> anchors;
  for (std::int64_t k = 0; k < beats.beats; ++k)
    if (qrs_is_anchor(c, beats, k, rules)) anchors.push_back(k);
  std::vector<float> cost(static_cast<std::size_t>(c.n));
  std::vector<std::int64_t> back(static_cast<std::size_t>(c.n));
  for (std::size_t a = 0; a + 1 < anchors.size(); ++a)
    qrs_follow_rhythm(c, beats, anchors.data(), static_cast<std::int64_t>(a), rules, {cost.data(), back.data()}, beat);
}

}  // namespace

array qrs_select_host(const qrs_detection& d, std::int64_t /*samples*/, const qrs_rules& rules, stream_view stream) {
  const qrs_candidate_view c = candidates_of(d);
  std::vector<std::uint8_t> beat(static_cast<std::size_t>(std::max<std::int64_t>(c.n, 1)));
  const std::int64_t stretches = c.n ? c.position[c.n - 1] / rules.time.stretch_samples + 1 : 0;
  for (std::int64_t k = 0; k < stretches; ++k) qrs_decide_stretch(c, k, rules, beat.data());
  for (std::int64_t k = 1; k < stretches; ++k) qrs_join_stretches(c, k, rules.time, beat.data());
  keep_time(c, rules, beat.data());
  follow_rhythm(c, rules, beat.data());
  std::int64_t beats = 0;
  for (std::int64_t i = 0; i < c.n; ++i) beats += beat[static_cast<std::size_t>(i)];
  array out = empty({beats}, int64, cpu_device, stream);
  auto* p = out.data_as<std::int64_t>();
  for (std::int64_t i = 0, k = 0; i < c.n; ++i)
    if (beat[static_cast<std::size_t>(i)]) p[k++] = c.position[i];
  return out;
}

array qrs_select_host(const qrs_detection& d, std::int64_t samples, const segment_sizes& sizes, stream_view stream) {
  return qrs_select_host(d, samples, qrs_rules_for(sizes), stream);
}

#if !ZEROFLOW_HAS_CUDA
array qrs_energy_cuda(const array&, const array&, std::int64_t, std::int64_t, double, stream_view) {
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
