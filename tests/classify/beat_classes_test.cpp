// The class rule on synthetic beats whose truth is known: a dominant shape in a steady rhythm,
// wide early beats followed by a pause (V), normal-shaped early beats (S), and a stretch of
// irregular beats without P waves (AF).
#include "zeroflow/classify/beat_classes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <set>
#include <span>
#include <vector>

#include "synthetic_rows.hpp"
#include "zeroflow/classify/f_wave.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zc = zeroflow::classify;
namespace zf = zeroflow;

namespace {

using namespace zeroflow::classify::synthetic;

/// What the atria put before a beat's QRS: a P wave, nothing (a ventricular beat in sinus
/// rhythm), or fibrillatory waves.
enum class atria { sinus, silent, fibrillating };

/// One beat's row: the atria's part, a QRS of the given width (s) and height, a T wave.
std::vector<float> beat_row(double qrs_sigma, atria before_qrs, std::mt19937& rng, double qrs_height = 4.0) {
  std::normal_distribution<double> noise(0.0, 0.02), fibrillation(0.0, 0.15);
  std::vector<float> row(width, 0.0F);
  for (std::int64_t j = 0; j < before + after; ++j) {
    const double t = static_cast<double>(j - before) / rate;  // seconds from the R peak
    double v = qrs_height * bump(t, 0.0, qrs_sigma) + 0.6 * bump(t, 0.28, 0.05) + noise(rng);
    if (before_qrs == atria::sinus) v += 0.5 * bump(t, -0.16, 0.025);
    if (before_qrs == atria::fibrillating && t < -0.06) v += fibrillation(rng);
    row[static_cast<std::size_t>(j)] = static_cast<float>(v);
  }
  return row;
}

struct recording {
  std::vector<std::int64_t> peaks;
  std::vector<float> rows;
  std::vector<char> truth;
  std::vector<std::uint8_t> af;
  double seconds = 1.0;  ///< when the last beat came

  /// Appends a beat `rr` seconds after the last one.
  void add(double rr, char kind, const std::vector<float>& row, bool inside_af = false) {
    seconds += rr;
    peaks.push_back(static_cast<std::int64_t>(std::llround(seconds * rate)));
    rows.insert(rows.end(), row.begin(), row.end());
    truth.push_back(kind);
    af.push_back(inside_af ? 1 : 0);
  }
};

recording make_recording() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> jitter(-0.01, 0.01), af_rr(0.40, 1.00);
  recording r;
  auto add = [&](double rr, char truth, double qrs_sigma, bool p_wave, bool af) {
    r.add(rr, truth, beat_row(qrs_sigma, p_wave ? atria::sinus : atria::fibrillating, rng), af);
  };
  for (int b = 0; b < 400; ++b) {
    if (b % 25 == 10) {  // V: wide, early, then a compensatory pause
      add(0.50, 'V', 0.045, false, false);
      add(1.10, 'N', 0.012, true, false);
    } else if (b % 25 == 20) {  // S: dominant shape, early, a shorter pause after it
      add(0.55, 'S', 0.012, true, false);
      add(0.95, 'N', 0.012, true, false);
    } else {
      add(0.80 * (1 + jitter(rng)), 'N', 0.012, true, false);
    }
  }
  for (int b = 0; b < 200; ++b) add(af_rr(rng), 'N', 0.012, false, true);  // AF: irregular, no P wave
  for (int b = 0; b < 100; ++b) add(0.80 * (1 + jitter(rng)), 'N', 0.012, true, false);
  return r;
}

/// Sinus rhythm, then AF in which every eighth beat is ventricular (wide and inverted) and every
/// eighth beat, four later, is aberrantly conducted (a little wider, the same direction), then sinus.
recording make_af_recording() {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> jitter(-0.01, 0.01), af_rr(0.40, 1.00);
  recording r;
  for (int b = 0; b < 200; ++b) r.add(0.80 * (1 + jitter(rng)), 'N', beat_row(0.012, atria::sinus, rng), false);
  for (int b = 0; b < 400; ++b) {
    if (b % 8 == 3)
      r.add(af_rr(rng), 'V', beat_row(0.03, atria::fibrillating, rng, -4.0), true);
    else if (b % 8 == 7)
      r.add(af_rr(rng), 'A', beat_row(0.022, atria::fibrillating, rng), true);  // aberrant: supraventricular
    else
      r.add(af_rr(rng), 'N', beat_row(0.012, atria::fibrillating, rng), true);
  }
  for (int b = 0; b < 200; ++b) r.add(0.80 * (1 + jitter(rng)), 'N', beat_row(0.012, atria::sinus, rng), false);
  return r;
}

