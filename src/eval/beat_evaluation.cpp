#include "zeroflow/eval/beat_evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "ratio.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::eval {
namespace {

/// Fills `r` for the labelled beats whose class satisfies `is_positive`, ranked against those of
/// the others that satisfy `is_negative`. `order` lists the labelled beats by score, ascending:
/// every class is ranked from the one sort.
template <class Positive, class Negative>
void rank_class(class_ranking& r, const beat_evaluation& e, const io::beat_labels& labels,
                std::span<const std::size_t> order, Positive is_positive, Negative is_negative) {
  std::vector<ranked_item> items;
  items.reserve(order.size());
  for (const std::size_t i : order) {
    const bool p = is_positive(labels.classes[i]);
    if (!p && !is_negative(labels.classes[i])) continue;
    items.push_back({e.beat_scores[i], p});
    if (!p) continue;
    ++r.positives;
    if (e.matched_detection[i] < 0 || std::isinf(e.beat_scores[i])) ++r.unscored_positives;
  }
  r.negatives = static_cast<std::int64_t>(items.size()) - r.positives;
  // Undefined is said as such: a 0 or 0.5 here would read as a (bad) result.
  if (r.positives == 0) {
    r.undefined = "no " + r.name + " beat among the " + std::to_string(labels.classes.size()) + " labelled beats";
  } else if (r.negatives == 0) {
    r.undefined = "every labelled beat is " + r.name + ", none to rank it against";
  } else {
    const auto [area, precision] = ranking_of_sorted(items);
    r.auroc = area;
    r.average_precision = precision;
  }
}

}  // namespace

std::int64_t tolerance_samples(double seconds, double sample_rate) {
  ZF_EXPECTS(seconds >= 0 && std::isfinite(seconds), "the tolerance must be >= 0 seconds, got ", seconds);
  ZF_EXPECTS(sample_rate > 0 && std::isfinite(sample_rate), "the sample rate must be > 0, got ", sample_rate);
  // Past 2^53 samples the product is no longer a count (and past 2^63 not an int64 at all).
  ZF_EXPECTS(seconds * sample_rate <= 0x1.0p53, "a tolerance of ", seconds, " s at ", sample_rate,
             " Hz is more samples than any recording holds; is the sample rate right?");
  // The small allowance keeps products such as 0.15 * 360 = 53.999... at 54.
  return static_cast<std::int64_t>(std::floor(seconds * sample_rate + 1e-9));
}

beat_evaluation evaluate_beats(std::span<const std::int64_t> detected_peaks, std::span<const double> scores,
                               const io::beat_labels& labels, std::int64_t tolerance_samples) {
  ZF_EXPECTS(scores.size() == detected_peaks.size(), "evaluate_beats: ", detected_peaks.size(), " detections but ",
             scores.size(), " scores");
  ZF_EXPECTS(labels.classes.size() == labels.samples.size(), "evaluate_beats: ", labels.samples.size(),
             " labelled beats but ", labels.classes.size(), " classes");
  for (std::size_t i = 0; i < scores.size(); ++i)
    ZF_EXPECTS(!std::isinf(scores[i]), "evaluate_beats: score ", i,
               " is infinite; scores are finite, or NaN when a beat is not scored");
  beat_evaluation e;
  e.tolerance_samples = tolerance_samples;
  e.labelled_beats = static_cast<std::int64_t>(labels.samples.size());
  e.detections = static_cast<std::int64_t>(detected_peaks.size());
  e.matched_detection = match_peak_pairs(detected_peaks, labels.samples, tolerance_samples);

  // Every labelled beat takes part in the ranking; one without a scored detection gets -inf, so
  // it ranks below every scored beat and ties with the other unscored ones.
  constexpr double lowest = -std::numeric_limits<double>::infinity();
  e.beat_scores.assign(labels.samples.size(), lowest);
  std::int64_t matched = 0;
  for (std::size_t i = 0; i < labels.samples.size(); ++i) {
    const std::int64_t m = e.matched_detection[i];
    if (m < 0) continue;
    ++matched;
    const double s = scores[static_cast<std::size_t>(m)];
    if (std::isnan(s)) continue;
    e.beat_scores[i] = s;
    ++e.scored_beats;
  }
  e.detection.true_positives = matched;
  e.detection.false_positives = e.detections - matched;
  e.detection.false_negatives = e.labelled_beats - matched;
  e.detection.sensitivity = detail::ratio(matched, e.labelled_beats);
  e.detection.positive_predictivity = detail::ratio(matched, e.detections);

  std::vector<std::size_t> order(labels.samples.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return e.beat_scores[a] < e.beat_scores[b]; });
  const auto any = [](char) { return true; };
  const auto normal = [](char c) { return c == 'N'; };
  rank_class(
      e.ventricular, e, labels, order, [](char c) { return c == 'V'; }, any);
  rank_class(
      e.supraventricular, e, labels, order, [](char c) { return c == 'S'; }, any);
  rank_class(
      e.abnormal, e, labels, order, [](char c) { return c != 'N'; }, any);
  rank_class(
      e.ventricular_against_normal, e, labels, order, [](char c) { return c == 'V'; }, normal);
  rank_class(
      e.supraventricular_against_normal, e, labels, order, [](char c) { return c == 'S'; }, normal);
  return e;
}

}  // namespace zeroflow::eval
