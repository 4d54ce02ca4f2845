#pragma once
// The sequential half of QRS detection: which candidate peaks of the band-passed energy are
// beats. Adaptive signal and noise levels with a threshold between them, a refractory period,
// T-wave rejection, replacement of a P wave by the QRS right after it, and search-back for beats
// missed in a long gap (the decision rules of Pan & Tompkins, IEEE TBME 32(3), 1985, applied to
// the peaks that the seed's band-pass and non-maximum suppression propose).
//
// One function for both sides: the host calls it directly and the CUDA path runs it in a single
// GPU thread, so both accept exactly the same beats from the same candidates. The candidates are
// few (a few per second), so the serial pass costs little next to the per-sample kernels.
#include <cstdint>

#if defined(__CUDACC__)
#define ZF_QRS_HD __host__ __device__
#else
#define ZF_QRS_HD
#endif

namespace zeroflow::signal::detail {

/// The detector's time constants, in samples, and its ratios.
struct qrs_rules {
  std::int64_t refractory = 0;   ///< no two beats closer than this
  std::int64_t t_wave = 0;       ///< a weaker, slower peak this soon after a beat is its T wave
  std::int64_t replace = 0;      ///< a stronger peak this soon after a beat replaces it (that was a P wave)
  std::int64_t learn = 0;        ///< the levels start from the candidates of the first `learn` samples
  float t_wave_slope = 0.5F;     ///< T wave: steepest slope under this fraction of the beat's
  float search_back_gap = 1.66F; ///< search back once a gap exceeds this many mean RR intervals
};

/// Running estimates of the detector, kept between candidates.
struct qrs_state {
  float signal_level = 0, noise_level = 0;
  std::int64_t last = -1;       ///< candidate index of the last beat (-1 before the first)
  std::int64_t rr[8] = {};      ///< the last RR intervals (samples), a ring
  int rr_count = 0;
  std::int64_t beats = 0;

  ZF_QRS_HD float threshold() const { return noise_level + 0.25F * (signal_level - noise_level); }
  ZF_QRS_HD float mean_rr() const {
    const int n = rr_count < 8 ? rr_count : 8;
    std::int64_t sum = 0;
    for (int i = 0; i < n; ++i) sum += rr[i];
    return n ? static_cast<float>(sum) / static_cast<float>(n) : 0.F;
  }
  ZF_QRS_HD void push_rr(std::int64_t interval) { rr[rr_count++ % 8] = interval; }
  ZF_QRS_HD void learn_signal(float amplitude, float weight) {
    // A single huge artefact must not deafen the detector: its influence is capped.
    const float capped = amplitude < 3 * signal_level ? amplitude : 3 * signal_level;
    signal_level = weight * capped + (1 - weight) * signal_level;
  }
  ZF_QRS_HD void learn_noise(float amplitude) { noise_level = 0.125F * amplitude + 0.875F * noise_level; }
};

/// Steepest slope of the raw signal around `at`: max |x[i+1] − x[i−1]| / 2 for i in
/// [at − half_window, at + half_window] ∩ [1, n − 1). A T wave rises slowly, a QRS complex fast.
ZF_QRS_HD inline float qrs_slope(const float* x, std::int64_t n, std::int64_t at, std::int64_t half_window) {
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

/// Initial levels from the candidates that start the recording: the signal level is their 90th
/// percentile (most of them are QRS complexes), the noise level half their median.
/// `scratch` holds at least `n` floats. Insertion sort: n is the handful of peaks in a few seconds.
ZF_QRS_HD inline void qrs_initial_levels(const float* amplitude, std::int64_t n, float* scratch, qrs_state& state) {
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

/// Marks the accepted candidates: beat[i] = 1 when candidate i is a beat, else 0. Candidates are
/// sorted by position; amplitude is the band-passed energy at the candidate, slope the steepest
/// slope of the raw signal around it. Returns the number of beats.
ZF_QRS_HD inline std::int64_t qrs_decide(const std::int64_t* position, const float* amplitude, const float* slope,
                                         std::int64_t n, const qrs_rules& rules, qrs_state& state,
                                         std::uint8_t* beat) {
  auto accept = [&](std::int64_t i, float weight) {
    if (state.last >= 0) state.push_rr(position[i] - position[state.last]);
    beat[i] = 1;
    state.last = i;
    state.learn_signal(amplitude[i], weight);
    ++state.beats;
  };
  auto replace_last = [&](std::int64_t i) {
    // The RR ring's newest entry ended at the replaced beat; it now ends here.
    if (state.rr_count > 0) state.rr[(state.rr_count - 1) % 8] += position[i] - position[state.last];
    beat[state.last] = 0;
    beat[i] = 1;
    state.last = i;
    state.learn_signal(amplitude[i], 0.125F);
  };
  for (std::int64_t i = 0; i < n; ++i) beat[i] = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t at = position[i];
    const float a = amplitude[i];
    // Search-back: a gap much longer than the recent rhythm means a beat was missed; take the
    // strongest rejected candidate in it when it clears half the threshold. When none does, the
    // signal has become weaker (lead change, dropout, gain change): halve the levels.
    const float mean_rr = state.mean_rr();
    if (state.last >= 0 && mean_rr > 0 &&
        static_cast<float>(at - position[state.last]) > rules.search_back_gap * mean_rr) {
      std::int64_t best = -1;
      for (std::int64_t j = state.last + 1; j < i; ++j) {
        const std::int64_t after = position[j] - position[state.last];
        const bool t_wave = after < rules.t_wave && slope[j] < rules.t_wave_slope * slope[state.last];
        if (after > rules.replace && !t_wave && (best < 0 || amplitude[j] > amplitude[best])) best = j;
      }
      if (best >= 0 && amplitude[best] > 0.5F * state.threshold()) {
        accept(best, 0.25F);
      } else {
        state.signal_level *= 0.5F;
        state.noise_level *= 0.5F;
      }
    }
    if (state.last >= 0) {
      const std::int64_t since = at - position[state.last];
      const float last_amplitude = amplitude[state.last];
      // Two beats closer than `replace` are not physiological: the stronger or steeper of the two
      // is the QRS complex (the other was a P wave or noise).
      if (since <= rules.replace) {
        if (a > last_amplitude || (a > state.threshold() && slope[i] > slope[state.last])) replace_last(i);
        continue;
      }
    }
    if (a > state.threshold()) {
      if (state.last >= 0 && at - position[state.last] < rules.t_wave &&
          slope[i] < rules.t_wave_slope * slope[state.last]) {
        state.learn_noise(a);
        continue;
      }
      accept(i, 0.125F);
    } else {
      state.learn_noise(a);
    }
  }
  return state.beats;
}

}  // namespace zeroflow::signal::detail
