#include "zeroflow/report/evaluation_output.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

namespace zeroflow::report {
namespace {

using nlohmann::json;

/// A ratio or metric, null when it does not exist (NaN or empty), never a made-up number.
json number_or_null(double v) { return std::isnan(v) ? json(nullptr) : json(v); }
json number_or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json class_json(const eval::class_ranking& r) {
  json j = {{"beats", r.positives},
            {"other_beats", r.negatives},
            {"unscored_beats", r.unscored_positives},
            {"auroc", number_or_null(r.auroc)},
            {"average_precision", number_or_null(r.average_precision)}};
  if (!r.undefined.empty()) j["undefined"] = r.undefined;
  return j;
}

}  // namespace

json evaluation_json(const eval::beat_evaluation& e, double sample_rate) {
  json j = {
      {"tolerance_samples", e.tolerance_samples},
      {"tolerance_seconds", static_cast<double>(e.tolerance_samples) / sample_rate},
      {"labelled_beats", e.labelled_beats},
      {"detections", e.detections},
      {"true_positives", e.detection.true_positives},
      {"false_positives", e.detection.false_positives},
      {"false_negatives", e.detection.false_negatives},
      {"sensitivity", number_or_null(e.detection.sensitivity)},
      {"positive_predictivity", number_or_null(e.detection.positive_predictivity)},
      {"scored_beats", e.scored_beats},
      {"ranking",
       "each class against every other labelled beat (classes_against_normal: V and S against the N beats alone), "
       "over every labelled beat; a beat without a matched, scored detection ranks below every scored beat (all such "
       "beats tied)"},
      {"classes",
       {{"V", class_json(e.ventricular)}, {"S", class_json(e.supraventricular)}, {"abnormal", class_json(e.abnormal)}}},
      {"classes_against_normal",
       {{"V", class_json(e.ventricular_against_normal)}, {"S", class_json(e.supraventricular_against_normal)}}},
  };
  return j;
}

std::string evaluation_line(const eval::beat_evaluation& e) {
  auto fixed = [](double v, const char* format) {
    if (std::isnan(v)) return std::string("undefined");
    char text[32];
    std::snprintf(text, sizeof text, format, v);
    return std::string(text);
  };
  const auto& v = e.ventricular;
  return "Se " + fixed(100 * e.detection.sensitivity, "%.2f %%") + ", +P " +
         fixed(100 * e.detection.positive_predictivity, "%.2f %%") + ", V AUROC " +
         fixed(v.auroc.value_or(NAN), "%.4f") + ", AP " + fixed(v.average_precision.value_or(NAN), "%.4f") + " (" +
         std::to_string(v.positives) + " V, " + std::to_string(v.unscored_positives) + " unscored)";
}

}  // namespace zeroflow::report
