// Supraventricular runs (beat_classes.hpp, step 6): a run's beats are no earlier than each
// other, so a local median cannot see them once the run is long; they are measured against the
// rhythm before the run, which the pass keeps while it lasts.
#include <algorithm>
#include <cmath>
#include <deque>
#include <utility>
#include <vector>

#include "features.hpp"

namespace zeroflow::classify::detail {

std::vector<std::uint8_t> supraventricular_runs(std::span<const double> rr_before, std::span<const std::int64_t> peaks,
                                                double sample_rate, std::span<const std::uint8_t> dominant,
                                                std::span<const std::uint8_t> in_af, std::span<const double> fallback,
                                                const class_params& p) {
  const std::size_t n = rr_before.size();
  std::vector<std::uint8_t> run(n, 0);
  // The last normal intervals (between two dominant beats, neither in a run nor in AF), with the
  // R peak that ends each: only those of the last reference_seconds make the reference.
  std::deque<std::pair<std::int64_t, double>> recent;
  const auto max_age = static_cast<std::int64_t>(std::llround(p.runs.reference_seconds * sample_rate));
  std::vector<double> window;
  double median = 0;  // of `recent`, recomputed only when it changes
  bool changed = true;
  bool inside = false;
  for (std::size_t b = 1; b < n; ++b) {
    // R peaks only grow, so an interval too old for this beat is too old for every later one.
    while (!recent.empty() && peaks[b] - recent.front().first > max_age) recent.pop_front(), changed = true;
    if (changed && recent.size() >= 3) {
      window.clear();
      for (const auto& entry : recent) window.push_back(entry.second);
      const auto middle = window.begin() + static_cast<std::ptrdiff_t>(window.size() / 2);
      std::nth_element(window.begin(), middle, window.end());
      median = *middle;
    }
    changed = false;
    const double reference = recent.size() >= 3 ? median : fallback[b];
    const bool candidate = dominant[b] && !in_af[b];
    if (inside && candidate && rr_before[b] < p.runs.continue_ratio * reference && rr_before[b - 1] > 0 &&
        std::abs(std::log(rr_before[b] / rr_before[b - 1])) <= p.runs.regularity_log_ratio) {
      run[b] = 1;
      continue;
    }
    inside = candidate && rr_before[b] < p.runs.onset_ratio * reference;
    if (inside) {
      run[b] = 1;
      continue;
    }
    if (dominant[b] && dominant[b - 1] && !run[b - 1] && !in_af[b]) {
      recent.emplace_back(peaks[b], rr_before[b]);
      if (static_cast<std::int64_t>(recent.size()) > p.runs.reference_intervals) recent.pop_front();
      changed = true;
    }
  }
  return run;
}

}  // namespace zeroflow::classify::detail
