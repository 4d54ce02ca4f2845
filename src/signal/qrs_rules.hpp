#pragma once
// The QRS detector's decision rules as numbers: one parameter struct per rule family, each field
// with its unit in its name and where its value comes from. Where a comment gives no physiological
// or physical reason, the value was chosen on MIT-BIH DS1 (in-sample), so it is a tuned constant,
// not a law. The rule bodies that read them are qrs_decide.hpp, qrs_rhythm.hpp and qrs_paths.hpp.
// Plain data: the CUDA path passes qrs_rules by value to its kernels.
#include <cstdint>

#include "zeroflow/signal/params.hpp"

namespace zeroflow::signal::detail {

/// The detector's time constants, in samples: segment_params' seconds at the recording's rate
/// (sizes_for), so their values come from the physiology that segment_params names.
struct qrs_time_rules {
  std::int64_t refractory_samples = 0;  ///< no two beats closer than this (the ventricles' refractory period)
  std::int64_t t_wave_samples = 0;      ///< a weaker, slower peak this soon after a beat is its T wave
  std::int64_t replace_samples = 0;     ///< a stronger peak this soon after a beat replaces it (that was a P wave)
  std::int64_t learn_samples = 0;       ///< the levels start from the candidates of this many samples
  std::int64_t stretch_samples = 0;     ///< samples decided independently of the rest (> 0)
  std::int64_t overlap_samples = 0;     ///< samples before a stretch from which it learns its levels (>= learn_samples)
  std::int64_t rhythm_reach_samples = 0;  ///< a beat's reference clear intervals start at most this far from it
};

/// T-wave rejection (qrs_is_t_wave): a peak within t_wave_samples of a beat is its T wave when it is
/// much slower, and weaker or very slow: a T wave rises slowly, a QRS complex fast. The fractions
/// were chosen on MIT-BIH DS1 (in-sample).
struct qrs_t_wave_rules {
  float slope_fraction = 0.5F;   ///< steepest slope under this fraction of the beat's, and
  float energy_fraction = 0.5F;  ///< energy under this fraction of the beat's (a wide PVC is slow but strong),
  float steep_fraction = 0.25F;  ///< or slope under this fraction whatever its energy (also the least slope,
                                 ///< as a fraction of the beats' running slope, of a beat once the levels
                                 ///< were lowered in a gap)
};

/// Search-back for beats missed in a gap, and the clear candidate a shorter gap may hold
/// (qrs_is_clear): a premature beat too wide to clear the threshold, before its compensatory pause.
struct qrs_search_back_rules {
  float gap_mean_rr = 1.66F;       ///< search back once a gap exceeds this many mean RR intervals (Pan & Tompkins'
                                   ///< value, 166 % of the average RR interval)
  float clear_gap_mean_rr = 1.3F;  ///< and for a clear candidate once it exceeds this many (qrs_is_clear):
                                   ///< chosen on MIT-BIH DS1 (in-sample), as are the clear_* below
  float clear_snr = 20.0F;         ///< energy at least this many times its background,
  float clear_threshold_fraction = 0.2F;  ///< at least this fraction of the threshold,
  float clear_slope_fraction = 0.2F;      ///< a slope at least this fraction of the beats' running slope,
  float clear_after_mean_rr = 0.35F;      ///< and at least this many mean RR intervals after the last beat
                                          ///< (the T wave comes later at slow rates than t_wave_samples allows for)
  float gap_floor_fraction = 1.0F / 16;   ///< a gap lowers the signal level to this fraction of the last beat's at
                                          ///< most: chosen on MIT-BIH DS1 (in-sample)
};

/// Bursts of noise (qrs_in_burst): electrode motion puts peaks as strong as beats into the QRS
/// band, less steep than a QRS complex. Chosen on MIT-BIH DS1 (in-sample; docs/classification.md gives
/// the figures).
struct qrs_burst_rules {
  float snr = 8.0F;              ///< a candidate under this many times its background energy stands in noise,
  float spacing_mean_rr = 0.5F;  ///< where of candidates closer than this many mean RR intervals only the
                                 ///< steepest can be a beat (half an interval reaches a true beat from
                                 ///< anywhere between two beats)
};

/// Beats in noise judged against the regular rhythm of the clear beats around (qrs_is_clear_beat,
/// qrs_reference_rr, qrs_off_rhythm). Noise does not keep time; an early beat of the heart is
/// followed by a pause. The values were chosen on MIT-BIH DS1 (in-sample).
struct qrs_rhythm_rules {
  float noisy_snr = 32.0F;            ///< a beat under this many times its background energy stands in noise,
  float noisy_slope_fraction = 0.8F;  ///< where it is an extra beat (qrs_off_rhythm) when less steep than this
                                      ///< fraction of a neighbour,
  float tolerance_fraction = 0.2F;    ///< its neighbours are one reference R–R interval apart within this fraction,
  float spread_fraction = 0.2F;       ///< and the reference is regular: quartiles closer than this fraction of it
};

/// A displaced beat giving way to a candidate in time (qrs_recentred). A noise peak near a QRS
/// complex can win the refractory period; the fractions were chosen on MIT-BIH DS1 (in-sample).
struct qrs_recentre_rules {
  float slope_fraction = 1.0F;             ///< the candidate at least this fraction as steep as the beat,
  float energy_fraction = 0.25F;           ///< this fraction as strong as the beat,
  float neighbour_slope_fraction = 0.5F;   ///< this fraction as steep as the less steep neighbour,
  float neighbour_energy_fraction = 0.1F;  ///< and this fraction as strong as the weaker neighbour
};

/// When the beats between two anchors are re-decided as a rhythm path (qrs_is_anchor,
/// qrs_wants_path, qrs_follow_rhythm). Chosen on MIT-BIH DS1 (in-sample).
struct qrs_path_trigger_rules {
  float anchor_slope_fraction = 0.85F;  ///< a clear beat this steep against the clear beats around anchors a path
  float anchor_steepest_ratio = 2.0F;   ///< unless it is more than this many times as steep (qrs_is_anchor: a
                                        ///< step of the baseline is far steeper than any QRS complex);
                                        ///< the beats between two anchors are re-decided when one
                                        ///< stands in a burst (under qrs_burst_rules::snr) or a rival candidate
                                        ///< between them has
  float rival_energy_fraction = 0.65F;  ///< this fraction of the weakest beat's energy (qrs_wants_path);
  float irregular_snr = 5.0F;           ///< where the rhythm is irregular, only where a beat is under this many
                                        ///< times its background,
  float noise_rise_ratio = 8.0F;        ///< or its background is over this many times the anchors' louder one
                                        ///< (qrs_noise_rose)
};

/// The cost of a rhythm path and its reach (qrs_interval_cost, qrs_node_cost, qrs_rhythm_range,
/// qrs_rhythm_path). Chosen on MIT-BIH DS1 (in-sample).
struct qrs_path_cost_rules {
  float tolerance_fraction = 0.2F;    ///< an interval off the reference R–R by this fraction costs 1 (squared),
  float slope_weight = 2.0F;          ///< a beat costs this much per (anchors' steepness / its slope − 1),
  float energy_weight = 0.1F;         ///< and this much per (the anchors' weaker energy / its energy − 1),
  float least_snr = 1.0F;             ///< a candidate under this many times its background is never a beat of a path,
  float longest_rr = 2.5F;            ///< and no interval of a path is longer than this many reference R–R intervals
                                      ///< (of the longest in the range of an irregular rhythm)
  float range_cut_fraction = 0.125F;  ///< an irregular rhythm's range is that of the clear intervals without their
                                      ///< shortest and longest this fraction (qrs_rhythm_range),
  float irregular_bonus = 1.5F;       ///< and a beat of its path earns this much (qrs_rhythm_path)
};

/// Every rule of the detector, one family each.
struct qrs_rules {
  qrs_time_rules time;
  qrs_t_wave_rules t_wave;
  qrs_search_back_rules search_back;
  qrs_burst_rules burst;
  qrs_rhythm_rules rhythm;
  qrs_recentre_rules recentre;
  qrs_path_trigger_rules path_trigger;
  qrs_path_cost_rules path_cost;
};

/// @brief The decision rules for a recording's sizes (checked): the one mapping that the
/// in-memory and the chunked detection share.
/// @throws zeroflow::invalid_argument when a rule is out of range (check_qrs_rules)
qrs_rules qrs_rules_for(const segment_sizes& sizes);

/// @brief Checks every rule, the first one out of range named ("path_cost.longest_rr").
/// @throws zeroflow::invalid_argument
void check_qrs_rules(const qrs_rules& rules);

}  // namespace zeroflow::signal::detail
