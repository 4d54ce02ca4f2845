// P-wave similarity (classification::p_similarity) against a direct re-computation of its
// definition, on beats whose P wave is the sinus one, inverted (junctional), early and other-shaped
// (atrial ectopic) or absent; and the atrial and shape parts of the evidence (atrial_evidence,
// shape_evidence) against the robust z-scores computed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "synthetic_rows.hpp"
#include "zeroflow/classify/beat_classes.hpp"
#include "zeroflow/core/error.hpp"

namespace zc = zeroflow::classify;

namespace {

using namespace zeroflow::classify::synthetic;

enum class p_kind { sinus, inverted, ectopic, none };

std::vector<float> beat_row(p_kind p, std::mt19937& rng) {
  std::normal_distribution<double> noise(0.0, 0.02);
  std::vector<float> row(width, 0.0F);
  for (std::int64_t j = 0; j < before + after; ++j) {
    const double t = static_cast<double>(j - before) / rate;
    double v = 4.0 * bump(t, 0.0, 0.012) + 0.6 * bump(t, 0.28, 0.05) + noise(rng) + 0.3 * t;  // a tilted baseline
    if (p == p_kind::sinus) v += 0.5 * bump(t, -0.16, 0.025);
    if (p == p_kind::inverted) v -= 0.4 * bump(t, -0.16, 0.025);
    if (p == p_kind::ectopic) v += 0.35 * bump(t, -0.21, 0.012) - 0.2 * bump(t, -0.15, 0.015);
    row[static_cast<std::size_t>(j)] = static_cast<float>(v);
  }
  return row;
}

/// The definition, computed directly: the P window −0.25 s (or the row's start) … −0.07 s, each segment
/// detrended (line through its ends) and centred; the dominant one is the per-sample median of
/// all rows' raw segments, detrended and centred; the Pearson correlation of the two.
std::vector<double> reference_p_similarity(const std::vector<float>& rows, std::int64_t beats) {
  const std::int64_t begin = std::max<std::int64_t>(0, before - std::lround(0.25 * rate));  // the row's start
  const std::int64_t length = before - std::lround(0.07 * rate) - begin;
  auto detrend = [&](std::vector<double> x) {
    const double first = x.front(), last = x.back();
    double mean = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] -= first + (last - first) * static_cast<double>(i) / static_cast<double>(x.size() - 1);
      mean += x[i];
    }
    for (double& v : x) v -= mean / static_cast<double>(x.size());
    return x;
  };
  std::vector<double> median(static_cast<std::size_t>(length));
  for (std::int64_t j = 0; j < length; ++j) {
    std::vector<double> column;
    for (std::int64_t b = 0; b < beats; ++b) column.push_back(rows[static_cast<std::size_t>(b * width + begin + j)]);
    std::sort(column.begin(), column.end());
    median[static_cast<std::size_t>(j)] = column[column.size() / 2];
  }
  const auto t = detrend(median);
  std::vector<double> out;
  for (std::int64_t b = 0; b < beats; ++b) {
    std::vector<double> x(rows.begin() + b * width + begin, rows.begin() + b * width + begin + length);
    x = detrend(x);
    double dot = 0, xx = 0, tt = 0;
    for (std::size_t i = 0; i < x.size(); ++i) dot += x[i] * t[i], xx += x[i] * x[i], tt += t[i] * t[i];
    out.push_back(dot / std::sqrt(xx * tt));
  }
  return out;
}

}  // namespace

