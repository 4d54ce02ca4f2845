// Clarity and unreadable stretches (beat_classes.hpp, step 0; clarity_row.hpp).
#include <algorithm>
#include <cmath>
#include <vector>

#include "clarity_row.hpp"
#include "features.hpp"

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
  const std::vector<double> values(clarity.begin(), clarity.end());
  const std::vector<std::uint8_t> every(values.size(), 1);
  const auto stretch = local_median(values, every, p.stretch_beats);
  std::vector<std::uint8_t> out(values.size(), 0);
  for (std::size_t b = 0; b < values.size(); ++b) out[b] = stretch[b] < p.min_clarity;
  return out;
}

}  // namespace zeroflow::classify::detail
