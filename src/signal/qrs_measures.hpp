#pragma once
// The measures of a QRS candidate that the decision rules compare: the band-passed energy, the
// raw signal's steepest slope, and the energy of the background around it. Host and device code
// (qrs_detect.cpp, qrs_detect.cu) compute them with these same functions.
#include <cstdint>

#include "qrs_views.hpp"
#include "zeroflow/signal/qrs_detect.hpp"

namespace zeroflow::signal::detail {

/// Outputs per run of qrs_energy_run. Each run starts its window sum afresh, so that rounding
/// does not build up along the recording, and host and device cut the work at the same places
/// (the same runs, the same bits).
inline constexpr std::int64_t qrs_energy_run_length = 1024;

/// How many runs of qrs_energy_run cover n outputs.
ZF_HD inline std::int64_t qrs_energy_runs(std::int64_t n) {
  return (n + qrs_energy_run_length - 1) / qrs_energy_run_length;
}

/// Energies e[i] of run `run`: i in [run · qrs_energy_run_length, that + qrs_energy_run_length)
/// and below n. Output i
/// is the band-passed signal at `at` = i + delay with its causal window x[at − width + 1 .. at]
/// taken out: the square of y[at] − mean_tap · Σ x, i.e. of the response to the Ricker kernel made
/// zero-mean. The seed's taps do not sum to zero, so the plain response follows the baseline: an
/// offset or a step of the baseline would leak into the energy. The window's sum slides with `at`
/// (one sample in, one out), so a run costs width + its length, not width times its length.
/// No energy: outputs whose window starts before the recording (the circular band-pass mixed its
/// end in) or whose `at` lies past it, windows holding a gap (NaN) or an infinity, differences
/// within float rounding of the two terms (a flat recording), and squares past float's range.
ZF_HD inline void qrs_energy_run(const float* x, const float* y, std::int64_t n, std::int64_t width, std::int64_t delay,
                                 double mean_tap, float* e, std::int64_t run) {
  const std::int64_t begin = run * qrs_energy_run_length;
  const std::int64_t end = begin + qrs_energy_run_length < n ? begin + qrs_energy_run_length : n;
  double sum = 0;               // of the window's finite samples
  std::int64_t unreadable = 0;  // the window's NaN and infinite samples
  bool started = false;
  const auto take = [&](float v, int sign) {
    if (v - v == 0.0F)
      sum += sign * static_cast<double>(v);
    else
      unreadable += sign;
  };
  for (std::int64_t i = begin; i < end; ++i) {
    const std::int64_t at = i + delay;
    if (at < width - 1 || at >= n) {
      e[i] = 0.0F;
      continue;
    }
    if (!started) {
      for (std::int64_t k = at - width + 1; k <= at; ++k) take(x[k], 1);
      started = true;
    } else {
      take(x[at], 1);
      take(x[at - width], -1);
    }
    const double level = mean_tap * sum;
    const double v = static_cast<double>(y[at]) - level;
    const double magnitude = v < 0 ? -v : v;
    const double rounding = 1e-5 * ((y[at] < 0 ? -y[at] : y[at]) + (level < 0 ? -level : level));
    const double squared = v * v;
    // Also NaN: a gap in y[at] fails the first test.
    e[i] = unreadable == 0 && magnitude > rounding && squared <= 3.4e38 ? static_cast<float>(squared) : 0.0F;
  }
}

/// Steepest slope of the raw signal around `at`: max |x[i+1] − x[i−1]| / 2 for i in
/// [at − half_window, at + half_window] ∩ [1, n − 1). A T wave rises slowly, a QRS complex fast.
ZF_HD inline float qrs_slope(const float* x, std::int64_t n, std::int64_t at, std::int64_t half_window) {
  const std::int64_t from = at - half_window < 1 ? 1 : at - half_window;
  const std::int64_t to = at + half_window < n - 2 ? at + half_window : n - 2;
  float steepest = 0;
  for (std::int64_t i = from; i <= to; ++i) {
    const float d = 0.5F * (x[i + 1] - x[i - 1]);
    const float magnitude = d < 0 ? -d : d;
    if (magnitude > steepest) steepest = magnitude;  // NaN never wins
  }
  return steepest;
}

/// Background energy around a candidate at `at`: the median of the mean energies of the
/// qrs_background_blocks blocks of `block` samples on each side, leaving out `block` samples on
/// either side of it (its own QRS complex); blocks are cut at the ends of the energy. A median,
/// so that the neighbouring beats' QRS complexes (a block or two each) do not count as
/// background, while a burst of noise fills most blocks. 0 when no block has samples.
ZF_HD inline float qrs_background(const float* e, std::int64_t n, std::int64_t at, std::int64_t block) {
  float sorted[2 * qrs_background_blocks];
  int count = 0;
  for (int b = 0; b < qrs_background_blocks; ++b) {
    for (int side = 0; side < 2; ++side) {
      std::int64_t from = side == 0 ? at - block - (b + 1) * block : at + block + 1 + b * block;
      std::int64_t to = from + block;
      from = from < 0 ? 0 : from;
      to = to > n ? n : to;
      if (from >= to) continue;
      double sum = 0;
      for (std::int64_t i = from; i < to; ++i) sum += e[i];
      const auto mean = static_cast<float>(sum / static_cast<double>(to - from));
      int j = count++;
      for (; j > 0 && sorted[j - 1] > mean; --j) sorted[j] = sorted[j - 1];
      sorted[j] = mean;
    }
  }
  if (count == 0) return 0.0F;
  return count % 2 ? sorted[count / 2] : 0.5F * (sorted[count / 2 - 1] + sorted[count / 2]);
}

}  // namespace zeroflow::signal::detail
