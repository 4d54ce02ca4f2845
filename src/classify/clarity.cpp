// Clarity and unreadable stretches (beat_classes.hpp, step 0; clarity_row.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "clarity_row.hpp"
#include "features.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::classify::detail {

clarity_window clarity_window_of(const beat_rows& rows, double sample_rate) {
  const auto samples = [&](double seconds) { return static_cast<std::int64_t>(std::lround(seconds * sample_rate)); };
  clarity_window w;
  w.span = std::max<std::int64_t>(1, samples(0.010));
  w.length = rows.window_before + rows.window_after;
  w.qrs_begin = rows.window_before - samples(0.05);
  w.qrs_end = rows.window_before + samples(0.05);
  w.skip_begin = rows.window_before - samples(0.10);
  w.skip_end = rows.window_before + samples(0.10);
  return w;
}

std::vector<float> clarity(const beat_rows& rows, std::int64_t beats, const clarity_window& w) {
  std::vector<float> out(static_cast<std::size_t>(beats));
  for (std::int64_t b = 0; b < beats; ++b)
    out[static_cast<std::size_t>(b)] = row_clarity(rows.rows.data() + b * rows.row_width, w);
  return out;
}

std::vector<std::uint8_t> unreadable_beats(std::span<const float> clarity, const quality_params& p) {
  // The median over 2·stretch_beats + 1 beats around each beat, the window slid inside the
  // recording at its ends rather than cut short there: a median of the last two or three beats
  // of a stretch of noise is a coin toss, and a beat that wins it becomes a V beat in noise.
  const auto n = static_cast<std::int64_t>(clarity.size());
  const std::int64_t width = std::min<std::int64_t>(n, 2 * p.stretch_beats + 1);
  std::vector<std::uint8_t> out(clarity.size(), 0);
  std::vector<float> window;
  for (std::int64_t b = 0; b < n; ++b) {
    const std::int64_t first = std::clamp<std::int64_t>(b - p.stretch_beats, 0, n - width);
    window.assign(clarity.begin() + first, clarity.begin() + first + width);
    const auto middle = window.begin() + width / 2;
    std::nth_element(window.begin(), middle, window.end());
    out[static_cast<std::size_t>(b)] = *middle < p.min_clarity;
  }
  // A few readable beats between two unreadable stretches are noise that cleared the bound by
  // chance (at high sample rates noise's clarity reaches past it now and then): a readable run
  // holds more than stretch_beats beats, or reaches the recording's end.
  std::int64_t last_unreadable = -1;
  for (std::int64_t b = 0; b < n; ++b) {
    if (!out[static_cast<std::size_t>(b)]) continue;
    if (last_unreadable >= 0 && b - last_unreadable - 1 <= p.stretch_beats)
      std::fill(out.begin() + last_unreadable + 1, out.begin() + b, std::uint8_t{1});
    last_unreadable = b;
  }
  return out;
}

echo_window echo_window_of(const beat_rows& rows, double sample_rate) {
  const auto samples = [&](double seconds) { return static_cast<std::int64_t>(std::lround(seconds * sample_rate)); };
  const clarity_window c = clarity_window_of(rows, sample_rate);
  echo_window w;
  w.span = c.span;
  w.length = c.length;
  w.qrs_begin = c.qrs_begin;
  w.qrs_end = c.qrs_end;
  w.begin = rows.window_before + samples(echo_start_seconds);
  w.part = std::max<std::int64_t>(1, samples(echo_part_seconds));
  return w;
}

std::vector<float> echo(const beat_rows& rows, std::int64_t beats, const echo_window& w) {
  std::vector<float> out(static_cast<std::size_t>(beats * echo_parts));
  for (std::int64_t b = 0; b < beats; ++b)
    row_echo(rows.rows.data() + b * rows.row_width, w, out.data() + b * echo_parts);
  return out;
}

std::vector<episode> fast_rhythm_stretches(std::span<const float> echo, std::span<const double> rr_after,
                                           std::span<const std::int64_t> peaks, std::span<const std::uint8_t> no_signal,
                                           std::span<std::uint8_t> unreadable, const quality_params& p) {
  const std::size_t n = peaks.size();
  const double second_bound = p.second_qrs_slope_ratio * p.second_qrs_slope_ratio;
  const double quiet_bound = p.quiet_slope_ratio * p.quiet_slope_ratio;
  std::vector<std::uint8_t> second(n, 0), crowded(n, 0);
  for (std::size_t b = 0; b < n; ++b) {
    if (no_signal[b]) continue;
    // The parts that end before the next beat's QRS (50 ms before its R peak; after the last
    // beat, one R–R after it).
    float most = 0, least = std::numeric_limits<float>::infinity();
    for (int k = 0; k < echo_parts; ++k)
      if (echo_start_seconds + echo_part_seconds * (k + 1) <= rr_after[b] - 0.05) {
        most = std::max(most, echo[b * echo_parts + k]);
        least = std::min(least, echo[b * echo_parts + k]);
      }
    if (!(most >= second_bound)) continue;
    crowded[b] = unreadable[b] && least < quiet_bound;
    second[b] = !unreadable[b] || crowded[b];
  }
  std::vector<episode> out;
  for (const auto& [first, last] : runs_of(second)) {
    if (static_cast<std::int64_t>(last - first + 1) < p.fast_rhythm_beats) continue;
    out.push_back(
        {"fast", static_cast<std::int64_t>(first), static_cast<std::int64_t>(last), peaks[first], peaks[last]});
    for (std::size_t b = first; b <= last; ++b)
      if (crowded[b]) unreadable[b] = 0;
  }
  return out;
}

}  // namespace zeroflow::classify::detail

namespace zeroflow::classify {

std::vector<sample_stretch> beatless_stretches(std::span<const std::int64_t> peaks, std::int64_t samples,
                                               double sample_rate, const quality_params& params) {
  ZF_EXPECTS(sample_rate > 0, "beatless_stretches: the sample rate must be positive, got ", sample_rate);
  check_quality_params(params);
  const double longest = params.beatless_seconds * sample_rate;
  std::vector<sample_stretch> out;
  // Between the sample before the recording and the one after it, beats are the stretch's edges.
  std::int64_t previous = -1;
  const auto gap_to = [&](std::int64_t next) {
    if (static_cast<double>(next - previous) > longest) out.push_back({previous + 1, next - 1});
    previous = next;
  };
  for (const std::int64_t peak : peaks) gap_to(peak);
  gap_to(samples);
  return out;
}

}  // namespace zeroflow::classify
