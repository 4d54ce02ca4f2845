#pragma once
/// @file evaluation_output.hpp
/// A beat evaluation as JSON, in the one shape that summary.json's `evaluation` and the file of
/// `zeroflow evaluate` share (so that tools read either the same way), and as one line of text.
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "zeroflow/eval/beat_evaluation.hpp"

namespace zeroflow::report {

/**
 * @brief The evaluation as JSON: tolerance, labelled beats, detections, TP/FP/FN, sensitivity,
 *        positive predictivity, scored beats, and under `classes` the V, S and abnormal rankings
 *        (beats, other_beats, unscored_beats, auroc, average_precision). A metric that is
 *        undefined is null, with the reason under `undefined`; the per-beat vectors are left out.
 * @param e the evaluation.
 * @param sample_rate samples per second of the recording (for the tolerance in seconds).
 * @return a JSON object.
 */
[[nodiscard]] nlohmann::json evaluation_json(const eval::beat_evaluation& e, double sample_rate);

/**
 * @brief The headline numbers in one line for progress output, e.g.
 *        "Se 99.85 %, +P 99.70 %, V AUROC 0.9123, AP 0.8123 (520 V, 12 unscored)".
 * @param e the evaluation.
 * @return the line; an undefined metric reads "undefined".
 */
[[nodiscard]] std::string evaluation_line(const eval::beat_evaluation& e);

}  // namespace zeroflow::report
