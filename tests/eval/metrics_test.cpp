#include "zeroflow/eval/metrics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <vector>

#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace ev = zeroflow::eval;

namespace {

using positions = std::vector<std::int64_t>;

/// Size of a maximum one-to-one matching by exhaustive search (small inputs only).
std::int64_t brute_force_matching(const positions& det, const positions& ref, std::int64_t tol) {
  std::vector<bool> used(ref.size(), false);
  std::function<std::int64_t(std::size_t)> best = [&](std::size_t i) -> std::int64_t {
    if (i == det.size()) return 0;
    std::int64_t result = best(i + 1);  // leave detection i unmatched
    for (std::size_t j = 0; j < ref.size(); ++j) {
      if (used[j] || std::llabs(det[i] - ref[j]) > tol) continue;
      used[j] = true;
      result = std::max(result, 1 + best(i + 1));
      used[j] = false;
    }
    return result;
  };
  return best(0);
}

/// AUROC by counting every (positive, negative) pair.
double brute_force_auroc(const std::vector<double>& s, const std::vector<std::uint8_t>& y) {
  double wins = 0, pairs = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = 0; j < s.size(); ++j)
      if (y[i] && !y[j]) {
        pairs += 1;
        wins += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
      }
  return wins / pairs;
}

/// Average precision straight from its definition: precision and recall recomputed from
/// scratch at every distinct score, highest first.
double direct_average_precision(const std::vector<double>& s, const std::vector<std::uint8_t>& y) {
  std::set<double, std::greater<>> thresholds(s.begin(), s.end());
  double positives = 0;
  for (auto v : y) positives += v != 0;
  double ap = 0, previous_recall = 0;
  for (double t : thresholds) {
    double tp = 0, fp = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (s[i] >= t) (y[i] ? tp : fp) += 1;
    const double recall = tp / positives;
    ap += (recall - previous_recall) * (tp / (tp + fp));
    previous_recall = recall;
  }
  return ap;
}

}  // namespace

TEST(EvalMatchPeaks, ToleranceIsInclusive) {
  const positions ref{100};
  for (std::int64_t d : {95, 105}) {
    const auto s = ev::match_peaks(positions{d}, ref, 5);
    EXPECT_EQ(s.true_positives, 1) << d;
    EXPECT_EQ(s.false_positives, 0);
    EXPECT_EQ(s.false_negatives, 0);
    EXPECT_EQ(s.sensitivity, 1.0);
    EXPECT_EQ(s.positive_predictivity, 1.0);
  }
  for (std::int64_t d : {94, 106}) {
    const auto s = ev::match_peaks(positions{d}, ref, 5);
    EXPECT_EQ(s.true_positives, 0) << d;
    EXPECT_EQ(s.false_positives, 1);
    EXPECT_EQ(s.false_negatives, 1);
    EXPECT_EQ(s.sensitivity, 0.0);
  }
  EXPECT_EQ(ev::match_peaks(positions{7}, positions{7}, 0).true_positives, 1);
  EXPECT_EQ(ev::match_peaks(positions{7}, positions{8}, 0).true_positives, 0);
}

TEST(EvalMatchPeaks, OneToOne) {
  // Two detections near one reference: one is a false positive.
  auto s = ev::match_peaks(positions{98, 101}, positions{100}, 5);
  EXPECT_EQ(s.true_positives, 1);
  EXPECT_EQ(s.false_positives, 1);
  EXPECT_EQ(s.false_negatives, 0);
  EXPECT_DOUBLE_EQ(s.positive_predictivity, 0.5);
  // One detection between two references: one is missed.
  s = ev::match_peaks(positions{100}, positions{97, 103}, 5);
  EXPECT_EQ(s.true_positives, 1);
  EXPECT_EQ(s.false_negatives, 1);
  EXPECT_DOUBLE_EQ(s.sensitivity, 0.5);
  // Duplicated detections.
  s = ev::match_peaks(positions{50, 50, 50}, positions{50, 51}, 1);
  EXPECT_EQ(s.true_positives, 2);
  EXPECT_EQ(s.false_positives, 1);
}

