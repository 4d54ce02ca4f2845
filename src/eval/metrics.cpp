#include "zeroflow/eval/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "ratio.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::eval {
namespace {

/// The items sorted by score, after checking the inputs.
template <class Score>
std::vector<ranked_item> sorted_items(const char* what, std::span<const Score> scores,
                                      std::span<const std::uint8_t> positive) {
  ZF_EXPECTS(scores.size() == positive.size(), what, ": ", scores.size(), " scores but ", positive.size(), " labels");
  std::vector<ranked_item> items(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const auto s = static_cast<double>(scores[i]);
    ZF_EXPECTS(!std::isnan(s), what, ": score ", i, " is NaN");
    items[i] = {s, positive[i] != 0};
  }
  std::sort(items.begin(), items.end(), [](const auto& x, const auto& y) { return x.score < y.score; });
  return items;
}

double auroc_of_sorted(std::span<const ranked_item> items, std::int64_t positives, std::int64_t negatives) {
  // Twice the Mann-Whitney U in integers: a positive beats every negative below its score and
  // half-beats each negative tied with it. Bounded by 2 * P * N <= n^2 / 2, exact in 64 bits.
  std::uint64_t twice_u = 0, negatives_below = 0;
  for (std::size_t i = 0; i < items.size();) {
    std::uint64_t p = 0, q = 0;
    std::size_t j = i;
    for (; j < items.size() && items[j].score == items[i].score; ++j) (items[j].positive ? p : q) += 1;
    twice_u += p * (2 * negatives_below + q);
    negatives_below += q;
    i = j;
  }
  return static_cast<double>(twice_u) / (2.0 * static_cast<double>(positives) * static_cast<double>(negatives));
}

double average_precision_of_sorted(std::span<const ranked_item> items, std::int64_t positives) {
  // Walk thresholds from the highest score down; a group of equal scores is one threshold.
  double ap = 0.0, previous_recall = 0.0;
  std::int64_t tp = 0, fp = 0;
  for (std::size_t end = items.size(); end > 0;) {
    std::size_t begin = end;
    while (begin > 0 && items[begin - 1].score == items[end - 1].score) {
      --begin;
      (items[begin].positive ? tp : fp) += 1;
    }
    const double recall = static_cast<double>(tp) / static_cast<double>(positives);
    const double precision = static_cast<double>(tp) / static_cast<double>(tp + fp);
    ap += (recall - previous_recall) * precision;
    previous_recall = recall;
    end = begin;
  }
  return ap;
}

/// The positives and negatives among the items, refusing a ranking without either.
std::pair<std::int64_t, std::int64_t> counted(const char* what, std::span<const ranked_item> items) {
  std::int64_t positives = 0;
  for (const auto& item : items) positives += item.positive ? 1 : 0;
  const auto negatives = static_cast<std::int64_t>(items.size()) - positives;
  ZF_EXPECTS(positives > 0 && negatives > 0, what, " needs positive and negative items, got ", positives,
             " positive and ", negatives, " negative");
  return {positives, negatives};
}

template <class Score>
double auroc_of(std::span<const Score> scores, std::span<const std::uint8_t> positive) {
  const auto items = sorted_items("auroc", scores, positive);
  const auto [positives, negatives] = counted("auroc", items);
  return auroc_of_sorted(items, positives, negatives);
}

template <class Score>
double average_precision_of(std::span<const Score> scores, std::span<const std::uint8_t> positive) {
  const auto items = sorted_items("average_precision", scores, positive);
  return average_precision_of_sorted(items, counted("average_precision", items).first);
}

}  // namespace

std::vector<std::int64_t> match_peak_pairs(std::span<const std::int64_t> detected,
                                           std::span<const std::int64_t> reference, std::int64_t tolerance_samples) {
  ZF_EXPECTS(tolerance_samples >= 0, "match_peaks: tolerance must be >= 0, got ", tolerance_samples);
  ZF_EXPECTS(std::is_sorted(detected.begin(), detected.end()), "match_peaks: detected positions must be sorted");
  ZF_EXPECTS(std::is_sorted(reference.begin(), reference.end()), "match_peaks: reference positions must be sorted");
  // Invariant: references before `next` are matched or too early for every later detection;
  // those from `next` on are all unmatched.
  std::vector<std::int64_t> match(reference.size(), -1);
  std::size_t next = 0;
  for (std::size_t i = 0; i < detected.size(); ++i) {
    const std::int64_t d = detected[i];
    while (next < reference.size() && reference[next] < d - tolerance_samples) ++next;
    if (next < reference.size() && reference[next] <= d + tolerance_samples)
      match[next++] = static_cast<std::int64_t>(i);
  }
  return match;
}

detection_stats match_peaks(std::span<const std::int64_t> detected, std::span<const std::int64_t> reference,
                            std::int64_t tolerance_samples) {
  const auto match = match_peak_pairs(detected, reference, tolerance_samples);
  const auto matched =
      static_cast<std::int64_t>(std::count_if(match.begin(), match.end(), [](std::int64_t m) { return m >= 0; }));
  detection_stats s;
  s.true_positives = matched;
  s.false_positives = static_cast<std::int64_t>(detected.size()) - matched;
  s.false_negatives = static_cast<std::int64_t>(reference.size()) - matched;
  s.sensitivity = detail::ratio(matched, static_cast<std::int64_t>(reference.size()));
  s.positive_predictivity = detail::ratio(matched, static_cast<std::int64_t>(detected.size()));
  return s;
}

std::pair<double, double> ranking_of_sorted(std::span<const ranked_item> ascending) {
  for (std::size_t i = 0; i < ascending.size(); ++i) {
    ZF_EXPECTS(!std::isnan(ascending[i].score), "ranking_of_sorted: score ", i, " is NaN");
    ZF_EXPECTS(i == 0 || ascending[i - 1].score <= ascending[i].score, "ranking_of_sorted: item ", i,
               " scores below the one before it; the items must be sorted by score");
  }
  const auto [positives, negatives] = counted("ranking_of_sorted", ascending);
  return {auroc_of_sorted(ascending, positives, negatives), average_precision_of_sorted(ascending, positives)};
}

double auroc(std::span<const double> scores, std::span<const std::uint8_t> positive) {
  return auroc_of(scores, positive);
}

double auroc(std::span<const float> scores, std::span<const std::uint8_t> positive) {
  return auroc_of(scores, positive);
}

double average_precision(std::span<const double> scores, std::span<const std::uint8_t> positive) {
  return average_precision_of(scores, positive);
}

double average_precision(std::span<const float> scores, std::span<const std::uint8_t> positive) {
  return average_precision_of(scores, positive);
}

}  // namespace zeroflow::eval
