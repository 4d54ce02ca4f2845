#pragma once
// Small helpers shared by the synthetic-ECG tests.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "zeroflow/synth/ecg.hpp"

namespace zeroflow::synth::testing {

inline ecg_options options_for(double hours, std::uint64_t seed) {
  ecg_options o;
  o.hours = hours;
  o.seed = seed;
  return o;
}

/// The same options without white noise, baseline wander and mains hum.
inline ecg_options noiseless(ecg_options o) {
  o.noise_mv = 0.0;
  o.baseline_wander_mv = 0.0;
  o.mains_mv = 0.0;
  return o;
}

inline std::int64_t count_label(const ecg_recording& r, char label) {
  return std::count(r.labels.begin(), r.labels.end(), label);
}

/// x[first, last) as doubles, clamped to the signal.
inline std::vector<double> window(const std::vector<float>& x, std::int64_t first, std::int64_t last) {
  first = std::max<std::int64_t>(first, 0);
  last = std::min<std::int64_t>(last, static_cast<std::int64_t>(x.size()));
  return {x.begin() + first, x.begin() + std::max(first, last)};
}

/// Pearson correlation of two equally long sequences.
inline double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) ma += a[i], mb += b[i];
  ma /= n, mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

/// The median of a copy of v.
inline double median(std::vector<double> v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return 0.5 * (*mid + *std::max_element(v.begin(), mid));
}

}  // namespace zeroflow::synth::testing
