#pragma once
/// @file beat_evaluation.hpp
/// A run's quality against reference labels, as docs/architecture.md ("Quality") defines it: detection
/// (detected R peaks matched one to one to labelled beats within a tolerance) and ranking (AUROC
/// and average precision of an abnormal class against all other labelled beats, over every
/// labelled beat, a beat without a scored detection ranking lowest). The same ranking of V and S
/// against the N beats alone is the literature's convention (and issue targets'), also given.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "zeroflow/eval/metrics.hpp"
#include "zeroflow/io/labels.hpp"

namespace zeroflow::eval {

/// How well the scores single out one class among the labelled beats.
struct class_ranking {
  explicit class_ranking(std::string class_name = {}) : name(std::move(class_name)) {}
  std::string name;                         ///< "V", "S" or "abnormal" (every class but N)
  std::int64_t positives = 0;               ///< labelled beats of the class
  std::int64_t negatives = 0;               ///< every other labelled beat (those ranked against it)
  std::int64_t unscored_positives = 0;      ///< positives without a matched, scored detection (ranked lowest)
  std::optional<double> auroc;              ///< empty when undefined (see `undefined`)
  std::optional<double> average_precision;  ///< empty when undefined
  std::string undefined;  ///< why the metrics are undefined (no positive or no negative beat); empty when defined
};

/// The whole evaluation of one recording.
struct beat_evaluation {
  std::int64_t tolerance_samples = 0;  ///< largest |detected - labelled| of a matched pair
  std::int64_t labelled_beats = 0;
  std::int64_t detections = 0;
  detection_stats detection;      ///< TP, FP, FN, Se, +P (NaN ratios when a side is empty)
  std::int64_t scored_beats = 0;  ///< labelled beats whose matched detection has a score
  /// Per labelled beat: the index of its matched detection, or -1 when none matched.
  std::vector<std::int64_t> matched_detection;
  /// Per labelled beat: the score its ranking used, -infinity when it had none.
  std::vector<double> beat_scores;
  class_ranking ventricular{"V"};                      ///< V against all other labelled beats
  class_ranking supraventricular{"S"};                 ///< S against all other labelled beats
  class_ranking abnormal{"abnormal"};                  ///< S, V, F and Q together against N
  class_ranking ventricular_against_normal{"V"};       ///< V against the N beats only
  class_ranking supraventricular_against_normal{"S"};  ///< S against the N beats only
};

/// The beat-weighted mean AUROC of one class over several recordings: each recording's AUROC
/// weighted by its beats of the class, over the recordings where it is defined.
struct weighted_auroc {
  double weighted_sum = 0;
  std::int64_t positives = 0;
  void add(const class_ranking& r) {
    if (!r.auroc) return;
    weighted_sum += *r.auroc * static_cast<double>(r.positives);
    positives += r.positives;
  }
  [[nodiscard]] std::optional<double> value() const {
    return positives > 0 ? std::optional<double>(weighted_sum / static_cast<double>(positives)) : std::nullopt;
  }
};

/**
 * @brief The tolerance in whole samples: the largest distance that stays within `seconds`
 *        (150 ms at 250 Hz is 37.5 samples, so 37).
 * @param seconds the tolerance in seconds, >= 0.
 * @param sample_rate samples per second, > 0.
 * @throws zeroflow::invalid_argument when either is out of range.
 */
[[nodiscard]] std::int64_t tolerance_samples(double seconds, double sample_rate);

/**
 * @brief Matches detections to labelled beats (match_peak_pairs) and ranks every labelled beat by
 *        the score of its matched detection: a beat with no match, or whose detection is
 *        unscored (NaN), ranks below every scored beat, all such beats tied.
 * @param detected_peaks R-peak sample of each detection, non-decreasing.
 * @param scores one score per detection (higher = more anomalous); NaN = not scored.
 * @param labels the reference beats (samples increasing, one AAMI class each).
 * @param tolerance_samples largest allowed |detected - labelled| of a pair, >= 0.
 * @return detection counts and ratios and, for V, S and abnormal, AUROC and average precision
 *         (against every other labelled beat; V and S also against the N beats alone), or an
 *         empty optional and the reason when the class has no positive or no negative beat.
 * @throws zeroflow::invalid_argument when the sizes disagree, the peaks are not sorted or the
 *         tolerance is negative.
 */
[[nodiscard]] beat_evaluation evaluate_beats(std::span<const std::int64_t> detected_peaks,
                                             std::span<const double> scores, const io::beat_labels& labels,
                                             std::int64_t tolerance_samples);

}  // namespace zeroflow::eval
