#pragma once
// The sequential half of QRS detection: which candidate peaks of the band-passed energy are
// beats. Adaptive signal and noise levels with a threshold between them, a refractory period,
// T-wave rejection, replacement of a P wave by the QRS right after it, and search-back for beats
// missed in a long gap (the decision rules of Pan & Tompkins, IEEE TBME 32(3), 1985, applied to
// the peaks that the seed's band-pass and non-maximum suppression propose).
//
// The rules are sequential, but their memory is short (levels and the last RR intervals settle
// within a few beats), so the recording is decided in independent stretches: each stretch learns
// its levels from the `overlap` before it and decides only its own candidates; a pair of beats
// straddling two stretches that the rules would not both keep is resolved afterwards. The host runs
// the stretches one after another, the CUDA path one per GPU thread: the same functions on the same
// candidates, so both sides accept exactly the same beats.
#include <cstdint>

#if defined(__CUDACC__)
#define ZF_QRS_HD __host__ __device__
#else
#define ZF_QRS_HD
#endif

namespace zeroflow::signal::detail {

/// The detector's time constants, in samples, and its ratios.
struct qrs_rules {
  std::int64_t refractory = 0;        ///< no two beats closer than this
  std::int64_t t_wave = 0;            ///< a weaker, slower peak this soon after a beat is its T wave
  std::int64_t replace = 0;           ///< a stronger peak this soon after a beat replaces it (that was a P wave)
  std::int64_t learn = 0;             ///< the levels start from the candidates of the first `learn` samples
  std::int64_t stretch = 0;           ///< samples decided independently of the rest (> 0)
  std::int64_t overlap = 0;           ///< samples before a stretch from which it learns its levels (>= learn)
  float t_wave_slope = 0.5F;          ///< T wave: steepest slope under this fraction of the beat's, and
  float t_wave_energy = 0.5F;         ///< energy under this fraction of the beat's (a wide PVC is slow but strong),
  float t_wave_steep = 0.25F;         ///< or slope under this fraction whatever its energy
  float search_back_gap = 1.66F;      ///< search back once a gap exceeds this many mean RR intervals
  float clear_gap = 1.3F;             ///< and for a clear candidate once it exceeds this many (qrs_is_clear):
  float clear_snr = 20.0F;            ///< energy at least this many times its background,
  float clear_level = 0.2F;           ///< at least this fraction of the threshold,
  float clear_slope = 0.2F;           ///< a slope at least this fraction of the beats' running slope,
  float clear_after = 0.35F;          ///< and at least this many mean RR intervals after the last beat
                                      ///< (the T wave comes later at slow rates than `t_wave` allows for)
  float gap_floor = 1.0F / 16;        ///< a gap lowers the signal level to this fraction of the last beat's at most
  float burst_snr = 8.0F;             ///< a candidate under this many times its background energy stands in noise,
  float burst_spacing = 0.5F;         ///< where of candidates closer than this many mean RR intervals only the
                                      ///< steepest can be a beat (qrs_in_burst)
  float noisy_snr = 32.0F;            ///< a beat under this many times its background energy stands in noise,
  float noisy_slope = 0.8F;           ///< where it is an extra beat (qrs_off_rhythm) when less steep than this
                                      ///< fraction of a neighbour,
  float rhythm_tolerance = 0.2F;      ///< its neighbours are one reference R–R interval apart within this fraction,
  float rhythm_spread = 0.2F;         ///< and the reference is regular: quartiles closer than this fraction of it
  std::int64_t rhythm_reach = 0;      ///< the reference's clear intervals start at most this far from the beat
  float recentre_slope = 1.0F;        ///< a displaced beat gives way to a candidate in time (qrs_recentred)
                                      ///< at least this fraction as steep as the beat,
  float recentre_energy = 0.25F;      ///< this fraction as strong as the beat,
  float recentre_neighbour = 0.5F;    ///< this fraction as steep as the less steep neighbour,
  float recentre_level = 0.1F;        ///< and this fraction as strong as the weaker neighbour
  float path_anchor = 0.85F;          ///< a clear beat this steep against the clear beats around anchors a rhythm path
  float path_steepest = 2.0F;         ///< unless it is more than this many times as steep (qrs_is_anchor);
                                      ///< the beats between two anchors are re-decided when one
                                      ///< stands in a burst (under burst_snr) or a rival candidate between them has
  float path_rival = 0.65F;           ///< this fraction of the weakest beat's energy (qrs_wants_path)
  float path_tolerance = 0.2F;        ///< an interval off the reference R–R by this fraction costs 1 (squared),
  float path_slope_weight = 2.0F;     ///< a beat costs this much per (anchors' steepness / its slope − 1),
  float path_energy_weight = 0.1F;    ///< and this much per (the anchors' weaker energy / its energy − 1),
  float path_least_snr = 1.0F;        ///< a candidate under its own background is never a beat of a path,
  float path_longest = 2.5F;          ///< and no interval of a path is longer than this many reference R–R intervals
                                      ///< (of the longest in the range of an irregular rhythm)
  float path_irregular_snr = 5.0F;    ///< where the rhythm is irregular, a path only where a beat is under this many
                                      ///< times its background,
  float path_noise_rise = 8.0F;       ///< or its background is over this many times the anchors' louder one
                                      ///< (qrs_noise_rose),
  float path_range_cut = 0.125F;      ///< keeping the range of the clear intervals without their shortest and
                                      ///< longest this fraction (qrs_rhythm_range),
  float path_irregular_bonus = 1.5F;  ///< and a beat of the path earns this much (qrs_rhythm_path)
};

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
  ZF_QRS_HD void learn_slope(float slope) {
    // Capped like the signal level, so that one artefact (a baseline step) cannot set it.
    const float capped = slope_level > 0 && slope > 3 * slope_level ? 3 * slope_level : slope;
    slope_level = slope_level > 0 ? 0.125F * capped + 0.875F * slope_level : slope;
  }
  ZF_QRS_HD void learn_noise(float amplitude) { noise_level = 0.125F * amplitude + 0.875F * noise_level; }
};