TEST(PWaveSimilarity, FollowsItsDefinitionAndTellsSinusFromOtherPWaves) {
  std::mt19937 rng(3);
  std::vector<std::int64_t> peaks;
  std::vector<float> rows;
  std::vector<p_kind> kinds;
  for (int b = 0; b < 300; ++b) {
    const p_kind k = b % 20 == 5    ? p_kind::inverted
                     : b % 20 == 12 ? p_kind::ectopic
                     : b % 20 == 17 ? p_kind::none
                                    : p_kind::sinus;
    const auto row = beat_row(k, rng);
    rows.insert(rows.end(), row.begin(), row.end());
    peaks.push_back(100 + 200 * static_cast<std::int64_t>(b));
    kinds.push_back(k);
  }
  const auto c = zc::classify_beats(peaks, {rows, width, before, after}, rate);
  const auto want = reference_p_similarity(rows, static_cast<std::int64_t>(peaks.size()));
  ASSERT_EQ(c.p_similarity.size(), peaks.size());
  for (std::size_t b = 0; b < peaks.size(); ++b) {
    EXPECT_NEAR(c.p_similarity[b], want[b], 1e-5) << "beat " << b;
    if (kinds[b] == p_kind::sinus)
      EXPECT_GT(c.p_similarity[b], 0.9F) << "sinus beat " << b;
    else
      EXPECT_LT(c.p_similarity[b], 0.5F) << "beat " << b << " with another P wave";
  }
  // The atrial part of the evidence is there for every beat without the sinus P wave, and for no
  // sinus beat above noise; the rule's classes do not change (their timing is normal).
  const auto atrial = zc::atrial_evidence(c.p_similarity, c.in_af);
  for (std::size_t b = 0; b < peaks.size(); ++b) {
    if (kinds[b] == p_kind::sinus)
      EXPECT_LT(atrial[b], 3.0F) << "sinus beat " << b;
    else
      EXPECT_GT(atrial[b], 5.0F) << "beat " << b << " with another P wave";
  }
}

TEST(AtrialEvidence, IsTheRobustZScoreOfUnlikenessOutsideAf) {
  const std::vector<float> similarity{0.95F, 0.9F, 0.97F, 0.2F, 0.93F, -0.5F, 0.96F, 0.1F};
  const std::vector<std::uint8_t> in_af{0, 0, 0, 0, 0, 1, 0, 0};
  // Outside AF, 1 − similarity: 0.05 0.1 0.03 0.8 0.07 0.04 0.9 → median 0.07; |deviations|
  // 0.02 0.03 0.04 0.73 0 0.03 0.83 → median 0.03 → spread 1.4826 · 0.03 (over a floor of 0.01;
  // the default floor, 0.05, would hold it).
  const double centre = 0.07, spread = 1.4826 * 0.03;
  const auto atrial = zc::atrial_evidence(similarity, in_af, 0.01);
  EXPECT_NEAR(zc::atrial_evidence(similarity, in_af)[7], (0.9 - centre) / 0.05, 1e-4);
  ASSERT_EQ(atrial.size(), similarity.size());
  for (std::size_t b = 0; b < similarity.size(); ++b) {
    const double want = in_af[b] ? 0.0 : std::max(0.0, (1.0 - similarity[b] - centre) / spread);
    EXPECT_NEAR(atrial[b], want, 1e-4) << b;
  }
  // The floor holds the spread where every P wave is alike.
  const std::vector<float> alike(6, 0.99F), one_off{0.99F, 0.99F, 0.99F, 0.99F, 0.99F, 0.49F};
  const std::vector<std::uint8_t> none(6, 0);
  EXPECT_NEAR(zc::atrial_evidence(one_off, none)[5], 0.5 / 0.05, 1e-3);
  for (float v : zc::atrial_evidence(alike, none)) EXPECT_EQ(v, 0.0F);
  EXPECT_THROW((void)zc::atrial_evidence(similarity, none), zeroflow::invalid_argument);
  EXPECT_THROW((void)zc::atrial_evidence(alike, none, 0.0), zeroflow::invalid_argument);
}

TEST(ShapeEvidence, IsTheRobustZScoreOfUnlikenessOverEveryBeat) {
  const std::vector<float> similarity{0.99F, 0.98F, 0.995F, 0.6F, 0.97F, 0.985F, 0.2F};
  // 1 − similarity: 0.01 0.02 0.005 0.4 0.03 0.015 0.8 → median 0.02; |deviations| 0.01 0 0.015
  // 0.38 0.01 0.005 0.78 → median 0.01 → spread 1.4826 · 0.01, over the default floor of 0.005.
  const double centre = 0.02, spread = 1.4826 * 0.01;
  const auto shape = zc::shape_evidence(similarity);
  ASSERT_EQ(shape.size(), similarity.size());
  for (std::size_t b = 0; b < similarity.size(); ++b)
    EXPECT_NEAR(shape[b], std::max(0.0, (1.0 - similarity[b] - centre) / spread), 1e-3) << b;
  EXPECT_GT(shape[6], shape[3]);  // the less alike, the more evidence
  // The floor holds the spread where every QRS is alike; nothing more alike than most counts.
  const std::vector<float> alike(6, 0.99F), one_off{0.99F, 0.99F, 0.99F, 0.99F, 0.99F, 0.94F};
  EXPECT_NEAR(zc::shape_evidence(one_off)[5], 0.05 / 0.005, 1e-2);
  for (float v : zc::shape_evidence(alike)) EXPECT_EQ(v, 0.0F);
  EXPECT_TRUE(zc::shape_evidence({}).empty());
  EXPECT_THROW((void)zc::shape_evidence(alike, 0.0), zeroflow::invalid_argument);
}