/// Sinus rhythm with wide, early V beats of a quarter of the normal QRS height, and in the middle
/// 40 beats of a lead coming loose: 4 % of their size (noise as before) with every other beat lost
/// (intervals of 1.6 s), so that their timing, a pause after each, is a V beat's.
recording make_lead_off_recording() {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> jitter(-0.01, 0.01);
  recording r;
  auto normal = [&] { return beat_row(0.012, atria::sinus, rng); };
  for (int b = 0; b < 600; ++b) {
    if (b >= 300 && b < 340) {
      auto row = normal();
      for (auto& v : row) v *= 0.04F;
      std::normal_distribution<double> noise(0.0, 0.02);
      for (auto& v : row) v += static_cast<float>(noise(rng));
      r.add(1.6, 'Q', row);
    } else if (b % 20 == 10) {
      r.add(0.50, 'V', beat_row(0.045, atria::silent, rng, 1.0));
      r.add(1.10, 'N', normal());
    } else {
      r.add(0.80 * (1 + jitter(rng)), 'N', normal());
    }
  }
  return r;
}

}  // namespace

TEST(BeatClasses, BeatsOfALooseLeadAreUnclassifiable) {
  // Where a lead comes loose the beats shrink to a few percent of their size: their shape is the
  // noise's, and the beats lost around them give them a V beat's timing. They are Q; V beats a
  // quarter of the normal height (and clear of the noise: no atrial activity before them) are
  // still V.
  const auto r = make_lead_off_recording();
  const zc::beat_rows rows{r.rows, width, before, after};
  const auto c = zc::classify_beats(r.peaks, rows, rate);
  std::int64_t tiny = 0, tiny_q = 0, v_total = 0, v_found = 0;
  for (std::size_t b = 0; b < r.truth.size(); ++b) {
    if (r.truth[b] == 'Q') ++tiny, tiny_q += c.classes[b] == 'Q';
    if (r.truth[b] == 'V') ++v_total, v_found += c.classes[b] == 'V';
  }
  EXPECT_EQ(tiny_q, tiny);
  EXPECT_GE(v_total, 25);
  EXPECT_EQ(v_found, v_total);
  // Without the size rule the loose lead's beats were V.
  zc::class_params any_size;
  any_size.shape.smallest_qrs_fraction = 0;
  const auto old = zc::classify_beats(r.peaks, rows, rate, any_size);
  std::int64_t tiny_v = 0;
  for (std::size_t b = 0; b < r.truth.size(); ++b) tiny_v += r.truth[b] == 'Q' && old.classes[b] == 'V';
  EXPECT_GE(tiny_v, tiny / 4);
  if (!zf::cuda_available()) return;
  zf::array host_rows = zf::empty({static_cast<std::int64_t>(r.peaks.size()), width}, zf::float32, zf::cpu_device);
  std::copy(r.rows.begin(), r.rows.end(), host_rows.data_as<float>());
  const auto gpu = zc::classify_beats(r.peaks, zf::copy_to(host_rows, zf::cuda_device(0)), before, after, rate, {});
  EXPECT_EQ(gpu.classes, c.classes);
}