TEST(EvalMatchPeaks, FindsTheMaximumWhereNearestFirstWouldNot) {
  // Nearest-first pairs 6 with 10 and then cannot match 12; the maximum matching is
  // {6-0, 12-10}.
  const auto s = ev::match_peaks(positions{6, 12}, positions{0, 10}, 6);
  EXPECT_EQ(s.true_positives, 2);
  EXPECT_EQ(s.false_positives, 0);
  EXPECT_EQ(s.false_negatives, 0);
}

TEST(EvalMatchPeaks, EmptyListsGiveNaNRatios) {
  auto s = ev::match_peaks(positions{}, positions{1, 2}, 3);
  EXPECT_EQ(s.false_negatives, 2);
  EXPECT_EQ(s.sensitivity, 0.0);
  EXPECT_TRUE(std::isnan(s.positive_predictivity));
  s = ev::match_peaks(positions{1}, positions{}, 3);
  EXPECT_EQ(s.false_positives, 1);
  EXPECT_TRUE(std::isnan(s.sensitivity));
  EXPECT_EQ(s.positive_predictivity, 0.0);
}

TEST(EvalMatchPeaks, RejectsUnsortedInputAndNegativeTolerance) {
  EXPECT_THROW(ev::match_peaks(positions{3, 1}, positions{}, 1), zf::invalid_argument);
  EXPECT_THROW(ev::match_peaks(positions{1}, positions{5, 4}, 1), zf::invalid_argument);
  EXPECT_THROW(ev::match_peaks(positions{1}, positions{1}, -1), zf::invalid_argument);
}

TEST(EvalMatchPeaks, AgreesWithBruteForceOnRandomCases) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 3000; ++trial) {
    const auto draw = [&](std::size_t n) {
      positions p(n);
      for (auto& v : p) v = static_cast<std::int64_t>(rng() % 40);
      std::sort(p.begin(), p.end());
      return p;
    };
    const positions det = draw(rng() % 8), ref = draw(rng() % 8);
    const std::int64_t tol = static_cast<std::int64_t>(rng() % 7);
    const auto s = ev::match_peaks(det, ref, tol);
    const std::int64_t expected = brute_force_matching(det, ref, tol);
    ASSERT_EQ(s.true_positives, expected) << "trial " << trial;
    ASSERT_EQ(s.false_positives, std::int64_t(det.size()) - expected);
    ASSERT_EQ(s.false_negatives, std::int64_t(ref.size()) - expected);
    if (!ref.empty()) {
      ASSERT_DOUBLE_EQ(s.sensitivity, double(expected) / double(ref.size()));
    }
    if (!det.empty()) {
      ASSERT_DOUBLE_EQ(s.positive_predictivity, double(expected) / double(det.size()));
    }
  }
}

TEST(EvalRanking, ScikitLearnDocumentationExamples) {
  // sklearn's roc_auc_score and average_precision_score docstrings use these.
  const std::vector<double> s{0.1, 0.4, 0.35, 0.8};
  const std::vector<std::uint8_t> y{0, 0, 1, 1};
  EXPECT_DOUBLE_EQ(ev::auroc(s, y), 0.75);
  EXPECT_NEAR(ev::average_precision(s, y), 0.8333333333333333, 1e-15);
}

