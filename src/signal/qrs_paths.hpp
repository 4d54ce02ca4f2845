#pragma once
// Rhythm paths: where beats stand in noise between two clear beats (anchors), the candidates
// between are re-decided together as the cheapest path that keeps the rhythm around and takes
// steep, strong candidates. Two errors side by side, which the checks of single beats
// (qrs_rhythm.hpp) cannot see, are mended together. Every path is judged against the same
// accepted beats and writes only between its anchors, so paths may be followed in any order.
#include <cstdint>

#include "qrs_rhythm.hpp"
#include "qrs_rules.hpp"
#include "qrs_views.hpp"

namespace zeroflow::signal::detail {

/// The cost of no path (qrs_rhythm_path): larger than any path's.
inline constexpr float qrs_no_path = 3.4e38F;

/// Whether accepted beat k anchors rhythm paths: clear of noise, at least anchor_slope_fraction and
/// at most anchor_steepest_ratio times as steep as the clear beats around it (qrs_reference_slope).
/// A burst of noise in a quiet stretch can stand as clear of its background as a beat, but is
/// rarely as steep as the beats; a step of the baseline is a jump, far steeper than any QRS complex.
ZF_HD inline bool qrs_is_anchor(const qrs_candidate_view& c, const qrs_accepted_view& accepted, std::int64_t k,
                                const qrs_rules& rules) {
  const std::int64_t i = accepted.beat_of[k];
  if (!qrs_is_clear_beat(c, i, rules.rhythm)) return false;
  const float steep = qrs_reference_slope(c, accepted, k, rules.time);
  const qrs_path_trigger_rules& trigger = rules.path_trigger;
  return c.slope[i] >= trigger.anchor_slope_fraction * steep &&
         !(c.slope[i] > trigger.anchor_steepest_ratio * steep && steep > 0);
}

/// Whether one of the accepted beats between k and k2 (accepted-beat indices) is under `snr` times
/// its background.
ZF_HD inline bool qrs_has_burst(const qrs_candidate_view& c, const qrs_accepted_view& accepted, std::int64_t k,
                                std::int64_t k2, float snr) {
  for (std::int64_t b = k + 1; b < k2; ++b)
    if (c.amplitude[accepted.beat_of[b]] < snr * c.background[accepted.beat_of[b]]) return true;
  return false;
}

/// Whether noise rose between anchors k and k2 (accepted-beat indices, k2 > k + 1): at least half
/// the beats between them have a background over `rise` times the louder of the anchors'. Anchors
/// stand clear of noise, so where the background between them climbs that far, a burst of noise
/// came and went between them, and its peaks may pass for beats however strong they are. Half,
/// not one: a single beat with a loud background is more often a beat of another shape (a run of
/// wide ventricular beats in a noisy record) than a burst.
ZF_HD inline bool qrs_noise_rose(const qrs_candidate_view& c, const qrs_accepted_view& accepted, std::int64_t k,
                                 std::int64_t k2, float rise) {
  const float ka = c.background[accepted.beat_of[k]], kz = c.background[accepted.beat_of[k2]];
  const float quiet = ka < kz ? kz : ka;
  std::int64_t risen = 0;
  for (std::int64_t b = k + 1; b < k2; ++b)
    if (c.background[accepted.beat_of[b]] > rise * quiet) ++risen;
  return risen > 0 && 2 * risen >= k2 - k - 1;
}

/// Whether the beats between anchors k and k2 (accepted-beat indices, k2 > k + 1) stand in noise
/// and are re-decided: one is under burst.snr times its background, or a candidate between the
/// anchors that is not a beat has rival_energy_fraction of the weakest beat's energy (anchors
/// included). Between the beats of a clean stretch only P and T waves and small noise lie, far
/// weaker than any beat, and a premature beat there (which a rhythm path could take for noise) stays.
ZF_HD inline bool qrs_wants_path(const qrs_candidate_view& c, const qrs_accepted_view& accepted, std::int64_t k,
                                 std::int64_t k2, const qrs_rules& rules) {
  if (qrs_has_burst(c, accepted, k, k2, rules.burst.snr)) return true;
  const std::int64_t* beat_of = accepted.beat_of;
  const std::int64_t a = beat_of[k], z = beat_of[k2];
  float weakest = c.amplitude[a] < c.amplitude[z] ? c.amplitude[a] : c.amplitude[z];
  for (std::int64_t b = k + 1; b < k2; ++b)
    if (c.amplitude[beat_of[b]] < weakest) weakest = c.amplitude[beat_of[b]];
  std::int64_t next = k + 1;  // the next beat at or after candidate j
  for (std::int64_t j = a + 1; j < z; ++j) {
    if (j == beat_of[next]) {
      ++next;
      continue;
    }
    if (c.amplitude[j] >= rules.path_trigger.rival_energy_fraction * weakest) return true;
  }
  return false;
}

/// Cost of an interval of `span` samples in a rhythm path: its distance from the reference R–R
/// range [shortest, longest], in units of tolerance_fraction of the nearer end, squared.
ZF_HD inline float qrs_interval_cost(float span, float shortest, float longest, const qrs_path_cost_rules& cost) {
  if (span >= shortest && span <= longest) return 0.0F;
  const float end = span < shortest ? shortest : longest;
  const float off = (span - end) / (cost.tolerance_fraction * end);
  return off * off;
}

/// The range of the clear intervals near accepted beat k (qrs_for_clear_near), their extremes left
/// out: [shortest, longest]; false when there are fewer than qrs_rhythm_intervals.
ZF_HD inline bool qrs_rhythm_range(const qrs_candidate_view& c, const qrs_accepted_view& accepted, std::int64_t k,
                                   const qrs_rules& rules, float& shortest, float& longest) {
  float sorted[2 * qrs_rhythm_intervals];
  const int count = qrs_sorted_clear_intervals(c, accepted, k, rules.time, sorted);
  if (count < qrs_rhythm_intervals) return false;
  const int cut = static_cast<int>(rules.path_cost.range_cut_fraction * static_cast<float>(count));
  shortest = sorted[cut];
  longest = sorted[count - 1 - cut];
  return true;
}

/// Cost of taking candidate j for a beat of a rhythm path: nothing when it is as steep as the
/// anchors' beats and as strong as the weaker anchor, growing as it falls below them (a rational
/// function, so that host and GPU compute it alike). Electrode motion puts peaks into the QRS band
/// as strong as beats, but less steep. A candidate without energy (a gap) or under least_snr times
/// its background is never a beat: a path would otherwise fill a long interval of a clean stretch
/// with the small peak that happens to lie in time.
ZF_HD inline float qrs_node_cost(const qrs_candidate_view& c, std::int64_t j, float steepness, float energy,
                                 const qrs_path_cost_rules& rules) {
  if (!(c.amplitude[j] > 0) || !(c.slope[j] > 0) || c.amplitude[j] < rules.least_snr * c.background[j])
    return qrs_no_path;
  float cost = 0;
  if (c.slope[j] < steepness) cost += rules.slope_weight * (steepness / c.slope[j] - 1);
  if (c.amplitude[j] < energy) cost += rules.energy_weight * (energy / c.amplitude[j] - 1);
  return cost;
}

/// What a rhythm path between two anchors keeps to: the R–R range [shortest, longest] (one
/// reference R–R when shortest == longest), the clear beats' steepness around, and what each beat
/// of the path earns (`bonus`).
struct qrs_path_target {
  float shortest, longest, steepness, bonus;
};

/// Scratch of the dynamic programme (qrs_rhythm_path), one entry per candidate: the least cost of
/// a path to it and the candidate before it on that path.
struct qrs_path_scratch {
  float* cost;
  std::int64_t* back;
};

/// Re-decides the candidates between anchors a and z (candidate indices, a < z) as the path of
/// candidates from a to z that best keeps the target's R–R range: the least total of
/// qrs_interval_cost over its intervals and qrs_node_cost less the target's bonus over its beats,
/// by dynamic programming over the candidates in order. Noise that passes for a beat breaks the
/// rhythm and is less steep; a beat that noise hid below the threshold or displaced keeps it. One
/// error next to another is where the local checks (qrs_off_rhythm, qrs_recentred) stop, and a
/// path sees the whole stretch. The scratch is written for the candidates in (a, z] only, so paths
/// between different anchors share nothing. The marks stay when no path has every interval
/// between refractory_samples and longest_rr times the target's longest.
ZF_HD inline void qrs_rhythm_path(const qrs_candidate_view& c, std::int64_t a, std::int64_t z,
                                  const qrs_path_target& target, const qrs_rules& rules,
                                  const qrs_path_scratch& scratch, std::uint8_t* beat) {
  float* cost = scratch.cost;
  std::int64_t* back = scratch.back;
  const float energy = c.amplitude[a] < c.amplitude[z] ? c.amplitude[a] : c.amplitude[z];
  const float reach = rules.path_cost.longest_rr * target.longest;
  for (std::int64_t j = a + 1; j <= z; ++j) {
    float best = qrs_no_path;
    std::int64_t from = -1;
    for (std::int64_t i = j - 1; i >= a; --i) {
      const auto span = static_cast<float>(c.position[j] - c.position[i]);
      if (span > reach) break;
      if (span < static_cast<float>(rules.time.refractory_samples) || (i > a && !(cost[i] < qrs_no_path))) continue;
      const float total =
          (i > a ? cost[i] : 0.0F) + qrs_interval_cost(span, target.shortest, target.longest, rules.path_cost);
      if (total < best) {
        best = total;
        from = i;
      }
    }
    const float node = j < z ? qrs_node_cost(c, j, target.steepness, energy, rules.path_cost) : 0.0F;
    cost[j] = from >= 0 && node < qrs_no_path ? best + (j < z ? node - target.bonus : node) : qrs_no_path;
    back[j] = from;
  }
  if (!(cost[z] < qrs_no_path)) return;
  for (std::int64_t j = a + 1; j < z; ++j) beat[j] = 0;
  for (std::int64_t j = back[z]; j > a; j = back[j]) beat[j] = 1;
}

/// The rhythm path after anchor number `anchor` (anchors[anchor] and anchors[anchor + 1], indices
/// into accepted.beat_of), when the beats between stand in noise (qrs_wants_path): to the
/// reference R–R where the rhythm is regular (qrs_reference_rr), else within the range of the
/// clear intervals around (qrs_rhythm_range), each beat earning irregular_bonus. Paths write only
/// the marks strictly between their anchors.
ZF_HD inline void qrs_follow_rhythm(const qrs_candidate_view& c, const qrs_accepted_view& accepted,
                                    const std::int64_t* anchors, std::int64_t anchor, const qrs_rules& rules,
                                    const qrs_path_scratch& scratch, std::uint8_t* beat) {
  const std::int64_t k = anchors[anchor], k2 = anchors[anchor + 1];
  if (k2 == k + 1 || !qrs_wants_path(c, accepted, k, k2, rules)) return;
  float shortest = qrs_reference_rr(c, accepted, k, rules), longest = shortest;
  float bonus = 0;
  if (!(shortest > 0)) {
    // An irregular rhythm (AF, flutter, bigeminy) sets no interval, only a range: a path there
    // keeps what looks like a beat unless it makes an interval shorter than the range, and fills
    // an interval longer than it. With less to go on, only where a beat stands deep in noise or
    // noise rose between the anchors: in bigeminy, a burst's peaks as strong as the beats split
    // the long interval after each ectopic beat, and none of them is deep in noise.
    if (!(qrs_has_burst(c, accepted, k, k2, rules.path_trigger.irregular_snr) ||
          qrs_noise_rose(c, accepted, k, k2, rules.path_trigger.noise_rise_ratio)) ||
        !qrs_rhythm_range(c, accepted, k, rules, shortest, longest))
      return;
    bonus = rules.path_cost.irregular_bonus;
  }
  const float steepness = qrs_reference_slope(c, accepted, k, rules.time);
  qrs_rhythm_path(c, accepted.beat_of[k], accepted.beat_of[k2], {shortest, longest, steepness, bonus}, rules, scratch,
                  beat);
}

}  // namespace zeroflow::signal::detail
