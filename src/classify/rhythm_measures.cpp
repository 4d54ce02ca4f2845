// Local rhythm references and P-wave coherence (beat_classes.hpp, steps 3 and 5; the rest of the
// AF rule is af_rhythm.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "features.hpp"

namespace zeroflow::classify::detail {

std::vector<double> local_median(std::span<const double> values, std::span<const std::uint8_t> use,
                                 std::int64_t neighbours) {
  const auto n = static_cast<std::int64_t>(values.size());
  std::vector<double> out(values.size()), sorted, all;
  // The marked values of the window [lo, hi), kept sorted as the window slides: each beat moves
  // one value in and one out, instead of gathering and selecting the whole window again.
  std::int64_t lo = 0, hi = 0;
  const auto at = [&](std::int64_t k) { return values[static_cast<std::size_t>(k)]; };
  const auto marked = [&](std::int64_t k) { return use[static_cast<std::size_t>(k)] != 0; };
  for (std::int64_t b = 0; b < n; ++b) {
    const std::int64_t want_lo = std::max<std::int64_t>(0, b - neighbours), want_hi = std::min(n, b + neighbours + 1);
    for (; hi < want_hi; ++hi)
      if (marked(hi)) sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), at(hi)), at(hi));
    for (; lo < want_lo; ++lo)
      if (marked(lo)) sorted.erase(std::lower_bound(sorted.begin(), sorted.end(), at(lo)));
    if (sorted.size() >= 3) {
      out[static_cast<std::size_t>(b)] = sorted[sorted.size() / 2];
      continue;
    }
    all.assign(values.begin() + lo, values.begin() + hi);
    const auto middle = all.begin() + static_cast<std::ptrdiff_t>(all.size() / 2);
    std::nth_element(all.begin(), middle, all.end());
    out[static_cast<std::size_t>(b)] = *middle;
  }
  return out;
}

std::vector<double> p_wave_coherence(const beat_rows& rows, std::int64_t beats, double sample_rate,
                                     std::span<const std::uint8_t> left_out, std::int64_t neighbours) {
  const p_window window = p_window_of(rows, sample_rate);
  const std::int64_t begin = window.begin;
  const auto length = static_cast<std::size_t>(window.length);
  // Each beat's P-wave segment with the line through its ends removed (baseline wander).
  std::vector<double> segments(static_cast<std::size_t>(beats) * length), energy(static_cast<std::size_t>(beats));
  for (std::int64_t b = 0; b < beats; ++b) {
    const float* x = rows.rows.data() + b * rows.row_width + begin;
    double* s = segments.data() + static_cast<std::size_t>(b) * length;
    const double first = x[0], last = x[length - 1];
    double e = 0;
    for (std::size_t i = 0; i < length; ++i) {
      const double line = first + (last - first) * static_cast<double>(i) / static_cast<double>(length - 1);
      s[i] = x[i] - line;
      e += s[i] * s[i];
    }
    energy[static_cast<std::size_t>(b)] = e;
  }
  // A sliding window: the sums are updated as beats enter and leave it.
  std::vector<double> sum(length, 0.0), out(static_cast<std::size_t>(beats), std::numeric_limits<double>::quiet_NaN());
  double energy_sum = 0;
  std::int64_t count = 0, lo = 0, hi = 0;  // the window is [lo, hi)
  auto add = [&](std::int64_t k, double sign) {
    if (left_out[static_cast<std::size_t>(k)]) return;
    const double* s = segments.data() + static_cast<std::size_t>(k) * length;
    for (std::size_t i = 0; i < length; ++i) sum[i] += sign * s[i];
    energy_sum += sign * energy[static_cast<std::size_t>(k)];
    count += sign > 0 ? 1 : -1;
  };
  for (std::int64_t b = 0; b < beats; ++b) {
    const std::int64_t want_lo = std::max<std::int64_t>(0, b - neighbours),
                       want_hi = std::min(beats, b + neighbours + 1);
    while (hi < want_hi) add(hi++, +1);
    while (lo < want_lo) add(lo++, -1);
    if (count < 8 || energy_sum <= 0) continue;
    double average_energy = 0;
    for (double v : sum) average_energy += (v / static_cast<double>(count)) * (v / static_cast<double>(count));
    out[static_cast<std::size_t>(b)] = average_energy / (energy_sum / static_cast<double>(count));
  }
  return out;
}

}  // namespace zeroflow::classify::detail