TEST(EvalRanking, PerfectReversedAndTiedRankings) {
  const std::vector<std::uint8_t> y{0, 1, 0, 1, 1};
  EXPECT_EQ(ev::auroc(std::vector<double>{0, 5, 1, 7, 6}, y), 1.0);
  EXPECT_EQ(ev::average_precision(std::vector<double>{0, 5, 1, 7, 6}, y), 1.0);
  EXPECT_EQ(ev::auroc(std::vector<double>{9, 1, 8, 2, 3}, y), 0.0);
  // Everything tied: AUROC one half, AP the positive fraction.
  EXPECT_EQ(ev::auroc(std::vector<double>(5, 2.0), y), 0.5);
  EXPECT_DOUBLE_EQ(ev::average_precision(std::vector<double>(5, 2.0), y), 0.6);
  // Infinite scores are ordinary extremes.
  const double inf = INFINITY;
  EXPECT_EQ(ev::auroc(std::vector<double>{-inf, inf, 0, inf, 3}, y), 1.0);
}

TEST(EvalRanking, AgreesWithBruteForceOnRandomScoresWithTies) {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = 2 + rng() % 150;
    const int levels = 1 + static_cast<int>(rng() % 12);  // few levels: many ties
    std::vector<double> s(n);
    std::vector<std::uint8_t> y(n);
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = static_cast<double>(rng() % static_cast<unsigned>(levels)) * 0.25 - 1.0;
      y[i] = static_cast<std::uint8_t>(rng() % 3 == 0 ? 1 + rng() % 200 : 0);  // any nonzero is positive
    }
    y[0] = 1, y[1] = 0;  // both classes present
    ASSERT_NEAR(ev::auroc(s, y), brute_force_auroc(s, y), 1e-12) << "trial " << trial;
    ASSERT_NEAR(ev::average_precision(s, y), direct_average_precision(s, y), 1e-12) << "trial " << trial;
    // Sorted once by the caller, the same two numbers.
    std::vector<ev::ranked_item> items;
    for (std::size_t i = 0; i < n; ++i) items.push_back({s[i], y[i] != 0});
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.score < b.score; });
    const auto [area, precision] = ev::ranking_of_sorted(items);
    ASSERT_NEAR(area, brute_force_auroc(s, y), 1e-12) << "trial " << trial;
    ASSERT_NEAR(precision, direct_average_precision(s, y), 1e-12) << "trial " << trial;
    // The float overloads see the same (exactly representable) scores.
    const std::vector<float> f(s.begin(), s.end());
    ASSERT_EQ(ev::auroc(f, y), ev::auroc(s, y));
    ASSERT_EQ(ev::average_precision(f, y), ev::average_precision(s, y));
  }
}

TEST(EvalRanking, RejectsBadInput) {
  const std::vector<double> s{1, 2, 3};
  EXPECT_THROW(ev::auroc(s, std::vector<std::uint8_t>{0, 1}), zf::invalid_argument);
  EXPECT_THROW(ev::average_precision(s, std::vector<std::uint8_t>{0, 1}), zf::invalid_argument);
  EXPECT_THROW(ev::auroc(s, std::vector<std::uint8_t>{1, 1, 1}), zf::invalid_argument);
  EXPECT_THROW(ev::auroc(s, std::vector<std::uint8_t>{0, 0, 0}), zf::invalid_argument);
  EXPECT_THROW(ev::average_precision(s, std::vector<std::uint8_t>{0, 0, 0}), zf::invalid_argument);
  EXPECT_THROW(ev::average_precision(s, std::vector<std::uint8_t>{1, 1, 1}), zf::invalid_argument);
  EXPECT_THROW(ev::auroc(std::vector<double>{}, std::vector<std::uint8_t>{}), zf::invalid_argument);
  EXPECT_THROW(ev::auroc(std::vector<double>{1, NAN}, std::vector<std::uint8_t>{0, 1}), zf::invalid_argument);
  EXPECT_THROW(ev::average_precision(std::vector<double>{1, NAN}, std::vector<std::uint8_t>{0, 1}),
               zf::invalid_argument);
  const std::vector<ev::ranked_item> unsorted{{2, true}, {1, false}}, one_class{{1, true}, {2, true}};
  EXPECT_THROW((void)ev::ranking_of_sorted(unsorted), zf::invalid_argument);
  EXPECT_THROW((void)ev::ranking_of_sorted(one_class), zf::invalid_argument);
}
