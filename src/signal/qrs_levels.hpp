#pragma once
// The detector's running estimates (the signal and noise levels, the threshold between them, the
// beats' slope, the last RR intervals) and where they start: the levels that the sequential
// decision (qrs_decide.hpp) keeps between candidates.
#include <cstdint>

#include "qrs_views.hpp"

namespace zeroflow::signal::detail {

/// Running estimates of the detector, kept between candidates.
struct qrs_state {
  float signal_level = 0, noise_level = 0;
  std::int64_t last = -1;   ///< candidate index of the last beat (-1 before the first)
  float level_at_last = 0;  ///< the signal level when the last beat was accepted
  bool lowered = false;     ///< the levels were lowered in the gap since the last beat
  float slope_level = 0;    ///< running estimate of the beats' steepest slope (0 before the first beat)
  std::int64_t rr[8] = {};  ///< the last RR intervals (samples), a ring
  int rr_count = 0;
  std::int64_t beats = 0;

  ZF_HD float threshold() const { return noise_level + 0.25F * (signal_level - noise_level); }
  ZF_HD float mean_rr() const {
    const int n = rr_count < 8 ? rr_count : 8;
    std::int64_t sum = 0;
    for (int i = 0; i < n; ++i) sum += rr[i];
    return n ? static_cast<float>(sum) / static_cast<float>(n) : 0.F;
  }
  ZF_HD void push_rr(std::int64_t interval) { rr[rr_count++ % 8] = interval; }
  ZF_HD void learn_signal(float amplitude, float weight) {
    // A single huge artefact must not deafen the detector: its influence is capped.
    const float capped = amplitude < 3 * signal_level ? amplitude : 3 * signal_level;
    signal_level = weight * capped + (1 - weight) * signal_level;
  }
  ZF_HD void learn_slope(float slope) {
    // Capped like the signal level, so that one artefact (a baseline step) cannot set it.
    const float capped = slope_level > 0 && slope > 3 * slope_level ? 3 * slope_level : slope;
    slope_level = slope_level > 0 ? 0.125F * capped + 0.875F * slope_level : slope;
  }
  ZF_HD void learn_noise(float amplitude) { noise_level = 0.125F * amplitude + 0.875F * noise_level; }
};

/// Initial levels from the candidates that start the recording: the signal level is their 90th
/// percentile (most of them are QRS complexes), the noise level half their median.
/// `scratch` holds at least `n` floats. Insertion sort: n is the handful of peaks in a few seconds.
ZF_HD inline void qrs_initial_levels(const float* amplitude, std::int64_t n, float* scratch, qrs_state& state) {
  if (n <= 0) return;
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = amplitude[i];
    std::int64_t j = i;
    for (; j > 0 && scratch[j - 1] > v; --j) scratch[j] = scratch[j - 1];
    scratch[j] = v;
  }
  state.signal_level = scratch[(9 * (n - 1)) / 10];
  state.noise_level = 0.5F * scratch[(n - 1) / 2];
}

}  // namespace zeroflow::signal::detail
