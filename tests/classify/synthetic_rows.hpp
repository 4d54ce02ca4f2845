#pragma once
// What the class rule's tests build their synthetic beats' rows with: the pipeline's windows at
// 250 Hz and a Gaussian bump for each wave; and R peaks from intervals for the rhythm tests.
#include <cmath>
#include <cstdint>
#include <vector>

namespace zeroflow::classify::synthetic {

inline constexpr double rate = 250;
// 0.25 s and 0.45 s around the R peak in a row of 256 samples, as the pipeline's rows.
inline constexpr std::int64_t before = 62, after = 113, width = 256;

/// A wave: a Gaussian of width sigma (s) centred at `centre` (s from the R peak), height 1.
inline double bump(double t, double centre, double sigma) {
  return std::exp(-0.5 * (t - centre) * (t - centre) / (sigma * sigma));
}

/// R peaks from R–R intervals in seconds at `sample_rate`, the first at sample 100.
inline std::vector<std::int64_t> peaks_of(const std::vector<double>& intervals, double sample_rate) {
  std::vector<std::int64_t> peaks{100};
  for (double rr : intervals) peaks.push_back(peaks.back() + static_cast<std::int64_t>(rr * sample_rate + 0.5));
  return peaks;
}

}  // namespace zeroflow::classify::synthetic
