// The class rule's parameters by name (param_names.hpp).
#include "zeroflow/classify/param_names.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <string>

#include "zeroflow/core/error.hpp"

namespace zeroflow::classify {

std::vector<param_field> param_fields(af_params& a, const std::string& prefix) {
  return {
      {prefix + "window_beats", nullptr, &a.window_beats},
      {prefix + "irregular_step_log_ratio", &a.irregular_step_log_ratio},
      {prefix + "irregular_share", &a.irregular_share},
      {prefix + "distinct_pair_share_min", &a.distinct_pair_share_min},
      {prefix + "local_rhythm_beats", nullptr, &a.local_rhythm_beats},
      {prefix + "ectopic_early_ratio", &a.ectopic_early_ratio},
      {prefix + "ectopic_pause_ratio", &a.ectopic_pause_ratio},
      {prefix + "p_wave_coherence_max", &a.p_wave_coherence_max},
      {prefix + "bridge_gap_seconds", &a.bridge_gap_seconds},
      {prefix + "min_episode_beats", nullptr, &a.min_episode_beats},
      {prefix + "strip_max_seconds", &a.strip_max_seconds},
  };
}

std::vector<param_field> param_fields(class_params& p) {
  auto& s = p.shape;
  auto& t = p.timing;
  auto& q = p.quality;
  auto& r = p.runs;
  std::vector<param_field> out = {
      {"shape.dominant_min_correlation", &s.dominant_min_correlation},
      {"shape.dominant_max_correlation", &s.dominant_max_correlation},
      {"shape.dominant_spread_deviations", &s.dominant_spread_deviations},
      {"shape.family_min_correlation", &s.family_min_correlation},
      {"shape.family_ventricular_share", &s.family_ventricular_share},
      {"shape.family_min_voters", nullptr, &s.family_min_voters},
      {"shape.max_families", nullptr, &s.max_families},
      {"shape.template_rows", nullptr, &s.template_rows},
      {"shape.smallest_qrs_fraction", &s.smallest_qrs_fraction},
      {"shape.other_shape_max_similarity", &s.other_shape_max_similarity},
      {"shape.other_lead_min_deviation", &s.other_lead_min_deviation},
      {"shape.unconfirmed_v_min_clarity", &s.unconfirmed_v_min_clarity},
      {"timing.local_rhythm_beats", nullptr, &t.local_rhythm_beats},
      {"timing.ventricular_early_ratio", &t.ventricular_early_ratio},
      {"timing.ventricular_pause_ratio", &t.ventricular_pause_ratio},
      {"timing.one_cue_min_clarity", &t.one_cue_min_clarity},
      {"timing.premature_ratio", &t.premature_ratio},
      {"timing.premature_with_p_ratio", &t.premature_with_p_ratio},
      {"timing.p_unlike_max_similarity", &t.p_unlike_max_similarity},
      {"quality.stretch_beats", nullptr, &q.stretch_beats},
      {"quality.min_clarity", &q.min_clarity},
      {"quality.same_beat_seconds", &q.same_beat_seconds},
      {"quality.missed_beat_ratio", &q.missed_beat_ratio},
      {"quality.second_qrs_slope_ratio", &q.second_qrs_slope_ratio},
      {"quality.fast_rhythm_beats", nullptr, &q.fast_rhythm_beats},
      {"quality.quiet_slope_ratio", &q.quiet_slope_ratio},
      {"quality.beatless_seconds", &q.beatless_seconds},
      {"runs.onset_ratio", &r.onset_ratio},
      {"runs.continue_ratio", &r.continue_ratio},
      {"runs.regularity_log_ratio", &r.regularity_log_ratio},
      {"runs.reference_intervals", nullptr, &r.reference_intervals},
      {"runs.reference_seconds", &r.reference_seconds},
  };
  for (auto& f : param_fields(p.af, "af.")) out.push_back(std::move(f));
  return out;
}

param_field* find_param(std::span<param_field> fields, std::string_view name) {
  const auto found = std::find_if(fields.begin(), fields.end(), [&](const param_field& f) { return f.name == name; });
  return found == fields.end() ? nullptr : &*found;
}

void set_class_params(class_params& p, std::string_view pairs) {
  auto fields = param_fields(p);
  std::size_t from = 0;
  while (from <= pairs.size()) {
    const std::size_t comma = std::min(pairs.find(',', from), pairs.size());
    const std::string_view pair = pairs.substr(from, comma - from);
    from = comma + 1;
    if (pair.empty()) continue;
    const std::size_t equals = pair.find('=');
    ZF_EXPECTS(equals != std::string_view::npos, "class parameter '", pair, "' is not NAME=VALUE");
    const std::string_view name = pair.substr(0, equals), text = pair.substr(equals + 1);
    param_field* field = find_param(fields, name);
    ZF_EXPECTS(field != nullptr, "no class parameter is named '", name, "' (docs/classification.md lists them)");
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    ZF_EXPECTS(ec == std::errc{} && end == text.data() + text.size() && std::isfinite(value), "class parameter ", name,
               ": '", text, "' is not a number");
    if (field->real != nullptr) {
      *field->real = value;
    } else {
      ZF_EXPECTS(value == std::floor(value) && std::abs(value) < 1e15, "class parameter ", name, ": '", text,
                 "' is not a whole number");
      *field->count = static_cast<std::int64_t>(value);
    }
    if (comma == pairs.size()) break;
  }
  check_class_params(p);
}

std::string changed_class_params(const class_params& p) {
  class_params defaults;
  class_params copy = p;
  const auto now = param_fields(copy);
  const auto then = param_fields(defaults);
  std::ostringstream out;
  out.precision(17);
  for (std::size_t i = 0; i < now.size(); ++i) {
    const bool real = now[i].real != nullptr;
    if (real ? *now[i].real == *then[i].real : *now[i].count == *then[i].count) continue;
    if (out.tellp() > 0) out << ',';
    out << now[i].name << '=';
    if (real)
      out << *now[i].real;
    else
      out << *now[i].count;
  }
  return out.str();
}

}  // namespace zeroflow::classify
