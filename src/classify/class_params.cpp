// check_class_params and check_quality_params (beat_classes.hpp): every parameter of the rule checked at once, the
// first one out of range named.
#include <cmath>
#include <cstdint>

#include "zeroflow/classify/beat_classes.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::classify {

namespace {

void within(const char* name, double value, double lowest, double highest) {
  ZF_EXPECTS(std::isfinite(value) && value >= lowest && value <= highest, "class parameter ", name, " must be in [",
             lowest, ", ", highest, "], got ", value);
}

void at_least(const char* name, std::int64_t value, std::int64_t lowest) {
  ZF_EXPECTS(value >= lowest, "class parameter ", name, " must be at least ", lowest, ", got ", value);
}

}  // namespace

void check_quality_params(const quality_params& q) {
  at_least("quality.stretch_beats", q.stretch_beats, 0);
  within("quality.min_clarity", q.min_clarity, 0, 1e30);
  within("quality.same_beat_seconds", q.same_beat_seconds, 1e-6, 10);
  within("quality.missed_beat_ratio", q.missed_beat_ratio, 1, 1e6);
  within("quality.second_qrs_slope_ratio", q.second_qrs_slope_ratio, 0, 1e30);
  at_least("quality.fast_rhythm_beats", q.fast_rhythm_beats, 1);
  within("quality.beatless_seconds", q.beatless_seconds, 1, 1e9);
  within("quality.quiet_slope_ratio", q.quiet_slope_ratio, 0, q.second_qrs_slope_ratio);
}

void check_class_params(const class_params& p) {
  check_quality_params(p.quality);
  const auto& s = p.shape;
  within("shape.dominant_min_correlation", s.dominant_min_correlation, -1, 1);
  within("shape.dominant_max_correlation", s.dominant_max_correlation, s.dominant_min_correlation, 1);
  within("shape.dominant_spread_deviations", s.dominant_spread_deviations, 0, 1e6);
  within("shape.family_min_correlation", s.family_min_correlation, -1, 1);
  within("shape.family_ventricular_share", s.family_ventricular_share, 0, 1);
  at_least("shape.family_min_voters", s.family_min_voters, 1);
  at_least("shape.max_families", s.max_families, 1);
  at_least("shape.template_rows", s.template_rows, 1);
  within("shape.smallest_qrs_fraction", s.smallest_qrs_fraction, 0, 1);
  within("shape.other_shape_max_similarity", s.other_shape_max_similarity, -1, 1);
  within("shape.other_lead_min_deviation", s.other_lead_min_deviation, 0, 1e30);
  within("shape.unconfirmed_v_min_clarity", s.unconfirmed_v_min_clarity, 0, 1e30);
  const auto& t = p.timing;
  at_least("timing.local_rhythm_beats", t.local_rhythm_beats, 1);
  within("timing.ventricular_early_ratio", t.ventricular_early_ratio, 1e-9, 1);
  within("timing.ventricular_pause_ratio", t.ventricular_pause_ratio, 1, 1e6);
  within("timing.one_cue_min_clarity", t.one_cue_min_clarity, 0, 1e30);
  within("timing.premature_ratio", t.premature_ratio, 1e-9, 1);
  within("timing.premature_with_p_ratio", t.premature_with_p_ratio, t.premature_ratio, 1);
  within("timing.p_unlike_max_similarity", t.p_unlike_max_similarity, -2, 1);
  const auto& r = p.runs;
  within("runs.onset_ratio", r.onset_ratio, 1e-9, 1);
  within("runs.continue_ratio", r.continue_ratio, 1e-9, 1);
  within("runs.regularity_log_ratio", r.regularity_log_ratio, 0, 1e6);
  at_least("runs.reference_intervals", r.reference_intervals, 1);
  within("runs.reference_seconds", r.reference_seconds, 1e-9, 1e9);
  check_af_params(p.af);
}

}  // namespace zeroflow::classify