TEST(BeatClasses, TheTimingOfAQrsNoClearerThanNoiseSaysNothing) {
  // Electrode motion spoils a beat's shape and moves its detected R peak: an N beat buried in
  // noise then looks unlike and early. Such a QRS is no clearer than noise (clarity under
  // quality.min_clarity), so its timing is the noise's: no ventricular timing, no vote for its
  // family (the spoilt beats are alike enough to form one). Clear V beats stay V.
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> jitter(-0.01, 0.01);
  std::normal_distribution<double> burst(0.0, 2.5);
  recording r;
  for (int b = 0; b < 600; ++b) {
    if (b % 20 == 10) {  // a V beat: wide, early, a compensatory pause
      r.add(0.50, 'V', beat_row(0.045, atria::silent, rng));
      r.add(1.10, 'N', beat_row(0.012, atria::sinus, rng));
    } else if (b % 20 == 15) {  // an N beat in a burst of noise, its peak found 12 % early
      auto row = beat_row(0.012, atria::sinus, rng);
      for (auto& v : row) v += static_cast<float>(burst(rng));
      r.add(0.80 * 0.88, 'n', row);
      r.add(0.80 * 1.12, 'N', beat_row(0.012, atria::sinus, rng));
    } else {
      r.add(0.80 * (1 + jitter(rng)), 'N', beat_row(0.012, atria::sinus, rng));
    }
  }
  const zc::beat_rows rows{r.rows, width, before, after};
  zc::class_params params;
  const auto c = zc::classify_beats(r.peaks, rows, rate, params);
  std::int64_t unclear = 0, unclear_v = 0, v_total = 0, v_found = 0;
  std::vector<std::size_t> unclear_beats;
  for (std::size_t b = 0; b < r.truth.size(); ++b) {
    if (r.truth[b] == 'n' && c.clarity[b] < params.quality.min_clarity) {
      unclear_beats.push_back(b);
      ++unclear;
      unclear_v += c.classes[b] == 'V';
    }
    if (r.truth[b] == 'V') ++v_total, v_found += c.classes[b] == 'V';
  }
  ASSERT_GE(unclear, 20);  // most of the 30 spoilt beats: the noise is what the test is about
  EXPECT_EQ(unclear_v, 0);
  EXPECT_GE(v_total, 25);
  EXPECT_EQ(v_found, v_total);
  // With the bound at 0 every timing counts, and those beats were V.
  zc::class_params every_timing;
  every_timing.quality.min_clarity = 0;
  const auto before_rule = zc::classify_beats(r.peaks, rows, rate, every_timing);
  std::int64_t were_v = 0;
  for (const auto b : unclear_beats) were_v += before_rule.classes[b] == 'V';
  EXPECT_GE(were_v, unclear / 2);
}

TEST(BeatClasses, AFamilyVotesOnlyWithEnoughMembersWhoseTimingCounts) {
  // A wide ventricular shape recurs 30 times: 20 times early with a pause, 10 times on time. The
  // family's vote (20 of its 30 clear members of ventricular timing) makes the ten on-time beats
  // V; with shape.family_min_voters above 30 the family does not vote, and only the beats
  // ventricular by their own timing are V.
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> jitter(-0.01, 0.01);
  recording r;
  for (int b = 0; b < 600; ++b) {
    if (b % 20 == 10 && b % 60 != 10) {  // early, then a compensatory pause
      r.add(0.50, 'V', beat_row(0.045, atria::silent, rng));
      r.add(1.10, 'N', beat_row(0.012, atria::sinus, rng));
    } else if (b % 60 == 10) {  // the same shape on time
      r.add(0.80, 'v', beat_row(0.045, atria::silent, rng));
    } else {
      r.add(0.80 * (1 + jitter(rng)), 'N', beat_row(0.012, atria::sinus, rng));
    }
  }
  const zc::beat_rows rows{r.rows, width, before, after};
  const auto count = [&](const zc::classification& c, char truth) {
    std::int64_t total = 0, v = 0;
    for (std::size_t b = 0; b < r.truth.size(); ++b)
      if (r.truth[b] == truth) ++total, v += c.classes[b] == 'V';
    return std::pair{total, v};
  };
  zc::class_params params;
  const auto voted = zc::classify_beats(r.peaks, rows, rate, params);
  ASSERT_EQ(count(voted, 'V').first, 20);
  ASSERT_EQ(count(voted, 'v').first, 10);
  EXPECT_EQ(count(voted, 'V').second, 20);
  EXPECT_EQ(count(voted, 'v').second, 10);
  params.shape.family_min_voters = 31;
  const auto unvoted = zc::classify_beats(r.peaks, rows, rate, params);
  EXPECT_EQ(count(unvoted, 'V').second, 20);
  EXPECT_EQ(count(unvoted, 'v').second, 0);
}

