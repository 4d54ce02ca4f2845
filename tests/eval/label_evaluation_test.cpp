// A run against its labels file: the file read, the candidates' scores put on the detections,
// and the evaluation of small cases worked by hand.
#include "zeroflow/eval/label_evaluation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"

namespace ev = zeroflow::eval;

namespace {

const std::vector<std::string>& no_warnings() {
  static const std::vector<std::string> none;
  return none;
}

}  // namespace

TEST(LabelEvaluation, DetectionScoresLeaveTheFinalDetectionUnscored) {
  const std::vector<float> candidates{0.5F, std::nanf(""), 2.0F};
  const auto scores = ev::detection_scores(4, candidates);
  ASSERT_EQ(scores.size(), 4U);
  EXPECT_EQ(scores[0], 0.5);
  EXPECT_TRUE(std::isnan(scores[1]));
  EXPECT_EQ(scores[2], 2.0);
  EXPECT_TRUE(std::isnan(scores[3]));
  EXPECT_EQ(ev::detection_scores(1, candidates).size(), 1U);  // more candidates than detections: cut
  EXPECT_TRUE(ev::detection_scores(0, candidates).empty());
}

// Labels 100 N, 300 V, 500 N at 250 Hz (tolerance 0.150 s = 37 samples); detections 101, 299,
// 502 and 700 (no beat near). By hand: TP 3, FP 1, FN 0, so Se 1 and +P 3/4; V's beat carries the
// highest score, so V ranks first: AUROC 1, AP 1. No S beat: S is undefined.
TEST(LabelEvaluation, HandWorkedRunAgainstACsvLabelsFile) {
  const zeroflow::test::scratch_dir dir;
  const auto labels = dir.write("rec.labels.csv", "sample,label\n100,N\n300,V\n500,N\n");
  const std::vector<std::int64_t> peaks{101, 299, 502, 700};
  const std::vector<float> candidates{0.1F, 0.9F, 0.2F};
  std::vector<std::string> warnings;
  const auto q =
      ev::evaluate_labels_file(peaks, candidates, 250.0, labels, [&](const std::string& w) { warnings.push_back(w); });
  EXPECT_EQ(warnings, no_warnings());
  EXPECT_TRUE(q.not_evaluated.empty());
  EXPECT_EQ(q.labels, labels);
  const auto& r = q.result;
  EXPECT_EQ(r.tolerance_samples, 37);
  EXPECT_EQ(r.labelled_beats, 3);
  EXPECT_EQ(r.detections, 4);
  EXPECT_EQ(r.detection.true_positives, 3);
  EXPECT_EQ(r.detection.false_positives, 1);
  EXPECT_EQ(r.detection.false_negatives, 0);
  EXPECT_DOUBLE_EQ(r.detection.sensitivity, 1.0);
  EXPECT_DOUBLE_EQ(r.detection.positive_predictivity, 0.75);
  ASSERT_TRUE(r.ventricular.auroc.has_value());
  EXPECT_DOUBLE_EQ(*r.ventricular.auroc, 1.0);
  EXPECT_DOUBLE_EQ(*r.ventricular.average_precision, 1.0);
  EXPECT_FALSE(r.supraventricular.auroc.has_value());
  EXPECT_FALSE(r.supraventricular.undefined.empty());
}

// Labels 100 N, 300 N, 500 N, 700 V; the V beat is the final detection, which ends the last
// candidate and has no score of its own, so it ranks below every scored beat: AUROC 0, and it
// counts as an unscored positive. AP: the one positive comes fourth of four, 1/4.
TEST(LabelEvaluation, TheFinalDetectionRanksLowest) {
  const zeroflow::test::scratch_dir dir;
  const auto labels = dir.write("rec.labels.csv", "sample,label\n100,N\n300,N\n500,N\n700,V\n");
  const std::vector<std::int64_t> peaks{100, 300, 500, 700};
  const std::vector<float> candidates{0.1F, 0.2F, 0.3F};
  const auto q = ev::evaluate_labels_file(peaks, candidates, 250.0, labels, {});
  ASSERT_TRUE(q.not_evaluated.empty());
  EXPECT_EQ(q.result.scored_beats, 3);
  EXPECT_EQ(q.result.ventricular.unscored_positives, 1);
  ASSERT_TRUE(q.result.ventricular.auroc.has_value());
  EXPECT_DOUBLE_EQ(*q.result.ventricular.auroc, 0.0);
  EXPECT_DOUBLE_EQ(*q.result.ventricular.average_precision, 0.25);
}

TEST(LabelEvaluation, AnUnreadableLabelsFileIsAWarningNotAFailure) {
  const zeroflow::test::scratch_dir dir;
  const auto missing = dir.path() / "absent.labels.csv";
  const auto bad = dir.write("bad.labels.csv", "sample,label\nten,N\n");
  const std::vector<std::int64_t> peaks{100, 200};
  const std::vector<float> candidates{1.0F};
  for (const auto& file : {missing, bad}) {
    std::vector<std::string> warnings;
    const auto q =
        ev::evaluate_labels_file(peaks, candidates, 250.0, file, [&](const std::string& w) { warnings.push_back(w); });
    EXPECT_FALSE(q.not_evaluated.empty()) << file;
    ASSERT_EQ(warnings.size(), 1U) << file;
    EXPECT_NE(warnings[0].find(file.string()), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("not evaluated"), std::string::npos) << warnings[0];
    EXPECT_EQ(q.result.labelled_beats, 0);
  }
  // Without a warning callback the result is the same and nothing is called.
  EXPECT_FALSE(ev::evaluate_labels_file(peaks, candidates, 250.0, missing, {}).not_evaluated.empty());
}
