// EC57's statistics on hand-made annotation sets whose counts are worked out by hand, with the
// rules that make them differ from plain ratios: a fusion or unclassifiable beat called V is no
// VEB false positive, beats before the start are not counted, and AF is a duration overlap.
#include "zeroflow/eval/ec57.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ev = zeroflow::eval;
namespace zio = zeroflow::io;

namespace {
zio::beat_labels beats(std::vector<std::int64_t> samples, std::string classes) {
  zio::beat_labels b;
  b.samples = std::move(samples);
  b.classes.assign(classes.begin(), classes.end());
  b.symbols.assign(b.classes.size(), "");
  return b;
}
}  // namespace

TEST(Ec57, CountsTheConfusionMatrixAsBxbDoes) {
  // reference:  N    V    S    F    N    Q    N(missed) V     (beat at 10 is before the start)
  const auto reference = beats({10, 100, 200, 300, 400, 500, 600, 700}, "NVSFNQNV");
  // test:       N    V    N    V    S    V              N      V (extra, no reference beat)
  const auto test = beats({12, 103, 198, 305, 401, 497, 703, 850}, "NVNVSVNV");
  const auto r = ev::compare_ec57(test, reference, 20, 50, 1000);
  EXPECT_EQ(r.matrix[2][2], 1);  // Vv
  EXPECT_EQ(r.matrix[1][0], 1);  // Sn
  EXPECT_EQ(r.matrix[3][2], 1);  // Fv
  EXPECT_EQ(r.matrix[0][1], 1);  // Ns
  EXPECT_EQ(r.matrix[4][2], 1);  // Qv
  EXPECT_EQ(r.matrix[0][5], 1);  // No: the N at 600
  EXPECT_EQ(r.matrix[2][0], 1);  // Vn: the V at 700
  EXPECT_EQ(r.matrix[5][2], 1);  // Ov: the test V at 850
  // QRS: 6 matched after the start, 1 missed, 1 extra.
  EXPECT_EQ(r.qrs_se.numerator, 6);
  EXPECT_EQ(r.qrs_se.denominator, 7);
  EXPECT_EQ(r.qrs_pp.denominator, 7);
  // VEB: TP 1; FN Vn = 1; FP Nv + Sv + Ov = 1 (Fv and Qv are not errors).
  EXPECT_EQ(r.veb_se.numerator, 1);
  EXPECT_EQ(r.veb_se.denominator, 2);
  EXPECT_EQ(r.veb_pp.denominator, 2);
  // SVEB: TP 0, FN Sn = 1, FP Ns = 1.
  EXPECT_EQ(r.sveb_se.denominator, 1);
  EXPECT_EQ(r.sveb_pp.denominator, 1);
  EXPECT_EQ(r.sveb_se.numerator, 0);
  // Nothing left out: the N at 10 is counted too.
  const auto all = ev::compare_ec57(test, reference, 20, 0, 1000);
  EXPECT_EQ(all.qrs_se.denominator, 8);
}

TEST(Ec57, LeavesTheReferencesVentricularFlutterOut) {
  // Reference: N beats at 100..400 and 800..900; flutter marked from 450 to 750 ([ and ]), with a
  // beat annotation inside it that bxb skips too.
  auto reference = beats({100, 200, 300, 400, 600, 800, 900}, "NNNNVNN");
  reference.ventricular_flutter = {{450, 750}};
  // Test: every reference beat outside, and four detections of flutter waves inside, called V.
  const auto test = beats({101, 201, 299, 400, 500, 560, 620, 700, 801, 899}, "NNNNVVVVNN");
  const auto r = ev::compare_ec57(test, reference, 20, 0, 1000);
  EXPECT_EQ(r.qrs_se.numerator, 6);
  EXPECT_EQ(r.qrs_se.denominator, 6);  // the reference V at 600 is not counted
  EXPECT_EQ(r.qrs_pp.denominator, 6);  // nor are the four test beats inside the flutter
  EXPECT_EQ(r.matrix[5][2], 0);        // Ov
  EXPECT_EQ(r.veb_pp.denominator, 0);
  EXPECT_EQ(r.flutter_excluded, 300);
  // Without the flutter marks, the same test beats are extra detections and V false positives.
  reference.ventricular_flutter.clear();
  const auto plain = ev::compare_ec57(test, reference, 20, 0, 1000);
  EXPECT_EQ(plain.matrix[5][2], 3);
  EXPECT_EQ(plain.matrix[2][2], 1);
}

TEST(Ec57, AfDurationIsTheOverlapAfterTheStart) {
  zio::beat_labels reference, test;
  reference.rhythm = {{0, "N"}, {100, "AFIB"}, {300, "N"}, {500, "AFL"}};          // AF 100-300, 500-end
  test.rhythm = {{0, "N"}, {150, "AFIB"}, {350, "N"}, {600, "AFIB"}, {700, "N"}};  // 150-350, 600-700
  const auto r = ev::compare_ec57(test, reference, 10, 120, 1000);
  EXPECT_EQ(r.af_reference, (300 - 120) + (1000 - 500));
  EXPECT_EQ(r.af_test, 200 + 100);
  EXPECT_EQ(r.af_overlap, (300 - 150) + 100);
  EXPECT_DOUBLE_EQ(r.af_se.value(), 250.0 / 680.0);
  EXPECT_TRUE(std::isnan(ev::compare_ec57(test, zio::beat_labels{}, 10, 0, 1000).af_se.value()));
}

TEST(Ec57, GrossStatisticsSumTheCounts) {
  const auto reference = beats({100, 200}, "VN");
  const auto one = ev::compare_ec57(beats({100, 200}, "VN"), reference, 5, 0, 300);
  const auto other = ev::compare_ec57(beats({100}, "N"), reference, 5, 0, 300);
  ev::ec57_result total;
  ev::add_counts(total, one);
  ev::add_counts(total, other);
  EXPECT_EQ(total.veb_se.numerator, 1);
  EXPECT_EQ(total.veb_se.denominator, 2);
  EXPECT_EQ(total.qrs_se.denominator, 4);
  EXPECT_EQ(total.qrs_se.numerator, 3);
}
