#pragma once
/// @file metrics.hpp
/// Scores a pipeline against ground truth: beat detection (matching detected to reference
/// R peaks within a tolerance) and anomaly ranking (AUROC, average precision).
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace zeroflow::eval {

/// Outcome of matching detected beats to reference beats.
struct detection_stats {
  std::int64_t true_positives = 0;   ///< detections matched to a reference beat
  std::int64_t false_positives = 0;  ///< detections left unmatched
  std::int64_t false_negatives = 0;  ///< reference beats left unmatched
  /// TP / (TP + FN); NaN when there is no reference beat.
  double sensitivity = 0.0;
  /// TP / (TP + FP); NaN when there is no detection.
  double positive_predictivity = 0.0;
};

/**
 * @brief Matches detected to reference positions one to one, each pair at most
 *        `tolerance_samples` apart (inclusive), and counts the outcome.
 *
 * One merge pass over both sorted lists: each detection, in order, takes the earliest
 * reference not yet taken that lies within its tolerance window. Because every window has the
 * same width, the windows are ordered by both ends and this greedy choice yields a maximum
 * matching (an exchange argument; the tests compare with brute force), which "nearest first"
 * would not always do. match_peak_pairs gives the pairs themselves.
 *
 * @param detected detected positions (samples), non-decreasing.
 * @param reference reference positions (samples), non-decreasing.
 * @param tolerance_samples largest allowed |detected - reference| of a pair, >= 0.
 * @return the counts and the two ratios.
 * @throws zeroflow::invalid_argument when a list is not sorted or the tolerance is negative.
 */
detection_stats match_peaks(std::span<const std::int64_t> detected, std::span<const std::int64_t> reference,
                            std::int64_t tolerance_samples);

/**
 * @brief The pairs behind match_peaks: the same one-to-one matching, as the index of the
 *        detection each reference position was matched to.
 * @param detected detected positions (samples), non-decreasing.
 * @param reference reference positions (samples), non-decreasing.
 * @param tolerance_samples largest allowed |detected - reference| of a pair, >= 0.
 * @return one entry per reference position: the index into `detected` of its match, or -1.
 * @throws zeroflow::invalid_argument when a list is not sorted or the tolerance is negative.
 */
std::vector<std::int64_t> match_peak_pairs(std::span<const std::int64_t> detected,
                                           std::span<const std::int64_t> reference, std::int64_t tolerance_samples);

/// One item of a ranking: its score (higher = more likely positive) and whether it is positive.
struct ranked_item {
  double score = 0;
  bool positive = false;
};

/**
 * @brief auroc and average_precision of items already sorted by score, ascending: several
 *        classes ranked over the same scores need one sort, not one per metric and class.
 * @param ascending the items, sorted by score (NaN is rejected).
 * @return {AUROC, average precision}, as auroc and average_precision define them.
 * @throws zeroflow::invalid_argument when the items are not sorted, a score is NaN, or there is no
 *         positive or no negative item.
 */
std::pair<double, double> ranking_of_sorted(std::span<const ranked_item> ascending);

/**
 * @brief Area under the ROC curve of `scores` (higher = more likely positive): the probability
 *        that a random positive scores above a random negative, ties counted as half
 *        (Mann-Whitney U / (P * N)). Exact, O(n log n).
 * @param scores one score per item; NaN is rejected.
 * @param positive one flag per item, nonzero = positive.
 * @return the AUROC in [0, 1].
 * @throws zeroflow::invalid_argument when the sizes differ, a score is NaN, or there is no
 *         positive or no negative item.
 */
double auroc(std::span<const double> scores, std::span<const std::uint8_t> positive);

/// @copydoc auroc(std::span<const double>, std::span<const std::uint8_t>)
double auroc(std::span<const float> scores, std::span<const std::uint8_t> positive);

/**
 * @brief Average precision as scikit-learn defines it: sum over thresholds at the distinct
 *        scores, from the highest down, of (R_n - R_{n-1}) * P_n, with recall R_0 = 0. Tied
 *        scores enter together at one threshold; no interpolation.
 * @param scores one score per item (higher = more likely positive); NaN is rejected.
 * @param positive one flag per item, nonzero = positive.
 * @return the average precision in (0, 1].
 * @throws zeroflow::invalid_argument when the sizes differ, a score is NaN, or there is no
 *         positive or no negative item.
 */
double average_precision(std::span<const double> scores, std::span<const std::uint8_t> positive);

/// @copydoc average_precision(std::span<const double>, std::span<const std::uint8_t>)
double average_precision(std::span<const float> scores, std::span<const std::uint8_t> positive);

}  // namespace zeroflow::eval
