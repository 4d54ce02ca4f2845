#pragma once
// The rhythm checks of single beats, after the sequential decision (qrs_decide.hpp): the regular
// rhythm that the clear beats around a beat keep, a beat in noise that splits an interval of it
// (qrs_off_rhythm), and a beat displaced out of time that gives way to a candidate in time
// (qrs_recentred). Every beat is judged against the same accepted beats (qrs_accepted_view), so
// the beats may be judged in any order: one GPU thread each, or one after another on the host.
#include <cstdint>

#include "qrs_rules.hpp"
#include "qrs_views.hpp"

namespace zeroflow::signal::detail {

/// Clear intervals on either side of a beat that make its reference rhythm (qrs_reference_rr), at most.
inline constexpr int qrs_rhythm_intervals = 8;

/// Whether candidate i stands clear of noise: its energy at least rhythm.noisy_snr times its background.
ZF_HD inline bool qrs_is_clear_beat(const qrs_candidate_view& c, std::int64_t i, const qrs_rhythm_rules& rhythm) {
  return c.amplitude[i] >= rhythm.noisy_snr * c.background[i];
}

/// Calls f(b) for the clear intervals b (indices into accepted.clear) nearest to accepted beat k,
/// qrs_rhythm_intervals on either side, that start within reach_samples of it.
template <class F>
ZF_HD inline void qrs_for_clear_near(const qrs_candidate_view& c, const qrs_accepted_view& accepted, std::int64_t k,
                                     std::int64_t reach_samples, F&& f) {
  const std::int64_t at = c.position[accepted.beat_of[k]];
  // The first clear interval that starts at beat k or later; the window is taken around it.
  const std::int64_t lo = qrs_first_at(accepted.clear, accepted.clear_count, k);
  const std::int64_t from = lo < qrs_rhythm_intervals ? 0 : lo - qrs_rhythm_intervals;
  const std::int64_t to =
      accepted.clear_count - lo < qrs_rhythm_intervals ? accepted.clear_count : lo + qrs_rhythm_intervals;
  for (std::int64_t b = from; b < to; ++b) {
    const std::int64_t start = c.position[accepted.beat_of[accepted.clear[b]]];
    const std::int64_t distance = start > at ? start - at : at - start;
    if (distance <= reach_samples) f(b);
  }
}

/// Inserts v into sorted[0..count) (ascending) and counts it.
ZF_HD inline void qrs_insert_sorted(float* sorted, int& count, float v) {
  int j = count++;
  for (; j > 0 && sorted[j - 1] > v; --j) sorted[j] = sorted[j - 1];
  sorted[j] = v;
}

/// The median of sorted[0..count), count > 0.
ZF_HD inline float qrs_sorted_median(const float* sorted, int count) {
  return count % 2 ? sorted[count / 2] : 0.5F * (sorted[count / 2 - 1] + sorted[count / 2]);
}

/// The clear intervals near accepted beat k (qrs_for_clear_near), in samples, into sorted[]
/// (2 · qrs_rhythm_intervals at least) in ascending order; returns how many.
ZF_HD inline int qrs_sorted_clear_intervals(const qrs_candidate_view& c, const qrs_accepted_view& accepted,
                                            std::int64_t k, const qrs_time_rules& time, float* sorted) {
  int count = 0;
  qrs_for_clear_near(c, accepted, k, time.rhythm_reach_samples, [&](std::int64_t b) {
    const std::int64_t start = c.position[accepted.beat_of[accepted.clear[b]]];
    qrs_insert_sorted(sorted, count, static_cast<float>(c.position[accepted.beat_of[accepted.clear[b] + 1]] - start));
  });
  return count;
}

/// The regular rhythm around accepted beat k: the median of the clear intervals near it
/// (qrs_for_clear_near); 0 when there are fewer than qrs_rhythm_intervals or their quartiles are
/// not close (in AF, or where ectopic beats break the rhythm).
ZF_HD inline float qrs_reference_rr(const qrs_candidate_view& c, const qrs_accepted_view& accepted, std::int64_t k,
                                    const qrs_rules& rules) {
  float sorted[2 * qrs_rhythm_intervals];
  const int count = qrs_sorted_clear_intervals(c, accepted, k, rules.time, sorted);
  if (count < qrs_rhythm_intervals) return 0.0F;
  const float median = qrs_sorted_median(sorted, count);
  return sorted[(3 * count) / 4] - sorted[count / 4] < rules.rhythm.spread_fraction * median ? median : 0.0F;
}

/// The steepness of the clear beats around accepted beat k: the median slope of the beats that
/// start the clear intervals near it (qrs_for_clear_near); 0 when there are none.
ZF_HD inline float qrs_reference_slope(const qrs_candidate_view& c, const qrs_accepted_view& accepted, std::int64_t k,
                                       const qrs_time_rules& time) {
  float sorted[2 * qrs_rhythm_intervals];
  int count = 0;
  qrs_for_clear_near(c, accepted, k, time.rhythm_reach_samples, [&](std::int64_t b) {
    qrs_insert_sorted(sorted, count, c.slope[accepted.beat_of[accepted.clear[b]]]);
  });
  return count ? qrs_sorted_median(sorted, count) : 0.0F;
}

/// Whether `span` samples are `intervals` reference R–R intervals within rhythm.tolerance_fraction of one.
ZF_HD inline bool qrs_keeps_time(float span, float intervals, float reference, const qrs_rhythm_rules& rhythm) {
  const float off = span - intervals * reference;
  return (off < 0 ? -off : off) < rhythm.tolerance_fraction * reference;
}

/// Whether accepted beat k is an extra beat that noise made: a beat in noise (not clear of its
/// background), less steep than a neighbour, whose neighbours are one R–R interval of the regular
/// rhythm around it (qrs_reference_rr) apart. Electrode motion puts peaks into the QRS band that
/// pass every test of a single candidate; what it cannot do is keep time: such a peak splits an
/// ordinary R–R interval in two, while an early beat of the heart (an APC, a PVC) is followed by a
/// pause, so its neighbours lie further apart than one interval.
ZF_HD inline bool qrs_off_rhythm(const qrs_candidate_view& c, const qrs_accepted_view& accepted, std::int64_t k,
                                 const qrs_rules& rules) {
  if (k < 1 || k + 1 >= accepted.beats) return false;
  const std::int64_t i = accepted.beat_of[k], p = accepted.beat_of[k - 1], q = accepted.beat_of[k + 1];
  if (qrs_is_clear_beat(c, i, rules.rhythm) || !(c.amplitude[i] == c.amplitude[i])) return false;
  const float neighbour = c.slope[p] > c.slope[q] ? c.slope[p] : c.slope[q];
  if (!(c.slope[i] < rules.rhythm.noisy_slope_fraction * neighbour)) return false;
  const float reference = qrs_reference_rr(c, accepted, k, rules);
  return reference > 0 && qrs_keeps_time(static_cast<float>(c.position[q] - c.position[p]), 1, reference, rules.rhythm);
}

/// The candidate that accepted beat k should give way to, or -1: when the beat stands in noise
/// between neighbours two reference R–R intervals apart (qrs_reference_rr) but out of time with
/// them, and an unaccepted candidate between them keeps time with both and looks like a beat of
/// its own (qrs_recentre_rules: about as steep and strong as the beat, not far below its
/// neighbours), that candidate (the strongest such) is the beat. Electrode motion also displaces
/// beats: a noise peak near a QRS complex wins the refractory period, and the complex is lost. A
/// premature beat of the heart is followed by a pause, so it sits out of time too; it stays unless
/// a rival in time is as steep as it and as strong as a tenth of the beats around, which the noise
/// or T wave after a wide premature beat is not. Judged against the same accepted beats as
/// qrs_off_rhythm, whose extra beats (neighbours one interval apart) are never displaced ones
/// (neighbours two apart).
ZF_HD inline std::int64_t qrs_recentred(const qrs_candidate_view& c, const qrs_accepted_view& accepted, std::int64_t k,
                                        const qrs_rules& rules) {
  if (k < 1 || k + 1 >= accepted.beats) return -1;
  const std::int64_t i = accepted.beat_of[k], p = accepted.beat_of[k - 1], q = accepted.beat_of[k + 1];
  if (qrs_is_clear_beat(c, i, rules.rhythm) || !(c.amplitude[i] == c.amplitude[i])) return -1;
  const float reference = qrs_reference_rr(c, accepted, k, rules);
  if (!(reference > 0) ||
      !qrs_keeps_time(static_cast<float>(c.position[q] - c.position[p]), 2, reference, rules.rhythm))
    return -1;
  const auto in_time = [&](std::int64_t j) {
    return qrs_keeps_time(static_cast<float>(c.position[j] - c.position[p]), 1, reference, rules.rhythm) &&
           qrs_keeps_time(static_cast<float>(c.position[q] - c.position[j]), 1, reference, rules.rhythm);
  };
  if (in_time(i)) return -1;
  const qrs_recentre_rules& recentre = rules.recentre;
  const float neighbour = c.slope[p] < c.slope[q] ? c.slope[p] : c.slope[q];
  const float neighbour_energy = c.amplitude[p] < c.amplitude[q] ? c.amplitude[p] : c.amplitude[q];
  std::int64_t best = -1;
  for (std::int64_t j = p + 1; j < q; ++j)
    if (j != i && in_time(j) && c.slope[j] >= recentre.slope_fraction * c.slope[i] &&
        c.slope[j] >= recentre.neighbour_slope_fraction * neighbour &&
        c.amplitude[j] >= recentre.neighbour_energy_fraction * neighbour_energy &&
        c.amplitude[j] >= recentre.energy_fraction * c.amplitude[i] && (best < 0 || c.amplitude[j] > c.amplitude[best]))
      best = j;
  return best;
}

}  // namespace zeroflow::signal::detail
