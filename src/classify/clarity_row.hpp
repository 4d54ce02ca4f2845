#pragma once
// One beat's clarity (beat_classes.hpp, step 0): how far its QRS stands out of the signal around
// it, computed by the same function on the host and on the GPU (one thread per beat there), so
// both give the same bits.
//
// The slope over ±span (10 ms: a derivative band-limited below the muscle noise's frequencies),
// squared; clarity = its largest value within ±50 ms of the R peak over its mean in the rest of the
// row, ±100 ms around the peak left out. A QRS is steep and the rest of a beat is not: clear ECG
// gives 30 to 10,000; noise alone, white, a loose lead or the mains, gives 2 to 9 — the largest
// of some ten independent squares over their mean.
#include <cstdint>

#include "zeroflow/core/detail/host_device.hpp"

namespace zeroflow::classify::detail {

/// Where in a row the clarity is measured (row indices): slopes at [span, length − span), the QRS
/// part [qrs_begin, qrs_end), the part left out of the mean [skip_begin, skip_end).
struct clarity_window {
  std::int64_t span = 1, length = 0, qrs_begin = 0, qrs_end = 0, skip_begin = 0, skip_end = 0;
};

ZF_HD inline float row_clarity(const float* x, const clarity_window& w) {
  double peak = 0, sum = 0;
  std::int64_t count = 0;
  for (std::int64_t i = w.span; i < w.length - w.span; ++i) {
    const double d = static_cast<double>(x[i + w.span]) - static_cast<double>(x[i - w.span]);
    const double e = d * d;
    if (i >= w.qrs_begin && i < w.qrs_end && e > peak) peak = e;
    if (i < w.skip_begin || i >= w.skip_end) {
      sum += e;
      ++count;
    }
  }
  // A row flat around its QRS (the recording's edge, zero-padded) is as clear as can be.
  const double mean = count > 0 ? sum / static_cast<double>(count) : 0.0;
  if (!(mean > 0)) return peak > 0 ? 3.0e38F : 0.0F;
  const double c = peak / mean;
  return static_cast<float>(c < 3.0e38 ? c : 3.0e38);
}

/// After the QRS, where a second QRS complex stands when the detector took only every other beat of
/// a rhythm faster than it follows (a peak within 0.25 s of a beat replaces it: detection.md): the
/// row from R + 0.15 s on, in `echo_parts` parts of `part` samples (50 ms), each part's largest
/// squared slope over the largest within ±50 ms of the R peak. A T wave's slope is a fraction of
/// the QRS's; another QRS's is like it.
inline constexpr int echo_parts = 6;
inline constexpr double echo_start_seconds = 0.15, echo_part_seconds = 0.05;

struct echo_window {
  std::int64_t span = 1, length = 0, qrs_begin = 0, qrs_end = 0, begin = 0, part = 1;
};

ZF_HD inline void row_echo(const float* x, const echo_window& w, float* out) {
  double peak = 0, parts[echo_parts] = {};
  for (std::int64_t i = w.span; i < w.length - w.span; ++i) {
    const double d = static_cast<double>(x[i + w.span]) - static_cast<double>(x[i - w.span]);
    const double e = d * d;
    if (i >= w.qrs_begin && i < w.qrs_end && e > peak) peak = e;
    if (i >= w.begin) {
      const std::int64_t k = (i - w.begin) / w.part;
      if (k < echo_parts && e > parts[k]) parts[k] = e;
    }
  }
  for (int k = 0; k < echo_parts; ++k) out[k] = peak > 0 ? static_cast<float>(parts[k] / peak) : 0.0F;
}

}  // namespace zeroflow::classify::detail
