// A run against its labels file: read, map the candidates' scores onto the detections, evaluate.
#include "zeroflow/eval/label_evaluation.hpp"

#include <exception>
#include <limits>

#include "zeroflow/io/labels.hpp"

namespace zeroflow::eval {

std::vector<double> detection_scores(std::size_t detections, std::span<const float> candidate_scores) {
  std::vector<double> scores(detections, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t c = 0; c < candidate_scores.size() && c < scores.size(); ++c) scores[c] = candidate_scores[c];
  return scores;
}

label_evaluation evaluate_labels_file(std::span<const std::int64_t> detected_peaks,
                                      std::span<const float> candidate_scores, double sample_rate,
                                      const std::filesystem::path& labels_file,
                                      const std::function<void(const std::string&)>& warn, double tolerance_seconds,
                                      std::int64_t recording_samples) {
  label_evaluation q;
  q.labels = labels_file;
  io::beat_labels labels;
  try {
    labels = io::read_labels_for(labels_file, sample_rate, recording_samples);
  } catch (const std::exception& e) {
    // The labels only add a report section: the run it belongs to still stands.
    q.not_evaluated = e.what();
    if (warn) warn("warning: labels " + labels_file.string() + ": " + q.not_evaluated + "; not evaluated");
    return q;
  }
  const std::vector<double> scores = detection_scores(detected_peaks.size(), candidate_scores);
  q.result = evaluate_beats(detected_peaks, scores, labels, tolerance_samples(tolerance_seconds, sample_rate));
  return q;
}

}  // namespace zeroflow::eval
