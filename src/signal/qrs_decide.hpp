#pragma once
// The sequential half of QRS detection: which candidate peaks of the band-passed energy are
// beats. Adaptive signal and noise levels with a threshold between them, a refractory period,
// T-wave rejection, replacement of a P wave by the QRS right after it, and search-back for beats
// missed in a long gap (the decision rules of Pan & Tompkins, IEEE TBME 32(3), 1985, applied to
// the peaks that the seed's band-pass and non-maximum suppression propose).
//
// The rules are sequential, but their memory is short (levels and the last RR intervals settle
// within a few beats), so the recording is decided in independent stretches: each stretch learns
// its levels from the overlap before it and decides only its own candidates; a pair of beats
// straddling two stretches that the rules would not both keep is resolved afterwards. The host runs
// the stretches one after another, the CUDA path one per GPU thread: the same functions on the same
// candidates, so both sides accept exactly the same beats. What is decided here is then checked
// against the rhythm (qrs_rhythm.hpp, qrs_paths.hpp).
#include <cstdint>

#include "qrs_levels.hpp"
#include "qrs_rules.hpp"
#include "qrs_views.hpp"

namespace zeroflow::signal::detail {

/// Whether candidate i is noise of a burst: its energy does not stand out from its background
/// (under burst.snr times it), and a steeper candidate above `threshold` lies within
/// burst.spacing_mean_rr mean RR intervals on either side. Electrode motion puts energy in the QRS
/// band itself, as peaks as strong as the beats at any time between them; a QRS complex is steeper
/// than such noise (its edges are sharp), and two beats are rarely that close. So within a burst,
/// of candidates that close only the steepest is taken for a beat. Outside noise (a candidate
/// clear of its background) nothing changes, so early and wide beats of clean stretches are kept.
ZF_HD inline bool qrs_in_burst(const qrs_candidate_view& c, std::int64_t i, float threshold, float mean_rr,
                               const qrs_burst_rules& burst) {
  if (!(c.amplitude[i] < burst.snr * c.background[i]) || !(mean_rr > 0)) return false;
  const float reach = burst.spacing_mean_rr * mean_rr;
  for (std::int64_t j = i - 1; j >= 0 && static_cast<float>(c.position[i] - c.position[j]) < reach; --j)
    if (c.amplitude[j] > threshold && c.slope[j] > c.slope[i]) return true;
  for (std::int64_t j = i + 1; j < c.n && static_cast<float>(c.position[j] - c.position[i]) < reach; ++j)
    if (c.amplitude[j] > threshold && c.slope[j] > c.slope[i]) return true;
  return false;
}

/// Whether candidate j, in a gap, is clear enough to be a beat below the threshold: an event that
/// stands far out of the energy around it, not merely a fraction of the beats' energy. Wide beats
/// (aberrated atrial beats, some ventricular ones) put little energy into the QRS band, so they
/// fall under a threshold set by narrow beats, yet they stand as clear of a quiet background as
/// any beat; noise does not (its background is noise too), and P and T waves are too slow.
ZF_HD inline bool qrs_is_clear(const qrs_candidate_view& c, std::int64_t j, float threshold, float slope_level,
                               const qrs_search_back_rules& rules) {
  return c.amplitude[j] > rules.clear_threshold_fraction * threshold &&
         c.amplitude[j] > rules.clear_snr * c.background[j] && c.slope[j] >= rules.clear_slope_fraction * slope_level;
}

/// Whether a peak soon after a beat is that beat's T wave: much slower, and weaker or very slow.
ZF_HD inline bool qrs_is_t_wave(float amplitude, float slope, float beat_amplitude, float beat_slope,
                                const qrs_t_wave_rules& t_wave) {
  if (slope < t_wave.steep_fraction * beat_slope) return true;
  return slope < t_wave.slope_fraction * beat_slope && amplitude < t_wave.energy_fraction * beat_amplitude;
}

/// The candidates a stretch sees: it decides [begin, end) and marks [emit, end) (those before
/// `emit` only bring its levels up to date).
struct qrs_stretch_range {
  std::int64_t begin, emit, end;
};

/// Applies the rules to the candidates of `range` and marks the accepted ones from range.emit on:
/// beat[i] = 1 for a beat, 0 otherwise, for i in [emit, end) only. The burst rule looks at
/// neighbours past range.end (all c.n candidates).
ZF_HD inline void qrs_decide(const qrs_candidate_view& c, const qrs_stretch_range& range, const qrs_rules& rules,
                             qrs_state& state, std::uint8_t* beat) {
  const qrs_time_rules& time = rules.time;
  auto mark = [&](std::int64_t i, std::uint8_t value) {
    if (i >= range.emit) beat[i] = value;
  };
  auto accept = [&](std::int64_t i, float weight) {
    if (state.last >= 0) state.push_rr(c.position[i] - c.position[state.last]);
    mark(i, 1);
    state.last = i;
    state.learn_signal(c.amplitude[i], weight);
    state.learn_slope(c.slope[i]);
    state.level_at_last = state.signal_level;
    state.lowered = false;
    ++state.beats;
  };
  auto replace_last = [&](std::int64_t i) {
    // The RR ring's newest entry ended at the replaced beat; it now ends here.
    if (state.rr_count > 0) state.rr[(state.rr_count - 1) % 8] += c.position[i] - c.position[state.last];
    mark(state.last, 0);
    mark(i, 1);
    state.last = i;
    state.learn_signal(c.amplitude[i], 0.125F);
    state.level_at_last = state.signal_level;
  };
  for (std::int64_t i = range.emit; i < range.end; ++i) beat[i] = 0;
  for (std::int64_t i = range.begin; i < range.end; ++i) {
    const std::int64_t at = c.position[i];
    const float a = c.amplitude[i];
    // Search-back: a gap much longer than the recent rhythm means a beat was missed; take the
    // strongest rejected candidate in it when it clears half the threshold. When none does, the
    // signal may have become weaker (lead change, dropout, gain change): halve the levels, down
    // to gap_floor_fraction of the last beat's level. Once lowered, a beat must also be steep like
    // a QRS (a slope of at least t_wave.steep_fraction of the beats' running slope): without that
    // and the floor, a long pause (sinus arrest, AV block) halved the levels for every candidate in
    // it, until a P wave or the noise passed for a beat.
    const auto steep_enough = [&](std::int64_t j) {
      return !state.lowered || c.slope[j] >= rules.t_wave.steep_fraction * state.slope_level;
    };
    const auto in_burst = [&](std::int64_t j) {
      return qrs_in_burst(c, j, state.threshold(), state.mean_rr(), rules.burst);
    };
    // The candidates of the gap since the last beat that search-back may take: not the beat's T
    // wave, not within replace_samples of it, and steep enough.
    const auto may_take = [&](std::int64_t j) {
      const std::int64_t after = c.position[j] - c.position[state.last];
      const bool t_wave =
          after < time.t_wave_samples &&
          qrs_is_t_wave(c.amplitude[j], c.slope[j], c.amplitude[state.last], c.slope[state.last], rules.t_wave);
      return after > time.replace_samples && !t_wave && steep_enough(j);
    };
    const auto gap_exceeds = [&](float factor) {
      const float mean_rr = state.mean_rr();
      return state.last >= 0 && mean_rr > 0 && static_cast<float>(at - c.position[state.last]) > factor * mean_rr;
    };
    // A gap somewhat longer than the rhythm: a premature beat too wide to clear the threshold
    // (followed by its compensatory pause) is taken when it is clear of its background.
    if (gap_exceeds(rules.search_back.clear_gap_mean_rr)) {
      const float earliest = rules.search_back.clear_after_mean_rr * state.mean_rr();
      std::int64_t best = -1;
      for (std::int64_t j = state.last + 1; j < i; ++j)
        if (may_take(j) && static_cast<float>(c.position[j] - c.position[state.last]) >= earliest &&
            (best < 0 || c.amplitude[j] > c.amplitude[best]) &&
            qrs_is_clear(c, j, state.threshold(), state.slope_level, rules.search_back))
          best = j;
      if (best >= 0) accept(best, 0.25F);
    }
    if (gap_exceeds(rules.search_back.gap_mean_rr)) {
      std::int64_t best = -1;
      for (std::int64_t j = state.last + 1; j < i; ++j)
        if (may_take(j) && (best < 0 || c.amplitude[j] > c.amplitude[best]) && !in_burst(j)) best = j;
      if (best >= 0 && c.amplitude[best] > 0.5F * state.threshold()) {
        accept(best, 0.25F);
      } else if (state.signal_level * 0.5F >= rules.search_back.gap_floor_fraction * state.level_at_last) {
        state.signal_level *= 0.5F;
        state.noise_level *= 0.5F;
        state.lowered = true;
      }
    }
    if (state.last >= 0) {
      const std::int64_t since = at - c.position[state.last];
      const float last_amplitude = c.amplitude[state.last];
      // Two beats closer than replace_samples are not physiological: the stronger or steeper of
      // the two is the QRS complex (the other was a P wave or noise).
      if (since <= time.replace_samples) {
        if ((a > last_amplitude || (a > state.threshold() && c.slope[i] > c.slope[state.last])) && !in_burst(i))
          replace_last(i);
        continue;
      }
      if (since <= time.refractory_samples) continue;  // a longer refractory period than replace: not a beat
    }
    if (a > state.threshold()) {
      if ((state.last >= 0 && at - c.position[state.last] < time.t_wave_samples &&
           qrs_is_t_wave(a, c.slope[i], c.amplitude[state.last], c.slope[state.last], rules.t_wave)) ||
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

/// Most candidates the initial levels are learnt from: candidates are at least half a refractory
/// period apart, so this covers the learning window at any heart rate, and it fits a thread's stack.
inline constexpr std::int64_t qrs_learn_capacity = 128;

/// Decides stretch k (samples [k·stretch_samples, (k+1)·stretch_samples)): learns from the overlap
/// before it, marks its own candidates. Each stretch sorts its learning candidates in its own
/// buffer, so stretches share nothing but the (disjoint) marks they write.
ZF_HD inline void qrs_decide_stretch(const qrs_candidate_view& c, std::int64_t k, const qrs_rules& rules,
                                     std::uint8_t* beat) {
  const qrs_time_rules& time = rules.time;
  const std::int64_t from = k * time.stretch_samples;
  const std::int64_t begin = qrs_first_at(c.position, c.n, from - time.overlap_samples);
  const std::int64_t emit = qrs_first_at(c.position, c.n, from);
  const std::int64_t end = qrs_first_at(c.position, c.n, from + time.stretch_samples);
  if (emit >= end) return;
  // Levels from the first learn_samples of what this stretch sees (at least 16 peaks).
  std::int64_t learning = qrs_first_at(c.position, c.n, c.position[begin] + time.learn_samples) - begin;
  const std::int64_t seen = end - begin;
  if (learning < 16) learning = seen < 16 ? seen : 16;
  if (learning > qrs_learn_capacity) learning = qrs_learn_capacity;
  float sorted[qrs_learn_capacity];
  qrs_state state;
  qrs_initial_levels(c.amplitude + begin, learning, sorted, state);
  qrs_decide(c, {begin, emit, end}, rules, state, beat);
}

/// Two beats on either side of the start of stretch k (k >= 1) closer than replace_samples are one
/// beat seen twice (each stretch decided its own side): the weaker goes. Joins run one after
/// another (k = 1, 2, ...), on the GPU too: a stretch with a single beat may take part in two of them.
ZF_HD inline void qrs_join_stretches(const qrs_candidate_view& c, std::int64_t k, const qrs_time_rules& time,
                                     std::uint8_t* beat) {
  const std::int64_t boundary = k * time.stretch_samples;
  const std::int64_t first = qrs_first_at(c.position, c.n, boundary);
  std::int64_t before = -1, after = -1;
  for (std::int64_t i = first - 1; i >= 0 && c.position[i] >= boundary - time.replace_samples; --i)
    if (beat[i]) {
      before = i;
      break;
    }
  for (std::int64_t i = first; i < c.n && c.position[i] < boundary + time.replace_samples; ++i)
    if (beat[i]) {
      after = i;
      break;
    }
  if (before < 0 || after < 0 || c.position[after] - c.position[before] > time.replace_samples) return;
  if (c.amplitude[after] > c.amplitude[before])
    beat[before] = 0;
  else
    beat[after] = 0;
}

}  // namespace zeroflow::signal::detail