TEST(BeatClasses, InsideAfShapeDecidesWhatTimingCannot) {
  // Inside AF every interval is irregular, so timing cannot tell a ventricular beat from an
  // aberrantly conducted one; a QRS far from the dominant one is V, one only a little different
  // is not (it was V once, whatever its shape: 203's aberrant beats were false VEBs).
  const auto r = make_af_recording();
  const auto c = zc::classify_beats(r.peaks, {r.rows, width, before, after}, rate);
  std::int64_t v_total = 0, v_found = 0, aberrant_total = 0, aberrant_v = 0, aberrant_unlike = 0, af_beats = 0;
  for (std::size_t b = 0; b < r.truth.size(); ++b) {
    if (!r.af[b]) continue;
    af_beats += c.in_af[b];
    // Before the episode is detected (its first beats) the rule sees a regular rhythm's beats.
    if (r.truth[b] == 'V' && c.in_af[b]) ++v_total, v_found += c.classes[b] == 'V';
    if (r.truth[b] == 'A') {
      ++aberrant_total;
      aberrant_v += c.in_af[b] && c.classes[b] == 'V';
      aberrant_unlike += c.similarity[b] < c.dominant_bound;
    }
  }
  EXPECT_GE(af_beats, 360);  // the episode is found
  EXPECT_GE(v_total, 40);
  EXPECT_EQ(v_found, v_total);
  EXPECT_EQ(aberrant_v, 0);
  EXPECT_GE(aberrant_unlike, aberrant_total / 2);  // they are unlike the dominant shape: the rule decides them
}

TEST(BeatClasses, AStripOfAfIsNotCutByItsOwnTimings) {
  // A strip of 45 beats (about half a minute) that is AF throughout, a third of its beats aberrantly conducted (a
  // little wider, the same direction: one family of unlike beats). In AF most beats are early or followed by a pause,
  // the dominant ones as often as the aberrant ones, so that timing says nothing about the family: were it voted V, a
  // third of the beats and the steps around them would be left out of the AF test, and the strip too short to judge.
  // The strip is AF and no aberrant beat is V.
  std::mt19937 rng(2);  // its aberrant family: 8 of 15 timings ectopic, the dominant beats' 22 of 30
  std::uniform_real_distribution<double> af_rr(0.35, 1.15);
  recording r;
  for (int b = 0; b < 45; ++b) {
    const bool aberrant = b % 3 == 1;
    r.add(af_rr(rng), aberrant ? 'A' : 'N', beat_row(aberrant ? 0.022 : 0.012, atria::fibrillating, rng), true);
  }
  const auto c = zc::classify_beats(r.peaks, {r.rows, width, before, after}, rate);
  std::int64_t aberrant = 0, aberrant_unlike = 0, aberrant_v = 0;
  for (std::size_t b = 0; b < r.truth.size(); ++b) {
    if (r.truth[b] != 'A') continue;
    ++aberrant;
    aberrant_unlike += c.similarity[b] < c.dominant_bound;
    aberrant_v += c.classes[b] == 'V';
  }
  EXPECT_GE(aberrant_unlike, aberrant / 2);  // they are unlike the dominant shape: the rule decides them
  EXPECT_EQ(aberrant_v, 0);
  ASSERT_EQ(c.episodes.size(), 1U);
  EXPECT_EQ(c.episodes[0].first_beat, 0);
  EXPECT_EQ(c.episodes[0].last_beat, 44);
}

TEST(BeatClasses, FindsVentricularAndSupraventricularBeatsAndAnAfEpisode) {
  const auto r = make_recording();
  const zc::beat_rows rows{r.rows, width, before, after};
  const auto c = zc::classify_beats(r.peaks, rows, rate);
  ASSERT_EQ(c.classes.size(), r.peaks.size());
  std::int64_t v_found = 0, v_total = 0, s_found = 0, s_total = 0, false_v = 0, false_s = 0, af_found = 0, af_total = 0,
               af_false = 0;
  for (std::size_t b = 0; b < r.truth.size(); ++b) {
    v_total += r.truth[b] == 'V', v_found += r.truth[b] == 'V' && c.classes[b] == 'V';
    s_total += r.truth[b] == 'S', s_found += r.truth[b] == 'S' && c.classes[b] == 'S';
    false_v += r.truth[b] != 'V' && c.classes[b] == 'V';
    // Just before the detected episode the irregular beats may still look early: S there is the
    // window's edge, not a mistake the rule makes in steady rhythm.
    false_s += r.truth[b] != 'S' && !r.af[b] && c.classes[b] == 'S';
    EXPECT_FALSE(c.in_af[b] && c.classes[b] == 'S') << b;  // no S inside AF
    af_total += r.af[b], af_found += r.af[b] && c.in_af[b], af_false += !r.af[b] && c.in_af[b];
  }
  EXPECT_EQ(v_found, v_total);
  EXPECT_EQ(s_found, s_total);
  EXPECT_EQ(false_v, 0);
  EXPECT_EQ(false_s, 0);
  EXPECT_GE(af_found, af_total * 9 / 10);
  EXPECT_LE(af_false, 40);  // the window reaches ±16 beats past the edges at most
  ASSERT_EQ(c.episodes.size(), 1U);
  EXPECT_EQ(c.episodes[0].rhythm, "AFIB");
  EXPECT_EQ(c.episodes[0].onset, r.peaks[static_cast<std::size_t>(c.episodes[0].first_beat)]);
  EXPECT_EQ(c.episodes[0].offset, r.peaks[static_cast<std::size_t>(c.episodes[0].last_beat)]);
  const auto counts = zc::class_counts(c.classes);
  EXPECT_EQ(counts[0] + counts[1] + counts[2] + counts[3], static_cast<std::int64_t>(r.peaks.size()));
}

