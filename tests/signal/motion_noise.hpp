#pragma once
// Electrode-motion-like noise for the detector's tests, and the errors it causes near a burst.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <vector>

#include "signal/robust_reference.hpp"
#include "signal/signal_test_helpers.hpp"

namespace zeroflow::signal::testing {

inline constexpr double motion_rate = 360;

inline std::int64_t at_seconds(double s) { return static_cast<std::int64_t>(s * motion_rate); }

/// Electrode motion as the MIT-BIH Noise Stress Test records it: slow, smooth swings whose
/// spectrum lies under ~15 Hz, here a sum of sines at 2-12 Hz with random phases, faded in and
/// out over 0.2 s, added to x[from, to). rms is the burst's root mean square.
inline void add_motion_burst(std::vector<float>& x, std::int64_t from, std::int64_t to, double rms,
                             std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> frequency(2.0, 12.0), phase(0.0, 2 * std::numbers::pi);
  constexpr int tones = 24;
  double f[tones], p[tones];
  for (int k = 0; k < tones; ++k) {
    f[k] = frequency(rng);
    p[k] = phase(rng);
  }
  const double amplitude = rms * std::sqrt(2.0 / tones);
  const double fade = 0.2 * motion_rate;
  for (std::int64_t i = from; i < to; ++i) {
    double v = 0;
    for (int k = 0; k < tones; ++k)
      v += std::sin(2 * std::numbers::pi * f[k] * static_cast<double>(i) / motion_rate + p[k]);
    const double edge = std::min({1.0, static_cast<double>(i - from) / fade, static_cast<double>(to - i) / fade});
    x[static_cast<std::size_t>(i)] += static_cast<float>(amplitude * edge * v);
  }
}

/// Detected peaks in [from, to) that match no true beat within ±75 ms, and true beats there
/// that no detection matches.
struct burst_errors {
  std::vector<std::int64_t> extra, missed;
};

inline burst_errors errors_in(const std::vector<std::int64_t>& peaks, const std::vector<std::int64_t>& truth,
                              std::int64_t from, std::int64_t to) {
  const auto m = match_peaks_one_to_one(peaks, truth, at_seconds(0.075));
  burst_errors e;
  for (auto p : m.extra)
    if (p >= from && p < to) e.extra.push_back(p);
  for (auto p : m.missed)
    if (p >= from && p < to) e.missed.push_back(p);
  return e;
}

}  // namespace zeroflow::signal::testing
