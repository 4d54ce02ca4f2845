#pragma once
// Independent re-computations of the robust segmentation's definitions (beat_windows.hpp,
// rhythm.hpp, beat_score.hpp, normalize.hpp), written from the headers' formulas with plain
// loops in double precision, and a one-to-one matcher of detected against true R peaks. The
// tests compare the library with these, never with numbers taken from its own output.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace zeroflow::signal::testing {

/// Median of the finite values (mean of the two middle ones for an even count); NaN when none.
inline double ref_median(std::vector<double> v) {
  std::erase_if(v, [](double x) { return !std::isfinite(x); });
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct ref_zscore {
  double center = 0, scale = 1;
};

/// normalize.hpp's robust z-score: median and 1.4826·MAD of the finite values; the population
/// standard deviation when the MAD is 0, 1 when that is 0 too; {0, 1} with no finite value.
inline ref_zscore ref_robust_zscore(const std::vector<double>& values) {
  std::vector<double> finite;
  for (double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  if (finite.empty()) return {0, 1};
  const double median = ref_median(finite);
  std::vector<double> deviation;
  for (double v : finite) deviation.push_back(std::fabs(v - median));
  const double mad = 1.4826 * ref_median(deviation);
  double mean = 0;
  for (double v : finite) mean += v;
  mean /= static_cast<double>(finite.size());
  double square = 0;
  for (double v : finite) square += (v - mean) * (v - mean);
  const double stddev = std::sqrt(square / static_cast<double>(finite.size()));
  return {median, mad > 0 ? mad : (stddev > 0 ? stddev : 1.0)};
}

/// embed_windows' definition: row b, column j is (x[peak_b − before + j] − center) / scale for
/// j < before + after and that sample inside the recording, else 0; a non-finite result is 0.
/// Peaks of any int64 value are placed exactly (no wrap-around).
inline std::vector<double> ref_embed_windows(const std::vector<float>& x, const std::vector<std::int64_t>& peaks,
                                             std::int64_t before, std::int64_t after, std::int64_t width, double center,
                                             double scale) {
  std::vector<double> out(peaks.size() * static_cast<std::size_t>(width), 0.0);
  const auto n = static_cast<std::int64_t>(x.size());
  for (std::size_t b = 0; b < peaks.size(); ++b)
    for (std::int64_t j = 0; j < before + after; ++j) {
      // Sample peak − (before − j) lies in [0, n) iff before − j <= peak < n + before − j; both
      // bounds are small, so the test cannot overflow whatever the peak.
      const std::int64_t shift = before - j;
      if (peaks[b] < shift || peaks[b] >= n + shift) continue;
      const auto at = static_cast<std::size_t>(peaks[b] - shift);
      const double v = (static_cast<double>(x[at]) - center) / scale;
      // The library computes in float: a value past float's range is as non-finite as NaN.
      const bool representable = std::isfinite(v) && std::fabs(v) < 3.0e38;
      out[b * static_cast<std::size_t>(width) + static_cast<std::size_t>(j)] = representable ? v : 0.0;
    }
  return out;
}

struct ref_rhythm_values {
  std::vector<double> rr_before, rr_after, local_rr, irregularity;
};

/// rhythm.hpp's definitions in seconds, in double.
inline ref_rhythm_values ref_rhythm(const std::vector<std::int64_t>& peaks, double sample_rate,
                                    std::int64_t neighbourhood = 8) {
  const auto n = static_cast<std::int64_t>(peaks.size());
  ref_rhythm_values r;
  r.rr_before.assign(peaks.size(), 0.0);
  r.rr_after.assign(peaks.size(), 0.0);
  r.local_rr.assign(peaks.size(), 0.0);
  r.irregularity.assign(peaks.size(), 0.0);
  if (n < 2) return r;
  auto interval = [&](std::int64_t k) {
    return static_cast<double>(peaks[static_cast<std::size_t>(k + 1)] - peaks[static_cast<std::size_t>(k)]) /
           sample_rate;
  };
  for (std::int64_t b = 0; b < n; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const double before = b > 0 ? interval(b - 1) : interval(b);
    const double after = b + 1 < n ? interval(b) : interval(b - 1);
    std::vector<double> around;
    for (std::int64_t k = std::max<std::int64_t>(0, b - neighbourhood); k < std::min(b + neighbourhood, n - 1); ++k)
      around.push_back(interval(k));
    const double local = ref_median(around);
    r.rr_before[i] = before;
    r.rr_after[i] = after;
    r.local_rr[i] = local;
    r.irregularity[i] = std::max(0.0, std::log(local / before)) + std::max(0.0, std::log(after / before));
  }
  return r;
}

/// Outcome of a one-to-one matching of detections against true beats.
struct peak_match {
  std::vector<std::int64_t> missed;  ///< true beats without a detection within the tolerance
  std::vector<std::int64_t> extra;   ///< detections without a true beat within the tolerance
  std::size_t matched = 0;
};

/// Pairs each true beat with at most one detection within ±tolerance samples (both sorted
/// ascending): walking both lists, a detection that comes before the current beat's window is
/// an extra, a beat whose window holds no detection is missed. True beats of synthetic ECG are
/// far more than 2·tolerance apart, so this greedy walk is the optimal matching.
inline peak_match match_peaks_one_to_one(const std::vector<std::int64_t>& detected,
                                         const std::vector<std::int64_t>& truth, std::int64_t tolerance) {
  peak_match m;
  std::size_t d = 0;
  for (std::int64_t beat : truth) {
    while (d < detected.size() && detected[d] < beat - tolerance) m.extra.push_back(detected[d++]);
    if (d < detected.size() && detected[d] <= beat + tolerance) {
      ++m.matched;
      ++d;
    } else {
      m.missed.push_back(beat);
    }
  }
  while (d < detected.size()) m.extra.push_back(detected[d++]);
  return m;
}

/// The first few values of a list, for failure messages.
inline std::string first_values(const std::vector<std::int64_t>& v, std::size_t count = 8) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < count; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > count) s += ", ... (" + std::to_string(v.size()) + " in all)";
  return "[" + s + "]";
}

}  // namespace zeroflow::signal::testing