/// Energy of the band-passed signal at output sample `at` (its causal window x[at − width + 1 .. at]):
/// the square of y[at] − mean_tap · Σ x, i.e. of the response to the Ricker kernel made zero-mean.
/// The seed's taps do not sum to zero, so the plain response follows the baseline: an offset or
/// a step of the baseline would leak into the energy. Differences within float rounding of the
/// two terms (a flat recording) count as no energy, and so do gaps (NaN) and overflow.
ZF_QRS_HD inline float qrs_energy_at(const float* x, const float* y, std::int64_t at, std::int64_t width,
                                     float mean_tap) {
  float sum = 0;
  for (std::int64_t k = 0; k < width; ++k) sum += x[at - k];
  const float level = mean_tap * sum;
  const float v = y[at] - level;
  const float magnitude = v < 0 ? -v : v;
  const float rounding = 1e-5F * ((y[at] < 0 ? -y[at] : y[at]) + (level < 0 ? -level : level));
  if (!(magnitude > rounding)) return 0.0F;  // also NaN
  const float squared = v * v;
  return squared <= 3.4e38F ? squared : 0.0F;
}

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

/// Most blocks on either side of a candidate that its background is taken from (qrs_background).
inline constexpr int qrs_background_blocks = 4;

/// Background energy around a candidate at `at`: the median of the mean energies of the
/// qrs_background_blocks blocks of `block` samples on each side, leaving out `block` samples on
/// either side of it (its own QRS complex); blocks are cut at the ends of the energy. A median,
/// so that the neighbouring beats' QRS complexes (a block or two each) do not count as
/// background, while a burst of noise fills most blocks. 0 when no block has samples.
ZF_QRS_HD inline float qrs_background(const float* e, std::int64_t n, std::int64_t at, std::int64_t block) {
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

/// Whether candidate i is noise of a burst: its energy does not stand out from its background
/// (under burst_snr times it), and a steeper candidate above `threshold` lies within
/// burst_spacing mean RR intervals on either side. Electrode motion puts energy in the QRS band
/// itself, as peaks as strong as the beats at any time between them; a QRS complex is steeper
/// than such noise (its edges are sharp), and two beats are rarely that close. So within a burst,
/// of candidates that close only the steepest is taken for a beat. Outside noise (a candidate
/// clear of its background) nothing changes, so early and wide beats of clean stretches are kept.
ZF_QRS_HD inline bool qrs_in_burst(const std::int64_t* position, const float* amplitude, const float* slope,
                                   const float* background, std::int64_t n, std::int64_t i, float threshold,
                                   float mean_rr, const qrs_rules& rules) {
  if (!(amplitude[i] < rules.burst_snr * background[i]) || !(mean_rr > 0)) return false;
  const float reach = rules.burst_spacing * mean_rr;
  for (std::int64_t j = i - 1; j >= 0 && static_cast<float>(position[i] - position[j]) < reach; --j)
    if (amplitude[j] > threshold && slope[j] > slope[i]) return true;
  for (std::int64_t j = i + 1; j < n && static_cast<float>(position[j] - position[i]) < reach; ++j)
    if (amplitude[j] > threshold && slope[j] > slope[i]) return true;
  return false;
}

/// Whether candidate j, in a gap, is clear enough to be a beat below the threshold: an event that
/// stands far out of the energy around it, not merely a fraction of the beats' energy. Wide beats
/// (aberrated atrial beats, some ventricular ones) put little energy into the QRS band, so they
/// fall under a threshold set by narrow beats, yet they stand as clear of a quiet background as
/// any beat; noise does not (its background is noise too), and P and T waves are too slow.
ZF_QRS_HD inline bool qrs_is_clear(const float* amplitude, const float* slope, const float* background, std::int64_t j,
                                   float threshold, float slope_level, const qrs_rules& rules) {
  return amplitude[j] > rules.clear_level * threshold && amplitude[j] > rules.clear_snr * background[j] &&
         slope[j] >= rules.clear_slope * slope_level;
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

/// Whether a peak soon after a beat is that beat's T wave: much slower, and weaker or very slow.
ZF_QRS_HD inline bool qrs_is_t_wave(float amplitude, float slope, float beat_amplitude, float beat_slope,
                                    const qrs_rules& rules) {
  if (slope < rules.t_wave_steep * beat_slope) return true;
  return slope < rules.t_wave_slope * beat_slope && amplitude < rules.t_wave_energy * beat_amplitude;
}

/// Applies the rules to candidates [begin, end) and marks the accepted ones from `emit` on:
/// beat[i] = 1 for a beat, 0 otherwise, for i in [emit, end) only (the candidates before `emit`
/// only bring the state up to date). Candidates are sorted by position; amplitude is the
/// band-passed energy at the candidate, slope the steepest slope of the raw signal around it,
/// background the energy around it (qrs_background); n is the number of candidates (the burst
/// rule looks at neighbours past `end`).
ZF_QRS_HD inline void qrs_decide(const std::int64_t* position, const float* amplitude, const float* slope,
                                 const float* background, std::int64_t n, std::int64_t begin, std::int64_t emit,
                                 std::int64_t end, const qrs_rules& rules, qrs_state& state, std::uint8_t* beat) {
  auto mark = [&](std::int64_t i, std::uint8_t value) {
    if (i >= emit) beat[i] = value;
  };
  auto accept = [&](std::int64_t i, float weight) {
    if (state.last >= 0) state.push_rr(position[i] - position[state.last]);
    mark(i, 1);
    state.last = i;
    state.learn_signal(amplitude[i], weight);
    state.learn_slope(slope[i]);
    state.level_at_last = state.signal_level;
    state.lowered = false;
    ++state.beats;
  };
  auto replace_last = [&](std::int64_t i) {
    // The RR ring's newest entry ended at the replaced beat; it now ends here.
    if (state.rr_count > 0) state.rr[(state.rr_count - 1) % 8] += position[i] - position[state.last];
    mark(state.last, 0);
    mark(i, 1);
    state.last = i;
    state.learn_signal(amplitude[i], 0.125F);
    state.level_at_last = state.signal_level;
  };
  for (std::int64_t i = emit; i < end; ++i) beat[i] = 0;
  for (std::int64_t i = begin; i < end; ++i) {
    const std::int64_t at = position[i];
    const float a = amplitude[i];
    // Search-back: a gap much longer than the recent rhythm means a beat was missed; take the
    // strongest rejected candidate in it when it clears half the threshold. When none does, the
    // signal may have become weaker (lead change, dropout, gain change): halve the levels, down
    // to gap_floor of the last beat's level. Once lowered, a beat must also be steep like a QRS
    // (a slope of at least t_wave_steep of the beats' running slope): without that and the floor, a long
    // pause (sinus arrest, AV block) halved the levels for every candidate in it, until a P wave
    // or the noise passed for a beat.
    const auto steep_enough = [&](std::int64_t j) {
      return !state.lowered || slope[j] >= rules.t_wave_steep * state.slope_level;
    };
    const auto in_burst = [&](std::int64_t j) {
      return qrs_in_burst(position, amplitude, slope, background, n, j, state.threshold(), state.mean_rr(), rules);
    };
    // The candidates of the gap since the last beat that search-back may take: not the beat's T
    // wave, not within `replace` of it, and steep enough.
    const auto may_take = [&](std::int64_t j) {
      const std::int64_t after = position[j] - position[state.last];
      const bool t_wave = after < rules.t_wave &&
                          qrs_is_t_wave(amplitude[j], slope[j], amplitude[state.last], slope[state.last], rules);
      return after > rules.replace && !t_wave && steep_enough(j);
    };
    const auto gap_exceeds = [&](float factor) {
      const float mean_rr = state.mean_rr();
      return state.last >= 0 && mean_rr > 0 && static_cast<float>(at - position[state.last]) > factor * mean_rr;
    };
    // A gap somewhat longer than the rhythm: a premature beat too wide to clear the threshold
    // (followed by its compensatory pause) is taken when it is clear of its background.
    if (gap_exceeds(rules.clear_gap)) {
      const float earliest = rules.clear_after * state.mean_rr();
      std::int64_t best = -1;
      for (std::int64_t j = state.last + 1; j < i; ++j)
        if (may_take(j) && static_cast<float>(position[j] - position[state.last]) >= earliest &&
            (best < 0 || amplitude[j] > amplitude[best]) &&
            qrs_is_clear(amplitude, slope, background, j, state.threshold(), state.slope_level, rules))
          best = j;
      if (best >= 0) accept(best, 0.25F);
    }
    if (gap_exceeds(rules.search_back_gap)) {
      std::int64_t best = -1;
      for (std::int64_t j = state.last + 1; j < i; ++j)
        if (may_take(j) && (best < 0 || amplitude[j] > amplitude[best]) && !in_burst(j)) best = j;
      if (best >= 0 && amplitude[best] > 0.5F * state.threshold()) {
        accept(best, 0.25F);
      } else if (state.signal_level * 0.5F >= rules.gap_floor * state.level_at_last) {
        state.signal_level *= 0.5F;
        state.noise_level *= 0.5F;
        state.lowered = true;
      }
    }
    if (state.last >= 0) {
      const std::int64_t since = at - position[state.last];
      const float last_amplitude = amplitude[state.last];
      // Two beats closer than `replace` are not physiological: the stronger or steeper of the two
      // is the QRS complex (the other was a P wave or noise).
      if (since <= rules.replace) {
        if ((a > last_amplitude || (a > state.threshold() && slope[i] > slope[state.last])) && !in_burst(i))
          replace_last(i);
        continue;
      }
      if (since <= rules.refractory) continue;  // a longer refractory period than `replace`: not a beat
    }
    if (a > state.threshold()) {
      if ((state.last >= 0 && at - position[state.last] < rules.t_wave &&
           qrs_is_t_wave(a, slope[i], amplitude[state.last], slope[state.last], rules)) ||
          !steep_enough(i)) {
        state.learn_noise(a);
        continue;
      }
      if (in_burst(i)) continue;  // neither a beat nor the noise level: the burst passes, the levels stay
      accept(i, 0.125F);
    } else {
      state.learn_noise(a);
    }
  }
}

/// First index in [0, n) whose position is >= at (n when none).
ZF_QRS_HD inline std::int64_t qrs_first_at(const std::int64_t* position, std::int64_t n, std::int64_t at) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (position[mid] < at)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// Clear intervals on either side of a beat that make its reference rhythm (qrs_reference_rr), at most.
inline constexpr int qrs_rhythm_intervals = 8;

/// The cost of no path (qrs_rhythm_path): larger than any path's.
inline constexpr float qrs_no_path = 3.4e38F;

/// Whether candidate i stands clear of noise: its energy at least noisy_snr times its background.
ZF_QRS_HD inline bool qrs_is_clear_beat(const float* amplitude, const float* background, std::int64_t i,
                                        const qrs_rules& rules) {
  return amplitude[i] >= rules.noisy_snr * background[i];
}

/// Calls f(c) for the clear intervals c (indices into clear) nearest to beat k, qrs_rhythm_intervals
/// on either side, that start within rhythm_reach of it. beat_of[0..beats) are the candidate
/// indices of the accepted beats, ascending; clear[0..clear_count) the indices b (into beat_of) of
/// the clear intervals beat b → beat b + 1 (both beats clear of noise), ascending.
template <class F>
ZF_QRS_HD inline void qrs_for_clear_near(const std::int64_t* position, const std::int64_t* beat_of,
                                         const std::int64_t* clear, std::int64_t clear_count, std::int64_t k,
                                         const qrs_rules& rules, F&& f) {
  const std::int64_t at = position[beat_of[k]];
  // The first clear interval that starts at beat k or later; the window is taken around it.
  const std::int64_t lo = qrs_first_at(clear, clear_count, k);
  const std::int64_t from = lo < qrs_rhythm_intervals ? 0 : lo - qrs_rhythm_intervals;
  const std::int64_t to = clear_count - lo < qrs_rhythm_intervals ? clear_count : lo + qrs_rhythm_intervals;
  for (std::int64_t c = from; c < to; ++c) {
    const std::int64_t start = position[beat_of[clear[c]]];
    const std::int64_t distance = start > at ? start - at : at - start;
    if (distance <= rules.rhythm_reach) f(c);
  }
}

/// Inserts v into sorted[0..count) (ascending) and counts it.
ZF_QRS_HD inline void qrs_insert_sorted(float* sorted, int& count, float v) {
  int j = count++;
  for (; j > 0 && sorted[j - 1] > v; --j) sorted[j] = sorted[j - 1];
  sorted[j] = v;
}

/// The median of sorted[0..count), count > 0.
ZF_QRS_HD inline float qrs_sorted_median(const float* sorted, int count) {
  return count % 2 ? sorted[count / 2] : 0.5F * (sorted[count / 2 - 1] + sorted[count / 2]);
}

/// The clear intervals near accepted beat k (qrs_for_clear_near), in samples, into sorted[]
/// (2 · qrs_rhythm_intervals at least) in ascending order; returns how many.
ZF_QRS_HD inline int qrs_sorted_clear_intervals(const std::int64_t* position, const std::int64_t* beat_of,
                                                const std::int64_t* clear, std::int64_t clear_count, std::int64_t k,
                                                const qrs_rules& rules, float* sorted) {
  int count = 0;
  qrs_for_clear_near(position, beat_of, clear, clear_count, k, rules, [&](std::int64_t c) {
    const std::int64_t start = position[beat_of[clear[c]]];
    qrs_insert_sorted(sorted, count, static_cast<float>(position[beat_of[clear[c] + 1]] - start));
  });
  return count;
}

/// The regular rhythm around accepted beat k: the median of the clear intervals near it
/// (qrs_for_clear_near); 0 when there are fewer than qrs_rhythm_intervals or their quartiles are
/// not close (in AF, or where ectopic beats break the rhythm).
ZF_QRS_HD inline float qrs_reference_rr(const std::int64_t* position, const std::int64_t* beat_of,
                                        const std::int64_t* clear, std::int64_t clear_count, std::int64_t k,
                                        const qrs_rules& rules) {
  float sorted[2 * qrs_rhythm_intervals];
  const int count = qrs_sorted_clear_intervals(position, beat_of, clear, clear_count, k, rules, sorted);
  if (count < qrs_rhythm_intervals) return 0.0F;
  const float median = qrs_sorted_median(sorted, count);
  return sorted[(3 * count) / 4] - sorted[count / 4] < rules.rhythm_spread * median ? median : 0.0F;
}

/// The steepness of the clear beats around accepted beat k: the median slope of the beats that
/// start the clear intervals near it (qrs_for_clear_near); 0 when there are none.
ZF_QRS_HD inline float qrs_reference_slope(const std::int64_t* position, const float* slope,
                                           const std::int64_t* beat_of, const std::int64_t* clear,
                                           std::int64_t clear_count, std::int64_t k, const qrs_rules& rules) {
  float sorted[2 * qrs_rhythm_intervals];
  int count = 0;
  qrs_for_clear_near(position, beat_of, clear, clear_count, k, rules,
                     [&](std::int64_t c) { qrs_insert_sorted(sorted, count, slope[beat_of[clear[c]]]); });
  return count ? qrs_sorted_median(sorted, count) : 0.0F;
}

/// Whether `span` samples are `intervals` reference R–R intervals within rhythm_tolerance of one.
ZF_QRS_HD inline bool qrs_keeps_time(float span, float intervals, float reference, const qrs_rules& rules) {
  const float off = span - intervals * reference;
  return (off < 0 ? -off : off) < rules.rhythm_tolerance * reference;
}

/// Whether accepted beat k is an extra beat that noise made: a beat in noise (not clear of its
/// background), less steep than a neighbour, whose neighbours are one R–R interval of the regular
/// rhythm around it (qrs_reference_rr) apart. Electrode motion puts peaks into the QRS band that
/// pass every test of a single candidate; what it cannot do is keep time: such a peak splits an
/// ordinary R–R interval in two, while an early beat of the heart (an APC, a PVC) is followed by a
/// pause, so its neighbours lie further apart than one interval. Every beat is judged against the
/// same accepted beats, so the beats may be judged in any order.
ZF_QRS_HD inline bool qrs_off_rhythm(const std::int64_t* position, const float* amplitude, const float* slope,
                                     const float* background, const std::int64_t* beat_of, std::int64_t beats,
                                     const std::int64_t* clear, std::int64_t clear_count, std::int64_t k,
                                     const qrs_rules& rules) {
  if (k < 1 || k + 1 >= beats) return false;
  const std::int64_t i = beat_of[k], p = beat_of[k - 1], q = beat_of[k + 1];
  if (qrs_is_clear_beat(amplitude, background, i, rules) || !(amplitude[i] == amplitude[i])) return false;
  const float neighbour = slope[p] > slope[q] ? slope[p] : slope[q];
  if (!(slope[i] < rules.noisy_slope * neighbour)) return false;
  const float reference = qrs_reference_rr(position, beat_of, clear, clear_count, k, rules);
  return reference > 0 && qrs_keeps_time(static_cast<float>(position[q] - position[p]), 1, reference, rules);
}

/// The candidate that accepted beat k should give way to, or -1: when the beat stands in noise
/// between neighbours two reference R–R intervals apart (qrs_reference_rr) but out of time with
/// them, and an unaccepted candidate between them keeps time with both and looks like a beat of
/// its own (recentre_*: about as steep and strong as the beat, not far below its neighbours),
/// that candidate (the strongest such) is the beat. Electrode motion also displaces beats: a
/// noise peak near a QRS complex wins the refractory period, and the complex is lost. A premature
/// beat of the heart is followed by a pause, so it sits out of time too; it stays unless a rival
/// in time is as steep as it and as strong as a tenth of the beats around, which the noise or T
/// wave after a wide premature beat is not. Judged against the same accepted beats as
/// qrs_off_rhythm, whose extra beats (neighbours one interval apart) are never displaced ones
/// (neighbours two apart).
ZF_QRS_HD inline std::int64_t qrs_recentred(const std::int64_t* position, const float* amplitude, const float* slope,
                                            const float* background, const std::int64_t* beat_of, std::int64_t beats,
                                            const std::int64_t* clear, std::int64_t clear_count, std::int64_t k,
                                            const qrs_rules& rules) {
  if (k < 1 || k + 1 >= beats) return -1;
  const std::int64_t i = beat_of[k], p = beat_of[k - 1], q = beat_of[k + 1];
  if (qrs_is_clear_beat(amplitude, background, i, rules) || !(amplitude[i] == amplitude[i])) return -1;
  const float reference = qrs_reference_rr(position, beat_of, clear, clear_count, k, rules);
  if (!(reference > 0) || !qrs_keeps_time(static_cast<float>(position[q] - position[p]), 2, reference, rules))
    return -1;
  const auto in_time = [&](std::int64_t j) {
    return qrs_keeps_time(static_cast<float>(position[j] - position[p]), 1, reference, rules) &&
           qrs_keeps_time(static_cast<float>(position[q] - position[j]), 1, reference, rules);
  };
  if (in_time(i)) return -1;
  const float neighbour = slope[p] < slope[q] ? slope[p] : slope[q];
  const float neighbour_energy = amplitude[p] < amplitude[q] ? amplitude[p] : amplitude[q];
  std::int64_t best = -1;
  for (std::int64_t j = p + 1; j < q; ++j)
    if (j != i && in_time(j) && slope[j] >= rules.recentre_slope * slope[i] &&
        slope[j] >= rules.recentre_neighbour * neighbour && amplitude[j] >= rules.recentre_level * neighbour_energy &&
        amplitude[j] >= rules.recentre_energy * amplitude[i] && (best < 0 || amplitude[j] > amplitude[best]))
      best = j;
  return best;
}

/// Whether accepted beat k anchors rhythm paths: clear of noise, at least path_anchor and at most
/// path_steepest times as steep as the clear beats around it (qrs_reference_slope). A burst of
/// noise in a quiet stretch can stand as clear of its background as a beat, but is rarely as steep
/// as the beats; a step of the baseline is a jump, far steeper than any QRS complex.
ZF_QRS_HD inline bool qrs_is_anchor(const std::int64_t* position, const float* amplitude, const float* slope,
                                    const float* background, const std::int64_t* beat_of, const std::int64_t* clear,
                                    std::int64_t clear_count, std::int64_t k, const qrs_rules& rules) {
  const std::int64_t i = beat_of[k];
  if (!qrs_is_clear_beat(amplitude, background, i, rules)) return false;
  const float steep = qrs_reference_slope(position, slope, beat_of, clear, clear_count, k, rules);
  return slope[i] >= rules.path_anchor * steep && !(slope[i] > rules.path_steepest * steep && steep > 0);
}

/// Whether one of the accepted beats between k and k2 (accepted-beat indices) is under `snr` times
/// its background.
ZF_QRS_HD inline bool qrs_has_burst(const float* amplitude, const float* background, const std::int64_t* beat_of,
                                    std::int64_t k, std::int64_t k2, float snr) {
  for (std::int64_t b = k + 1; b < k2; ++b)
    if (amplitude[beat_of[b]] < snr * background[beat_of[b]]) return true;
  return false;
}

/// Whether noise rose between anchors k and k2 (accepted-beat indices, k2 > k + 1): at least half
/// the beats between them have a background over `rise` times the louder of the anchors'. Anchors
/// stand clear of noise, so where the background between them climbs that far, a burst of noise
/// came and went between them, and its peaks may pass for beats however strong they are. Half,
/// not one: a single beat with a loud background is more often a beat of another shape (a run of
/// wide ventricular beats in a noisy record) than a burst.
ZF_QRS_HD inline bool qrs_noise_rose(const float* background, const std::int64_t* beat_of, std::int64_t k,
                                     std::int64_t k2, float rise) {
  const float ka = background[beat_of[k]], kz = background[beat_of[k2]];
  const float quiet = ka < kz ? kz : ka;
  std::int64_t risen = 0;
  for (std::int64_t b = k + 1; b < k2; ++b)
    if (background[beat_of[b]] > rise * quiet) ++risen;
  return risen > 0 && 2 * risen >= k2 - k - 1;
}

/// Whether the beats between anchors k and k2 (accepted-beat indices, k2 > k + 1) stand in noise
/// and are re-decided: one is under burst_snr times its background, or a candidate between the
/// anchors that is not a beat has path_rival of the weakest beat's energy (anchors included).
/// Between the beats of a clean stretch only P and T waves and small noise lie, far weaker than
/// any beat, and a premature beat there (which a rhythm path could take for noise) stays.
ZF_QRS_HD inline bool qrs_wants_path(const float* amplitude, const float* background, const std::int64_t* beat_of,
                                     std::int64_t k, std::int64_t k2, const qrs_rules& rules) {
  if (qrs_has_burst(amplitude, background, beat_of, k, k2, rules.burst_snr)) return true;
  const std::int64_t a = beat_of[k], z = beat_of[k2];
  float weakest = amplitude[a] < amplitude[z] ? amplitude[a] : amplitude[z];
  for (std::int64_t b = k + 1; b < k2; ++b)
    if (amplitude[beat_of[b]] < weakest) weakest = amplitude[beat_of[b]];
  std::int64_t next = k + 1;  // the next beat at or after candidate j
  for (std::int64_t j = a + 1; j < z; ++j) {
    if (j == beat_of[next]) {
      ++next;
      continue;
    }
    if (amplitude[j] >= rules.path_rival * weakest) return true;
  }
  return false;
}

/// Cost of an interval of `span` samples in a rhythm path: its distance from the reference R–R
/// range [shortest, longest], in units of path_tolerance of the nearer end, squared.
ZF_QRS_HD inline float qrs_interval_cost(float span, float shortest, float longest, const qrs_rules& rules) {
  if (span >= shortest && span <= longest) return 0.0F;
  const float end = span < shortest ? shortest : longest;
  const float off = (span - end) / (rules.path_tolerance * end);
  return off * off;
}

/// The range of the clear intervals near accepted beat k (qrs_for_clear_near), their extremes left
/// out: [shortest, longest]; false when there are fewer than qrs_rhythm_intervals.
ZF_QRS_HD inline bool qrs_rhythm_range(const std::int64_t* position, const std::int64_t* beat_of,
                                       const std::int64_t* clear, std::int64_t clear_count, std::int64_t k,
                                       const qrs_rules& rules, float& shortest, float& longest) {
  float sorted[2 * qrs_rhythm_intervals];
  const int count = qrs_sorted_clear_intervals(position, beat_of, clear, clear_count, k, rules, sorted);
  if (count < qrs_rhythm_intervals) return false;
  const int cut = static_cast<int>(rules.path_range_cut * static_cast<float>(count));
  shortest = sorted[cut];
  longest = sorted[count - 1 - cut];
  return true;
}

/// Cost of taking candidate j for a beat of a rhythm path: nothing when it is as steep as the
/// anchors' beats and as strong as the weaker anchor, growing as it falls below them (a rational
/// function, so that host and GPU compute it alike). Electrode motion puts peaks into the QRS band
/// as strong as beats, but less steep. A candidate without energy (a gap) or under path_least_snr
/// times its background is never a beat: a path would otherwise fill a long interval of a clean
/// stretch with the small peak that happens to lie in time.
ZF_QRS_HD inline float qrs_node_cost(const float* amplitude, const float* slope, const float* background,
                                     std::int64_t j, float steepness, float energy, const qrs_rules& rules) {
  if (!(amplitude[j] > 0) || !(slope[j] > 0) || amplitude[j] < rules.path_least_snr * background[j]) return qrs_no_path;
  float cost = 0;
  if (slope[j] < steepness) cost += rules.path_slope_weight * (steepness / slope[j] - 1);
  if (amplitude[j] < energy) cost += rules.path_energy_weight * (energy / amplitude[j] - 1);
  return cost;
}

/// Re-decides the candidates between anchors a and z (candidate indices, a < z) as the path of
/// candidates from a to z that best keeps the R–R range [shortest, longest] (one reference R–R
/// when shortest == longest): the least total of qrs_interval_cost over its intervals and
/// qrs_node_cost less `bonus` over its beats (steepness: the clear beats' slope around), by
/// dynamic programming over the candidates in order. Noise that passes for a beat breaks the
/// rhythm and is less steep; a beat that noise hid below the threshold or displaced keeps it. One
/// error next to another is where the local checks (qrs_off_rhythm, qrs_recentred) stop, and a
/// path sees the whole stretch. cost[] and back[] are scratch written for the candidates in (a, z]
/// only, so paths between different anchors share nothing. The marks stay when no path has every
/// interval between refractory and path_longest times `longest`.
ZF_QRS_HD inline void qrs_rhythm_path(const std::int64_t* position, const float* amplitude, const float* slope,
                                      const float* background, std::int64_t a, std::int64_t z, float shortest,
                                      float longest, float steepness, float bonus, const qrs_rules& rules, float* cost,
                                      std::int64_t* back, std::uint8_t* beat) {
  const float energy = amplitude[a] < amplitude[z] ? amplitude[a] : amplitude[z];
  const float reach = rules.path_longest * longest;
  for (std::int64_t j = a + 1; j <= z; ++j) {
    float best = qrs_no_path;
    std::int64_t from = -1;
    for (std::int64_t i = j - 1; i >= a; --i) {
      const auto span = static_cast<float>(position[j] - position[i]);
      if (span > reach) break;
      if (span < static_cast<float>(rules.refractory) || (i > a && !(cost[i] < qrs_no_path))) continue;
      const float c = (i > a ? cost[i] : 0.0F) + qrs_interval_cost(span, shortest, longest, rules);
      if (c < best) {
        best = c;
        from = i;
      }
    }
    const float node = j < z ? qrs_node_cost(amplitude, slope, background, j, steepness, energy, rules) : 0.0F;
    cost[j] = from >= 0 && node < qrs_no_path ? best + (j < z ? node - bonus : node) : qrs_no_path;
    back[j] = from;
  }
  if (!(cost[z] < qrs_no_path)) return;
  for (std::int64_t j = a + 1; j < z; ++j) beat[j] = 0;
  for (std::int64_t j = back[z]; j > a; j = back[j]) beat[j] = 1;
}

/// The rhythm path after anchor number c (anchors[c] and anchors[c + 1], indices into beat_of),
/// when the beats between stand in noise (qrs_wants_path): to the reference R–R where the rhythm
/// is regular (qrs_reference_rr), else within the range of the clear intervals around
/// (qrs_rhythm_range), each beat earning path_irregular_bonus. Paths write only the marks
/// strictly between their anchors.
ZF_QRS_HD inline void qrs_follow_rhythm(const std::int64_t* position, const float* amplitude, const float* slope,
                                        const float* background, const std::int64_t* beat_of, const std::int64_t* clear,
                                        std::int64_t clear_count, const std::int64_t* anchors, std::int64_t c,
                                        const qrs_rules& rules, float* cost, std::int64_t* back, std::uint8_t* beat) {
  const std::int64_t k = anchors[c], k2 = anchors[c + 1];
  if (k2 == k + 1 || !qrs_wants_path(amplitude, background, beat_of, k, k2, rules)) return;
  float shortest = qrs_reference_rr(position, beat_of, clear, clear_count, k, rules), longest = shortest;
  float bonus = 0;
  if (!(shortest > 0)) {
    // An irregular rhythm (AF, flutter, bigeminy) sets no interval, only a range: a path there
    // keeps what looks like a beat unless it makes an interval shorter than the range, and fills
    // an interval longer than it. With less to go on, only where a beat stands deep in noise or
    // noise rose between the anchors: in bigeminy, a burst's peaks as strong as the beats split
    // the long interval after each ectopic beat, and none of them is deep in noise.
    if (!(qrs_has_burst(amplitude, background, beat_of, k, k2, rules.path_irregular_snr) ||
          qrs_noise_rose(background, beat_of, k, k2, rules.path_noise_rise)) ||
        !qrs_rhythm_range(position, beat_of, clear, clear_count, k, rules, shortest, longest))
      return;
    bonus = rules.path_irregular_bonus;
  }
  const float steepness = qrs_reference_slope(position, slope, beat_of, clear, clear_count, k, rules);
  qrs_rhythm_path(position, amplitude, slope, background, beat_of[k], beat_of[k2], shortest, longest, steepness, bonus,
                  rules, cost, back, beat);
}

/// Most candidates the initial levels are learnt from: candidates are at least half a refractory
/// period apart, so this covers the learning window at any heart rate, and it fits a thread's stack.
inline constexpr std::int64_t qrs_learn_capacity = 128;

/// Decides stretch k (samples [k·stretch, (k+1)·stretch)): learns from the overlap before it,
/// marks its own candidates. Each stretch sorts its learning candidates in its own buffer, so
/// stretches share nothing but the (disjoint) marks they write.
ZF_QRS_HD inline void qrs_decide_stretch(const std::int64_t* position, const float* amplitude, const float* slope,
                                         const float* background, std::int64_t n, std::int64_t k,
                                         const qrs_rules& rules, std::uint8_t* beat) {
  const std::int64_t from = k * rules.stretch;
  const std::int64_t begin = qrs_first_at(position, n, from - rules.overlap);
  const std::int64_t emit = qrs_first_at(position, n, from);
  const std::int64_t end = qrs_first_at(position, n, from + rules.stretch);
  if (emit >= end) return;
  // Levels from the first `learn` samples of what this stretch sees (at least 16 peaks).
  std::int64_t learning = qrs_first_at(position, n, position[begin] + rules.learn) - begin;
  const std::int64_t seen = end - begin;
  if (learning < 16) learning = seen < 16 ? seen : 16;
  if (learning > qrs_learn_capacity) learning = qrs_learn_capacity;
  float sorted[qrs_learn_capacity];
  qrs_state state;
  qrs_initial_levels(amplitude + begin, learning, sorted, state);
  qrs_decide(position, amplitude, slope, background, n, begin, emit, end, rules, state, beat);
}

/// Two beats on either side of the start of stretch k (k >= 1) closer than `replace` are one beat
/// seen twice (each stretch decided its own side): the weaker goes. Joins run one after another
/// (k = 1, 2, ...), on the GPU too: a stretch with a single beat may take part in two of them.
ZF_QRS_HD inline void qrs_join_stretches(const std::int64_t* position, const float* amplitude, std::int64_t n,
                                         std::int64_t k, const qrs_rules& rules, std::uint8_t* beat) {
  const std::int64_t boundary = k * rules.stretch;
  const std::int64_t first = qrs_first_at(position, n, boundary);
  std::int64_t before = -1, after = -1;
  for (std::int64_t i = first - 1; i >= 0 && position[i] >= boundary - rules.replace; --i)
    if (beat[i]) {
      before = i;
      break;
    }
  for (std::int64_t i = first; i < n && position[i] < boundary + rules.replace; ++i)
    if (beat[i]) {
      after = i;
      break;
    }
  if (before < 0 || after < 0 || position[after] - position[before] > rules.replace) return;
  if (amplitude[after] > amplitude[before])
    beat[before] = 0;
  else
    beat[after] = 0;
}

}  // namespace zeroflow::signal::detail