TEST(BeatClasses, FamilyZeroIsTheDominantShapeAndTheVentricularBeatsShareOne) {
  const auto r = make_recording();
  const auto c = zc::classify_beats(r.peaks, {r.rows, width, before, after}, rate);
  ASSERT_EQ(c.family.size(), r.peaks.size());
  std::set<std::int32_t> v_families;
  for (std::size_t b = 0; b < r.peaks.size(); ++b) {
    EXPECT_EQ(c.family[b] == 0, c.similarity[b] >= c.dominant_bound) << b;
    if (r.truth[b] == 'V') v_families.insert(c.family[b]);
  }
  EXPECT_EQ(v_families.size(), 1U);  // one ectopic focus, one template
  EXPECT_NE(*v_families.begin(), 0);
}

TEST(BeatClasses, SimilarityIsOneForTheDominantShapeAndLowForAnother) {
  auto r = make_recording();
  const auto c = zc::classify_beats(r.peaks, {r.rows, width, before, after}, rate);
  for (std::size_t b = 0; b < 300; ++b) {
    if (r.truth[b] == 'V')
      EXPECT_LT(c.similarity[b], 0.85F) << b;
    else
      EXPECT_GT(c.similarity[b], 0.95F) << b;
  }
}

TEST(BeatClasses, ScoresFollowTheClassesThenTheEvidence) {
  const std::vector<float> evidence{0.0F, 3.0F, 0.5F, 40.0F, std::nanf(""), 1.0F};
  const std::vector<char> classes{'N', 'N', 'V', 'N', 'S', 'Q'};
  const auto s = zc::scores_following_classes(evidence, classes);
  ASSERT_EQ(s.size(), evidence.size());
  for (std::size_t b = 0; b < s.size(); ++b) {
    if (std::isnan(evidence[b])) {
      EXPECT_TRUE(std::isnan(s[b]));
      continue;
    }
    const double tier = classes[b] == 'N' ? 0.5 : classes[b] == 'Q' ? 1.0 : 1.5;
    EXPECT_NEAR(s[b], tier + std::atan(static_cast<double>(evidence[b])) / std::numbers::pi, 1e-6) << b;
  }
  EXPECT_GT(s[2], s[3]);  // a V with little evidence above an N with much
  EXPECT_GT(s[1], s[0]);  // within a class, the evidence orders
  EXPECT_GT(s[2], s[5]);  // an ectopic beat above a noisy one with more evidence
  EXPECT_GT(s[5], s[3]);  // and the noisy one above every N
  EXPECT_THROW((void)zc::scores_following_classes(evidence, std::vector<char>(2, 'N')), zeroflow::invalid_argument);
}

TEST(BeatClasses, RefusesInputThatDoesNotFit) {
  const auto r = make_recording();
  std::vector<std::int64_t> fewer(r.peaks.begin(), r.peaks.end() - 1);
  EXPECT_THROW((void)zc::classify_beats(fewer, {r.rows, width, before, after}, rate), zeroflow::invalid_argument);
  auto backwards = r.peaks;
  std::swap(backwards[3], backwards[4]);
  EXPECT_THROW((void)zc::classify_beats(backwards, {r.rows, width, before, after}, rate), zeroflow::invalid_argument);
  EXPECT_THROW((void)zc::classify_beats(r.peaks, {r.rows, width, 10, after}, rate), zeroflow::invalid_argument);
  EXPECT_THROW((void)zc::classify_beats(r.peaks, {r.rows, width, before, after}, 0.0), zeroflow::invalid_argument);
}

