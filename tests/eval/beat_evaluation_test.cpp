#include "zeroflow/eval/beat_evaluation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace ev = zeroflow::eval;

namespace {

constexpr double unscored = std::numeric_limits<double>::quiet_NaN();

zf::io::beat_labels make_labels(std::vector<std::int64_t> samples, const std::string& classes) {
  zf::io::beat_labels l;
  l.samples = std::move(samples);
  for (char c : classes) {
    l.symbols.emplace_back(1, c);
    l.classes.push_back(c);
  }
  return l;
}

}  // namespace

// Six labelled beats, six detections (tolerance 10): 100 N, 200 V, 300 N, 400 S, 500 V, 600 N
// against 102 (0.9), 199 (0.8), 305 (0.1), 450 (5.0, no beat near), 497 (unscored), 700 (0.3,
// no beat near). Worked by hand: beats 400 and 600 have no match and 500's detection has no
// score, so those three rank lowest, tied.
TEST(BeatEvaluation, HandWorkedCase) {
  const std::vector<std::int64_t> peaks = {102, 199, 305, 450, 497, 700};
  const std::vector<double> scores = {0.9, 0.8, 0.1, 5.0, unscored, 0.3};
  const auto e = ev::evaluate_beats(peaks, scores, make_labels({100, 200, 300, 400, 500, 600}, "NVNSVN"), 10);
  EXPECT_EQ(e.labelled_beats, 6);
  EXPECT_EQ(e.detections, 6);
  EXPECT_EQ(e.detection.true_positives, 4);
  EXPECT_EQ(e.detection.false_positives, 2);
  EXPECT_EQ(e.detection.false_negatives, 2);
  EXPECT_DOUBLE_EQ(e.detection.sensitivity, 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(e.detection.positive_predictivity, 4.0 / 6.0);
  EXPECT_EQ(e.scored_beats, 3);
  EXPECT_EQ(e.matched_detection, (std::vector<std::int64_t>{0, 1, 2, -1, 4, -1}));

  // V: positives 0.8 and unscored; negatives 0.9, 0.1, two unscored. U = 3 + 2 * 0.5 of 8 pairs.
  // AP: at 0.8 recall 1/2 with precision 1/2; at the unscored tie recall 1 with precision 2/6.
  EXPECT_EQ(e.ventricular.positives, 2);
  EXPECT_EQ(e.ventricular.negatives, 4);
  EXPECT_EQ(e.ventricular.unscored_positives, 1);
  ASSERT_TRUE(e.ventricular.auroc && e.ventricular.average_precision);
  EXPECT_DOUBLE_EQ(*e.ventricular.auroc, 0.5);
  EXPECT_DOUBLE_EQ(*e.ventricular.average_precision, 0.5 * 0.5 + 0.5 * (2.0 / 6.0));
  EXPECT_TRUE(e.ventricular.undefined.empty());

  // S: its one beat (400) was never detected: it ties with the two other unscored beats only.
  EXPECT_EQ(e.supraventricular.positives, 1);
  EXPECT_EQ(e.supraventricular.unscored_positives, 1);
  EXPECT_DOUBLE_EQ(*e.supraventricular.auroc, (0.5 + 0.5) / 5.0);
  EXPECT_DOUBLE_EQ(*e.supraventricular.average_precision, 1.0 / 6.0);

  // Abnormal (S, V): positives 0.8 and two unscored; negatives 0.9, 0.1, one unscored.
  EXPECT_EQ(e.abnormal.positives, 3);
  EXPECT_EQ(e.abnormal.negatives, 3);
  EXPECT_EQ(e.abnormal.unscored_positives, 2);
  EXPECT_DOUBLE_EQ(*e.abnormal.auroc, (2.0 + 0.5 + 0.5) / 9.0);
  EXPECT_DOUBLE_EQ(*e.abnormal.average_precision, (1.0 / 3.0) * 0.5 + (2.0 / 3.0) * 0.5);

  // Against the N beats alone (0.9, 0.1, unscored): V's 0.8 beats two of three, its unscored beat
  // ties one; S's one unscored beat ties one. The S and V beats are no negatives of each other.
  EXPECT_EQ(e.ventricular_against_normal.positives, 2);
  EXPECT_EQ(e.ventricular_against_normal.negatives, 3);
  EXPECT_DOUBLE_EQ(*e.ventricular_against_normal.auroc, (2.0 + 0.5) / 6.0);
  EXPECT_EQ(e.supraventricular_against_normal.negatives, 3);
  EXPECT_DOUBLE_EQ(*e.supraventricular_against_normal.auroc, 0.5 / 3.0);
}

TEST(BeatEvaluation, WeightedAurocWeighsEachRecordByItsBeatsOfTheClass) {
  ev::weighted_auroc w;
  EXPECT_FALSE(w.value().has_value());
  ev::class_ranking a{"V"}, b{"V"}, undefined{"V"};
  a.positives = 30, a.auroc = 0.9;
  b.positives = 10, b.auroc = 0.5;
  undefined.positives = 0;
  for (const auto* r : {&a, &b, &undefined}) w.add(*r);
  EXPECT_EQ(w.positives, 40);
  EXPECT_DOUBLE_EQ(*w.value(), (30 * 0.9 + 10 * 0.5) / 40);
}

TEST(BeatEvaluation, ToleranceStaysWithinTheSecondsGiven) {
  EXPECT_EQ(ev::tolerance_samples(0.15, 250.0), 37);  // 37.5 samples: 38 would be 152 ms
  EXPECT_EQ(ev::tolerance_samples(0.15, 360.0), 54);  // exact, despite 0.15 not being so in binary
  EXPECT_EQ(ev::tolerance_samples(0.15, 1000.0), 150);
  EXPECT_EQ(ev::tolerance_samples(0.0, 360.0), 0);
  EXPECT_THROW((void)ev::tolerance_samples(-0.1, 360.0), zf::invalid_argument);
  EXPECT_THROW((void)ev::tolerance_samples(0.15, 0.0), zf::invalid_argument);
}

TEST(BeatEvaluation, PerfectRankingScoresOne) {
  const std::vector<std::int64_t> peaks = {10, 20, 30, 40};
  const std::vector<double> scores = {0.1, 3.0, 0.2, 2.0};
  const auto e = ev::evaluate_beats(peaks, scores, make_labels({10, 20, 30, 40}, "NVNF"), 0);
  EXPECT_DOUBLE_EQ(*e.ventricular.auroc, 1.0);
  EXPECT_DOUBLE_EQ(*e.ventricular.average_precision, 1.0);
  EXPECT_DOUBLE_EQ(*e.abnormal.auroc, 1.0);  // F counts as abnormal
  EXPECT_EQ(e.abnormal.positives, 2);
}

TEST(BeatEvaluation, AClassWithoutPositivesOrNegativesIsUndefinedNotZero) {
  const std::vector<std::int64_t> peaks = {10, 20};
  const std::vector<double> scores = {1.0, 2.0};
  const auto normal = ev::evaluate_beats(peaks, scores, make_labels({10, 20}, "NN"), 2);
  for (const auto* r : {&normal.ventricular, &normal.supraventricular, &normal.abnormal}) {
    EXPECT_FALSE(r->auroc.has_value()) << r->name;
    EXPECT_FALSE(r->average_precision.has_value()) << r->name;
    EXPECT_NE(r->undefined.find("no " + r->name + " beat"), std::string::npos) << r->undefined;
  }
  const auto all_v = ev::evaluate_beats(peaks, scores, make_labels({10, 20}, "VV"), 2);
  EXPECT_FALSE(all_v.ventricular.auroc.has_value());
  EXPECT_NE(all_v.ventricular.undefined.find("every labelled beat is V"), std::string::npos);
  EXPECT_FALSE(all_v.abnormal.auroc.has_value());
  EXPECT_FALSE(all_v.supraventricular.auroc.has_value());
}

TEST(BeatEvaluation, NothingOnEitherSideGivesNaNRatios) {
  const auto e = ev::evaluate_beats({}, {}, make_labels({}, ""), 5);
  EXPECT_EQ(e.labelled_beats, 0);
  EXPECT_TRUE(std::isnan(e.detection.sensitivity));
  EXPECT_TRUE(std::isnan(e.detection.positive_predictivity));
  EXPECT_FALSE(e.ventricular.auroc.has_value());
}

TEST(BeatEvaluation, RejectsMismatchedOrInfiniteScores) {
  const std::vector<std::int64_t> peaks = {10, 20};
  const auto labels = make_labels({10, 20}, "NV");
  const std::vector<double> one = {1.0};
  EXPECT_THROW((void)ev::evaluate_beats(peaks, one, labels, 1), zf::invalid_argument);
  const std::vector<double> inf = {1.0, std::numeric_limits<double>::infinity()};
  EXPECT_THROW((void)ev::evaluate_beats(peaks, inf, labels, 1), zf::invalid_argument);
  const std::vector<std::int64_t> unsorted = {20, 10};
  const std::vector<double> two = {1.0, 2.0};
  EXPECT_THROW((void)ev::evaluate_beats(unsorted, two, labels, 1), zf::invalid_argument);
}

// Random recordings against a re-computation written from the definition: every
// (positive, negative) pair of labelled beats compared, a beat without a scored match below
// every scored one, ties half.
TEST(BeatEvaluation, RandomCasesAgreeWithPairCounting) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 60);
    zf::io::beat_labels labels;
    std::vector<std::int64_t> peaks;
    std::vector<double> scores;
    std::int64_t at = 0;
    const std::string classes = "NNNNVVSFQ";
    for (int i = 0; i < n; ++i) {
      at += 20 + static_cast<std::int64_t>(rng() % 40);
      const char c = classes[rng() % classes.size()];
      labels.samples.push_back(at);
      labels.symbols.emplace_back(1, c);
      labels.classes.push_back(c);
      if (rng() % 6 == 0) continue;  // missed
      peaks.push_back(at + static_cast<std::int64_t>(rng() % 9) - 4);
      scores.push_back(rng() % 5 == 0 ? unscored : static_cast<double>(rng() % 8));  // ties on purpose
      if (rng() % 8 == 0) {                                                          // a false detection
        peaks.push_back(at + 15);
        scores.push_back(static_cast<double>(rng() % 8));
      }
    }
    const std::int64_t tolerance = 5;
    const auto e = ev::evaluate_beats(peaks, scores, labels, tolerance);

    // Pairs: one to one, within tolerance, as many as match_peaks counts.
    std::set<std::int64_t> used;
    std::vector<double> ranked(labels.samples.size(), -1.0);  // -1 is below every score drawn above
    for (std::size_t i = 0; i < labels.samples.size(); ++i) {
      const auto m = e.matched_detection[i];
      if (m < 0) continue;
      EXPECT_TRUE(used.insert(m).second);
      EXPECT_LE(std::llabs(peaks[static_cast<std::size_t>(m)] - labels.samples[i]), tolerance);
      if (!std::isnan(scores[static_cast<std::size_t>(m)])) ranked[i] = scores[static_cast<std::size_t>(m)];
    }
    EXPECT_EQ(static_cast<std::int64_t>(used.size()), ev::match_peaks(peaks, labels.samples, tolerance).true_positives);

    for (const auto* r : {&e.ventricular, &e.supraventricular, &e.abnormal}) {
      auto positive = [&](std::size_t i) {
        return r->name == "abnormal" ? labels.classes[i] != 'N' : labels.classes[i] == r->name.front();
      };
      double wins = 0, pairs = 0;
      std::int64_t unscored_count = 0;
      for (std::size_t i = 0; i < ranked.size(); ++i) {
        if (!positive(i)) continue;
        unscored_count += ranked[i] < 0;
        for (std::size_t j = 0; j < ranked.size(); ++j) {
          if (positive(j)) continue;
          pairs += 1;
          wins += ranked[i] > ranked[j] ? 1.0 : ranked[i] == ranked[j] ? 0.5 : 0.0;
        }
      }
      EXPECT_EQ(r->unscored_positives, unscored_count);
      if (pairs == 0) {
        EXPECT_FALSE(r->auroc.has_value());
      } else {
        ASSERT_TRUE(r->auroc.has_value());
        EXPECT_NEAR(*r->auroc, wins / pairs, 1e-12) << r->name << " trial " << trial;
      }
    }
  }
}
