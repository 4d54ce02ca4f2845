// The QRS decision rules for a recording's sizes, and their check (qrs_rules.hpp): every rule
// checked at once, the first one out of range named.
#include "qrs_rules.hpp"

#include <cmath>
#include <cstdint>

#include "zeroflow/core/error.hpp"

namespace zeroflow::signal::detail {

namespace {

void at_least(const char* name, std::int64_t value, std::int64_t lowest) {
  ZF_EXPECTS(value >= lowest, "QRS rule ", name, " must be at least ", lowest, ", got ", value);
}

void positive(const char* name, float value) {
  ZF_EXPECTS(std::isfinite(value) && value > 0, "QRS rule ", name, " must be a positive number, got ", value);
}

void within(const char* name, float value, float lowest, float highest) {
  ZF_EXPECTS(std::isfinite(value) && value >= lowest && value <= highest, "QRS rule ", name, " must be in [", lowest,
             ", ", highest, "], got ", value);
}

void check_times(const qrs_time_rules& t) {
  at_least("time.refractory_samples", t.refractory_samples, 1);
  at_least("time.t_wave_samples", t.t_wave_samples, 1);
  at_least("time.replace_samples", t.replace_samples, 1);
  at_least("time.learn_samples", t.learn_samples, 1);
  at_least("time.stretch_samples", t.stretch_samples, 1);
  at_least("time.overlap_samples", t.overlap_samples, t.learn_samples);  // a stretch learns from its overlap
  at_least("time.rhythm_reach_samples", t.rhythm_reach_samples, 1);
}

void check_single_beats(const qrs_rules& r) {
  positive("t_wave.slope_fraction", r.t_wave.slope_fraction);
  positive("t_wave.energy_fraction", r.t_wave.energy_fraction);
  positive("t_wave.steep_fraction", r.t_wave.steep_fraction);
  const qrs_search_back_rules& s = r.search_back;
  positive("search_back.gap_mean_rr", s.gap_mean_rr);
  positive("search_back.clear_gap_mean_rr", s.clear_gap_mean_rr);
  positive("search_back.clear_snr", s.clear_snr);
  positive("search_back.clear_threshold_fraction", s.clear_threshold_fraction);
  positive("search_back.clear_slope_fraction", s.clear_slope_fraction);
  within("search_back.clear_after_mean_rr", s.clear_after_mean_rr, 0, 1e30F);
  within("search_back.gap_floor_fraction", s.gap_floor_fraction, 1e-30F, 1);  // lowers, never raises
  positive("burst.snr", r.burst.snr);
  positive("burst.spacing_mean_rr", r.burst.spacing_mean_rr);
}

void check_rhythm(const qrs_rules& r) {
  positive("rhythm.noisy_snr", r.rhythm.noisy_snr);
  positive("rhythm.noisy_slope_fraction", r.rhythm.noisy_slope_fraction);
  positive("rhythm.tolerance_fraction", r.rhythm.tolerance_fraction);
  positive("rhythm.spread_fraction", r.rhythm.spread_fraction);
  positive("recentre.slope_fraction", r.recentre.slope_fraction);
  positive("recentre.energy_fraction", r.recentre.energy_fraction);
  positive("recentre.neighbour_slope_fraction", r.recentre.neighbour_slope_fraction);
  positive("recentre.neighbour_energy_fraction", r.recentre.neighbour_energy_fraction);
}

void check_paths(const qrs_rules& r) {
  const qrs_path_trigger_rules& t = r.path_trigger;
  positive("path_trigger.anchor_slope_fraction", t.anchor_slope_fraction);
  within("path_trigger.anchor_steepest_ratio", t.anchor_steepest_ratio, t.anchor_slope_fraction, 1e30F);
  positive("path_trigger.rival_energy_fraction", t.rival_energy_fraction);
  positive("path_trigger.irregular_snr", t.irregular_snr);
  positive("path_trigger.noise_rise_ratio", t.noise_rise_ratio);
  const qrs_path_cost_rules& c = r.path_cost;
  positive("path_cost.tolerance_fraction", c.tolerance_fraction);
  within("path_cost.slope_weight", c.slope_weight, 0, 1e30F);
  within("path_cost.energy_weight", c.energy_weight, 0, 1e30F);
  within("path_cost.least_snr", c.least_snr, 0, 1e30F);
  within("path_cost.longest_rr", c.longest_rr, 1, 1e30F);                  // a path spans at least its longest interval
  within("path_cost.range_cut_fraction", c.range_cut_fraction, 0, 0.49F);  // leaves the middle of the range
  within("path_cost.irregular_bonus", c.irregular_bonus, 0, 1e30F);
}

}  // namespace

void check_qrs_rules(const qrs_rules& rules) {
  check_times(rules.time);
  check_single_beats(rules);
  check_rhythm(rules);
  check_paths(rules);
}

qrs_rules qrs_rules_for(const segment_sizes& sizes) {
  qrs_rules r;
  r.time.refractory_samples = sizes.refractory;
  r.time.t_wave_samples = sizes.t_wave;
  r.time.replace_samples = sizes.replace;
  r.time.learn_samples = sizes.learn;
  r.time.stretch_samples = sizes.stretch;
  r.time.overlap_samples = sizes.overlap;
  r.time.rhythm_reach_samples = sizes.rhythm_reach;
  check_qrs_rules(r);
  return r;
}

}  // namespace zeroflow::signal::detail
