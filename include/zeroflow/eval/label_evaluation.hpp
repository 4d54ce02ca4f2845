#pragma once
/// @file label_evaluation.hpp
/// A run's evaluation against a labels file, as `zeroflow run --labels` does it: the file read
/// (CSV or WFDB annotations), the per-candidate scores turned into one score per detection, and
/// evaluate_beats at the tolerance of docs/architecture.md (±150 ms). A labels file that cannot be
/// read is a warning, never a failed run.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "zeroflow/eval/beat_evaluation.hpp"

namespace zeroflow::eval {

/// The largest distance, in seconds, between a detected and a labelled R peak that still match.
inline constexpr double default_tolerance_seconds = 0.150;

/// The evaluation of one run against its labels file.
struct label_evaluation {
  std::filesystem::path labels;  ///< the labels file (CSV or WFDB annotations)
  std::string not_evaluated;     ///< why there is no result; empty when `result` holds it
  beat_evaluation result;        ///< detection and per-class ranking (evaluate_beats)
};

/**
 * @brief One score per detection from one score per beat candidate: candidate c begins at
 *        detection c, so detection c takes candidate c's score; the final detection ends the last
 *        candidate, begins none, and stays unscored (NaN), as does any detection past the scores.
 * @param detections the number of detected R peaks.
 * @param candidate_scores the score of each candidate (NaN where not scored).
 */
[[nodiscard]] std::vector<double> detection_scores(std::size_t detections, std::span<const float> candidate_scores);

/**
 * @brief Reads `labels_file` and evaluates the detections and their scores against it.
 * @param detected_peaks every detected R peak (samples), non-decreasing.
 * @param candidate_scores one score per beat candidate (see detection_scores).
 * @param sample_rate samples per second of the recording, > 0.
 * @param labels_file the reference beats (sample,label CSV or WFDB annotations).
 * @param warn called with one line when the labels file cannot be read (may be empty).
 * @param tolerance_seconds the matching tolerance, >= 0.
 * @param recording_samples the recording's length: labels past it are not this recording's
 *        (io::check_labels_within), so the file is not evaluated; 0 when unknown.
 * @return the evaluation, or `not_evaluated` set (and `warn` called) when the file cannot be read
 *         or does not fit the recording.
 * @throws zeroflow::invalid_argument when the peaks are not sorted or a parameter is out of range.
 */
[[nodiscard]] label_evaluation evaluate_labels_file(std::span<const std::int64_t> detected_peaks,
                                                    std::span<const float> candidate_scores, double sample_rate,
                                                    const std::filesystem::path& labels_file,
                                                    const std::function<void(const std::string&)>& warn,
                                                    double tolerance_seconds = default_tolerance_seconds,
                                                    std::int64_t recording_samples = 0);

}  // namespace zeroflow::eval