TEST(PWaveSimilarity, ALittleEarlyWithAnotherPWaveIsSupraventricular) {
  // Sinus rhythm at 0.8 s. Every tenth beat comes at 0.92 of it — too little to be S by timing
  // alone (premature: 0.87) — with an ectopic or inverted P wave: S. Every tenth beat, five later,
  // comes as early with the sinus P wave (sinus arrhythmia): N. So does a beat with another P wave
  // on time.
  std::mt19937 rng(5);
  std::vector<std::int64_t> peaks;
  std::vector<float> rows;
  std::vector<char> truth;
  double t = 1.0;
  for (int b = 0; b < 400; ++b) {
    const int phase = b % 10;
    const bool early = b > 20 && (phase == 3 || phase == 8);
    const p_kind kind = b > 20 && phase == 3   ? (b % 20 == 3 ? p_kind::ectopic : p_kind::inverted)
                        : b > 20 && phase == 6 ? p_kind::ectopic
                                               : p_kind::sinus;
    t += early ? 0.92 * 0.8 : 0.8;
    peaks.push_back(static_cast<std::int64_t>(std::llround(t * rate)));
    const auto row = beat_row(kind, rng);
    rows.insert(rows.end(), row.begin(), row.end());
    truth.push_back(early && kind != p_kind::sinus ? 'S' : 'N');
  }
  const auto c = zc::classify_beats(peaks, {rows, width, before, after}, rate);
  int supraventricular = 0;
  for (std::size_t b = 0; b < peaks.size(); ++b) {
    EXPECT_EQ(c.classes[b], truth[b]) << "beat " << b << ", prematurity " << c.prematurity[b] << ", P similarity "
                                      << c.p_similarity[b];
    supraventricular += truth[b] == 'S';
  }
  EXPECT_GE(supraventricular, 35);
  // Without the P wave the rule cannot tell them: by timing alone they are N.
  zc::class_params timing_only;
  timing_only.timing.p_unlike_max_similarity = -2;
  const auto without = zc::classify_beats(peaks, {rows, width, before, after}, rate, timing_only);
  for (std::size_t b = 0; b < peaks.size(); ++b) EXPECT_EQ(without.classes[b], 'N') << "beat " << b;
}

TEST(PWaveSimilarity, NotInAnIrregularStretch) {
  // Sinus rhythm at 0.8 s with 25 beats of an irregular rhythm without P waves in the middle: too
  // short for an AF episode (30 beats), yet no rhythm to measure prematurity against. Its beats at
  // 0.90 and 0.925 of the normal interval, whose P-wave segments are no sinus P wave, are not S:
  // outside AF the P-wave rule holds only where the rhythm is regular.
  std::mt19937 rng(9);
  std::vector<std::int64_t> peaks;
  std::vector<float> rows;
  std::vector<std::uint8_t> stretch;
  const double cycle[] = {0.90, 1.10, 0.925, 1.075};
  double t = 1.0;
  for (int b = 0; b < 300; ++b) {
    const bool irregular = b >= 150 && b < 175;
    t += irregular ? 0.8 * cycle[b % 4] : 0.8;
    peaks.push_back(static_cast<std::int64_t>(std::llround(t * rate)));
    const auto row = beat_row(irregular ? p_kind::none : p_kind::sinus, rng);
    rows.insert(rows.end(), row.begin(), row.end());
    stretch.push_back(irregular ? 1 : 0);
  }
  const auto c = zc::classify_beats(peaks, {rows, width, before, after}, rate);
  EXPECT_TRUE(c.episodes.empty());
  int unlike_and_early = 0;
  for (std::size_t b = 0; b < peaks.size(); ++b) {
    EXPECT_EQ(c.classes[b], 'N') << "beat " << b << ", prematurity " << c.prematurity[b] << ", P similarity "
                                 << c.p_similarity[b];
    unlike_and_early += stretch[b] && c.prematurity[b] < 0.95F && c.p_similarity[b] <= 0.0F;
  }
  EXPECT_GE(unlike_and_early, 3) << "the stretch no longer has beats the P-wave rule would take alone";
}
