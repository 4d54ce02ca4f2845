#pragma once
// How far a beat's QRS lies from the normal beats around it, in units of how far those lie from
// each other (beat_classes.hpp, the other leads' check of V) — computed by the same function on
// the host and on the GPU (one thread per beat there), so both give the same bits.
//
// The local normal beat is the per-sample median of the mean-centred QRS segments of the normal
// beats within ±neighbours; each of them lies its mean squared difference from it, and the spread
// is the median of those. The beat itself is searched over shifts of up to half a QRS, because
// noise in the lead whose R peaks the rows are cut at moves the detected peak anywhere within the
// QRS. A beat of the normal beats' own shape gives about 1 or less; a ventricular beat, another QRS
// in every lead, many times that.
#include <cstdint>
#include <limits>

#include "zeroflow/core/detail/host_device.hpp"

namespace zeroflow::classify::detail {

/// Where the QRS segment lies in a row (row indices), how far the beat's may shift, and how far
/// the row's samples reach (window_before + window_after).
struct deviation_window {
  std::int64_t begin = 0, length = 0, max_shift = 0, width = 0;
};

/// At most this many normal neighbours make the local normal beat (the nearest, ±neighbours
/// capped to half of it on each side).
inline constexpr int deviation_max_neighbours = 64;
/// Fewer normal neighbours than this make no local normal beat: no measurement (NaN).
inline constexpr int deviation_min_neighbours = 4;

/// The span (largest less smallest sample) of x[0..n).
ZF_HD_INLINE float segment_span(const float* x, std::int64_t n) {
  float lo = x[0], hi = x[0];
  for (std::int64_t i = 1; i < n; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  return hi - lo;
}

/// The upper median of v[0..n), reordering v (an insertion sort: n is at most a few dozen).
template <class T>
ZF_HD_INLINE T small_upper_median(T* v, int n) {
  for (int i = 1; i < n; ++i) {
    const T key = v[i];
    int j = i - 1;
    for (; j >= 0 && v[j] > key; --j) v[j + 1] = v[j];
    v[j + 1] = key;
  }
  return v[n / 2];
}

/// The mean of x[0..n).
ZF_HD_INLINE double segment_mean(const float* x, std::int64_t n) {
  double s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += x[i];
  return s / static_cast<double>(n);
}

/// The mean squared difference of x[0..n), less its mean `mean`, from the template t.
ZF_HD_INLINE double centred_residual(const float* x, double mean, const float* t, std::int64_t n) {
  double e = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean - static_cast<double>(t[i]);
    e += d * d;
  }
  return e / static_cast<double>(n);
}

/// Beat b's deviation (see above) among `beats` rows of row_width floats; `normal` marks the
/// beats that make the local normal beat, of which those whose QRS segment spans less than
/// min_span_fraction of the median span of them are left out (where a lead comes loose its beats
/// shrink to a few percent of their size: no normal beat of that lead). `t` is scratch of
/// w.length floats (the local normal beat). NaN where fewer than deviation_min_neighbours normal
/// beats are near; +inf where they are all alike and the beat is not.
ZF_HD inline float local_deviation(const float* rows, std::int64_t row_width, std::int64_t beats, std::int64_t b,
                                   const std::uint8_t* normal, std::int64_t neighbours, double min_span_fraction,
                                   const deviation_window& w, float* t) {
  const std::int64_t reach = neighbours < deviation_max_neighbours / 2 ? neighbours : deviation_max_neighbours / 2;
  std::int64_t near[deviation_max_neighbours];
  double mean[deviation_max_neighbours];
  float span[deviation_max_neighbours], column[deviation_max_neighbours];
  int count = 0;
  for (std::int64_t j = b - reach < 0 ? 0 : b - reach; j < beats && j <= b + reach; ++j) {
    if (j == b || !normal[j]) continue;
    const double m = segment_mean(rows + j * row_width + w.begin, w.length);
    if (!(m - m == 0)) continue;  // not finite: a gap (NaN) in the segment, no part of the template
    near[count] = j;
    mean[count] = m;
    span[count] = segment_span(rows + j * row_width + w.begin, w.length);
    ++count;
  }
  if (count < deviation_min_neighbours) return std::numeric_limits<float>::quiet_NaN();
  for (int k = 0; k < count; ++k) column[k] = span[k];
  const double least_span = min_span_fraction * small_upper_median(column, count);
  int kept = 0;
  for (int k = 0; k < count; ++k)
    if (span[k] >= least_span) {
      near[kept] = near[k];
      mean[kept] = mean[k];
      ++kept;
    }
  count = kept;
  if (count < deviation_min_neighbours) return std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t i = 0; i < w.length; ++i) {
    for (int k = 0; k < count; ++k)
      column[k] = static_cast<float>(static_cast<double>(rows[near[k] * row_width + w.begin + i]) - mean[k]);
    t[i] = small_upper_median(column, count);
  }
  double residual[deviation_max_neighbours];
  for (int k = 0; k < count; ++k)
    residual[k] = centred_residual(rows + near[k] * row_width + w.begin, mean[k], t, w.length);
  const double spread = small_upper_median(residual, count);
  double best = -1;
  const float* row = rows + b * row_width;
  for (std::int64_t shift = -w.max_shift; shift <= w.max_shift; ++shift) {
    const std::int64_t begin = w.begin + shift;
    if (begin < 0 || begin + w.length > w.width) continue;
    const double e = centred_residual(row + begin, segment_mean(row + begin, w.length), t, w.length);
    if (e >= 0 && (best < 0 || e < best)) best = e;  // a shift over a gap (NaN) measures nothing
  }
  // No shift fits the row, or every one reaches into a gap.
  if (best < 0) return std::numeric_limits<float>::quiet_NaN();
  if (!(spread >= 0)) return std::numeric_limits<float>::quiet_NaN();
  if (spread == 0) return best > 0 ? std::numeric_limits<float>::infinity() : 0.0F;
  const double z = best / spread;
  return static_cast<float>(z < 3.0e38 ? z : 3.0e38);
}

}  // namespace zeroflow::classify::detail