TEST(BeatClasses, TooFewBeatsAreNormal) {
  std::mt19937 rng(1);
  const auto row = beat_row(0.012, atria::sinus, rng);
  std::vector<float> rows(row);
  rows.insert(rows.end(), row.begin(), row.end());
  const std::vector<std::int64_t> peaks = {100, 300};
  const auto c = zc::classify_beats(peaks, {rows, width, before, after}, rate);
  EXPECT_EQ(c.classes, (std::vector<char>{'N', 'N'}));
  EXPECT_TRUE(c.episodes.empty());
}

// The rows on a GPU give the host's classes, similarities (QRS and P wave) and episodes (the kernels measure,
// the host decides); the array overload with host rows is the span overload.
TEST(BeatClasses, RowsOnTheGpuGiveTheHostsClasses) {
  const auto r = make_recording();
  const std::int64_t beats = static_cast<std::int64_t>(r.peaks.size());
  const zc::beat_rows view{r.rows, width, before, after};
  const auto host = zc::classify_beats(r.peaks, view, rate);

  zf::array rows = zf::empty({beats, width}, zf::float32, zf::cpu_device);
  std::copy(r.rows.begin(), r.rows.end(), rows.data_as<float>());
  const auto in_place = zc::classify_beats(r.peaks, rows, before, after, rate, {});
  EXPECT_EQ(in_place.classes, host.classes);
  EXPECT_EQ(in_place.similarity, host.similarity);

  if (!zf::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto device_rows = zf::copy_to(rows, zf::cuda_device(0));
  const auto gpu = zc::classify_beats(r.peaks, device_rows, before, after, rate, {});
  EXPECT_EQ(gpu.classes, host.classes);
  EXPECT_EQ(gpu.family, host.family);
  EXPECT_EQ(gpu.in_af, host.in_af);
  ASSERT_EQ(gpu.similarity.size(), host.similarity.size());
  for (std::size_t b = 0; b < host.similarity.size(); ++b)
    EXPECT_NEAR(gpu.similarity[b], host.similarity[b], 1e-5) << "beat " << b;
  ASSERT_EQ(gpu.p_similarity.size(), host.p_similarity.size());
  for (std::size_t b = 0; b < host.p_similarity.size(); ++b)
    EXPECT_NEAR(gpu.p_similarity[b], host.p_similarity[b], 1e-5) << "beat " << b;
  ASSERT_EQ(gpu.episodes.size(), host.episodes.size());
  for (std::size_t e = 0; e < host.episodes.size(); ++e) {
    EXPECT_EQ(gpu.episodes[e].onset, host.episodes[e].onset);
    EXPECT_EQ(gpu.episodes[e].offset, host.episodes[e].offset);
  }
  // One function computes clarity on both (clarity_row.hpp): the same bits.
  EXPECT_EQ(gpu.clarity, host.clarity);
  EXPECT_EQ(gpu.unreadable, host.unreadable);
}

TEST(BeatClasses, StretchesWithoutReadableEcgAreQAndReported) {
  // Beats 100-149 of a clean recording replaced by white noise (a burst of artefact, a lead off):
  // no QRS stands out of the signal around it there. Those beats are Q, the stretch is reported,
  // and no clean beat is touched.
  auto r = make_recording();
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (std::size_t b = 100; b < 150; ++b)
    for (std::int64_t j = 0; j < width; ++j)
      r.rows[b * width + static_cast<std::size_t>(j)] = j < before + after ? static_cast<float>(noise(rng)) : 0.0F;
  const zc::beat_rows view{r.rows, width, before, after};
  const auto c = zc::classify_beats(r.peaks, view, rate);
  // At the stretch's edges the median of ±4 beats holds five noise beats of nine: the largest of
  // the five decides, so an edge beat or two may stay readable (never a clean one unreadable).
  for (std::size_t b = 0; b < r.peaks.size(); ++b) {
    const bool in_noise = b >= 100 && b < 150, inner = b >= 102 && b < 148;
    if (!in_noise) EXPECT_EQ(c.unreadable[b], 0) << "beat " << b << " clarity " << c.clarity[b];
    if (!in_noise) EXPECT_GT(c.clarity[b], 30.0F) << "beat " << b;
    if (inner) EXPECT_EQ(c.unreadable[b], 1) << "beat " << b << " clarity " << c.clarity[b];
    if (c.unreadable[b]) EXPECT_EQ(c.classes[b], 'Q') << "beat " << b;
  }
  ASSERT_EQ(c.unreadable_stretches.size(), 1U);
  const auto& s = c.unreadable_stretches[0];
  EXPECT_GE(s.first_beat, 100);
  EXPECT_LE(s.first_beat, 102);
  EXPECT_GE(s.last_beat, 147);
  EXPECT_LE(s.last_beat, 149);
  EXPECT_EQ(s.onset, r.peaks[static_cast<std::size_t>(s.first_beat)]);
  EXPECT_EQ(s.rhythm, "noise");
  // The bound off, the noise beats are classed by shape and timing again (most of them V or Q).
  zc::class_params off;
  off.quality.min_clarity = 0;
  const auto without = zc::classify_beats(r.peaks, view, rate, off);
  EXPECT_TRUE(without.unreadable_stretches.empty());
  std::int64_t noise_v = 0;
  for (std::size_t b = 100; b < 150; ++b) noise_v += without.classes[b] == 'V';
  EXPECT_GT(noise_v, 0);
  // A recording that is noise throughout (a flat line with 10 uV of noise) is one unreadable stretch.
  std::normal_distribution<double> tiny(0.0, 0.01);
  std::vector<float> flat(r.rows.size());
  for (auto& v : flat) v = static_cast<float>(tiny(rng));
  const auto all = zc::classify_beats(r.peaks, zc::beat_rows{flat, width, before, after}, rate);
  ASSERT_EQ(all.unreadable_stretches.size(), 1U);
  EXPECT_EQ(all.unreadable_stretches[0].last_beat - all.unreadable_stretches[0].first_beat + 1,
            static_cast<std::int64_t>(r.peaks.size()));
  EXPECT_TRUE(all.episodes.empty());  // noise is no AF
  if (!zf::cuda_available()) return;
  zf::array host_rows = zf::empty({static_cast<std::int64_t>(r.peaks.size()), width}, zf::float32, zf::cpu_device);
  std::copy(r.rows.begin(), r.rows.end(), host_rows.data_as<float>());
  const auto gpu = zc::classify_beats(r.peaks, zf::copy_to(host_rows, zf::cuda_device(0)), before, after, rate, {});
  EXPECT_EQ(gpu.clarity, c.clarity);
  EXPECT_EQ(gpu.classes, c.classes);
}

TEST(BeatClasses, ALeadOffMakesTheBeatsBesideItUnreadableAndItsStretchReachesOverIt) {
  // A lead off between beats 60 and 61 (the recording one value there: no beat found in it), one
  // over beat 120 (a step onto the rail detected as a beat), and one to the recording's end.
  const auto r = make_recording();
  const zc::beat_rows view{r.rows, width, before, after};
  const std::int64_t n = static_cast<std::int64_t>(r.peaks.size());
  const std::vector<zc::sample_stretch> off = {
      {r.peaks[60] + 50, r.peaks[61] - 50},
      {r.peaks[119] + 40, r.peaks[121] - 40},
      {r.peaks[static_cast<std::size_t>(n - 1)] + 30, r.peaks[static_cast<std::size_t>(n - 1)] + 500}};
  const auto clean = zc::classify_beats(r.peaks, view, rate);
  const auto c = zc::classify_beats(r.peaks, view, rate, {}, {.no_signal = off});
  std::vector<std::uint8_t> expected(r.peaks.size(), 0);
  for (const std::int64_t b : {60, 61, 119, 120, 121, static_cast<int>(n - 1)})
    expected[static_cast<std::size_t>(b)] = 1;
  for (std::size_t b = 0; b < r.peaks.size(); ++b) {
    EXPECT_EQ(c.unreadable[b], expected[b] || clean.unreadable[b]) << "beat " << b;
    if (c.unreadable[b]) EXPECT_EQ(c.classes[b], 'Q') << "beat " << b;
  }
  ASSERT_EQ(c.unreadable_stretches.size(), clean.unreadable_stretches.size() + 3);
  for (const auto& gap : off) {
    const bool reached =
        std::any_of(c.unreadable_stretches.begin(), c.unreadable_stretches.end(),
                    [&](const zc::episode& u) { return u.onset <= gap.first && gap.last <= u.offset; });
    EXPECT_TRUE(reached) << gap.first << ".." << gap.last;
  }
}

TEST(BeatClasses, RowsOfTheWrongShapeAreRefused) {
  const auto r = make_recording();
  zf::array flat = zf::empty({static_cast<std::int64_t>(r.rows.size())}, zf::float32, zf::cpu_device);
  EXPECT_THROW((void)zc::classify_beats(r.peaks, flat, before, after, rate, {}), zf::invalid_argument);
}

TEST(BeatClasses, AStripWeighsTheFWavesOfItsLead) {
  // 45 irregular beats without P waves (a 30 s strip) and their lead: 5 Hz f waves between QRS
  // spikes. Given the lead, the rule measures each beat's f-wave rate in it (f_wave.hpp, from a
  // second before the first beat to a second after the last) wherever lead and rows are; a
  // recording longer than a strip, or one without its lead, has none.
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> af_rr(0.45, 1.0);
  recording r;
  for (int b = 0; b < 45; ++b) r.add(af_rr(rng), 'N', beat_row(0.012, atria::fibrillating, rng), true);
  const auto n = r.peaks.back() + static_cast<std::int64_t>(3 * rate);
  zf::array lead = zf::empty({n}, zf::float32, zf::cpu_device);
  float* x = lead.data_as<float>();
  for (std::int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(0.1 * std::sin(2 * std::numbers::pi * 5.0 * static_cast<double>(i) / rate));
  for (const auto p : r.peaks) x[p] += 3.0F;

  const zc::beat_rows view{r.rows, width, before, after};
  const auto with_lead =
      zc::classify_beats(r.peaks, view, rate, {}, {.no_signal = {}, .other_leads = {}, .signal = &lead});
  const auto second = static_cast<std::int64_t>(std::llround(rate));
  const std::int64_t first = r.peaks.front() - second, end = r.peaks.back() + second + 1;
  std::vector<std::int64_t> local(r.peaks.begin(), r.peaks.end());
  for (auto& p : local) p -= first;
  const auto want = zc::f_wave_rates(std::span<const float>(x + first, x + end), local, rate);
  ASSERT_EQ(with_lead.f_wave_rate.size(), want.size());
  std::size_t measured = 0;
  for (std::size_t b = 0; b < want.size(); ++b) {
    if (std::isnan(want[b])) {
      EXPECT_TRUE(std::isnan(with_lead.f_wave_rate[b])) << b;
      continue;
    }
    ++measured;
    EXPECT_EQ(with_lead.f_wave_rate[b], static_cast<float>(want[b])) << b;
  }
  EXPECT_GE(measured, 20U);
  const auto without = zc::classify_beats(r.peaks, view, rate, {}, {});
  EXPECT_TRUE(
      std::all_of(without.f_wave_rate.begin(), without.f_wave_rate.end(), [](float v) { return std::isnan(v); }));
  zc::class_params no_strips;
  no_strips.af.strip_max_seconds = 10;  // the same beats are no strip
  const auto longer =
      zc::classify_beats(r.peaks, view, rate, no_strips, {.no_signal = {}, .other_leads = {}, .signal = &lead});
  EXPECT_TRUE(std::all_of(longer.f_wave_rate.begin(), longer.f_wave_rate.end(), [](float v) { return std::isnan(v); }));
  const zf::array wrong = zf::empty({n}, zf::float64, zf::cpu_device);
  EXPECT_THROW(
      (void)zc::classify_beats(r.peaks, view, rate, no_strips, {.no_signal = {}, .other_leads = {}, .signal = &wrong}),
      zf::invalid_argument);

  if (!zf::cuda_available()) GTEST_SKIP() << "no CUDA device";
  zf::array host_rows = zf::empty({static_cast<std::int64_t>(r.peaks.size()), width}, zf::float32, zf::cpu_device);
  std::copy(r.rows.begin(), r.rows.end(), host_rows.data_as<float>());
  const zf::array device_lead = zf::copy_to(lead, zf::cuda_device(0));
  const auto gpu = zc::classify_beats(r.peaks, zf::copy_to(host_rows, zf::cuda_device(0)), before, after, rate, {}, {},
                                      {.no_signal = {}, .other_leads = {}, .signal = &device_lead});
  ASSERT_EQ(gpu.f_wave_rate.size(), with_lead.f_wave_rate.size());
  for (std::size_t b = 0; b < want.size(); ++b)
    EXPECT_TRUE(gpu.f_wave_rate[b] == with_lead.f_wave_rate[b] ||
                (std::isnan(gpu.f_wave_rate[b]) && std::isnan(with_lead.f_wave_rate[b])))
        << b;
  EXPECT_EQ(gpu.in_af, with_lead.in_af);
  EXPECT_EQ(gpu.classes, with_lead.classes);
}
