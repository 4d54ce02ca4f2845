// The AF rule on beat times alone (af_rhythm.hpp): irregular rhythms are found, ectopy in a
// regular rhythm is not AF, brief interruptions do not split an episode, short runs are dropped.
#include "zeroflow/classify/af_rhythm.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <utility>
#include <vector>

#include "synthetic_rows.hpp"
#include "zeroflow/core/error.hpp"

namespace zc = zeroflow::classify;

namespace {

constexpr double rate = 250;

std::vector<std::int64_t> peaks_of(const std::vector<double>& intervals) {
  return zc::synthetic::peaks_of(intervals, rate);
}

/// `beats` intervals of AF: independent, uniform in [0.45, 1.05] s (a ventricular response with no pattern).
void append_af(std::vector<double>& intervals, int beats, std::mt19937& rng) {
  std::uniform_real_distribution<double> rr(0.45, 1.05);
  for (int i = 0; i < beats; ++i) intervals.push_back(rr(rng));
}

/// `beats` intervals of sinus rhythm at 0.8 s with 2 % jitter.
void append_sinus(std::vector<double>& intervals, int beats, std::mt19937& rng) {
  std::normal_distribution<double> rr(0.8, 0.016);
  for (int i = 0; i < beats; ++i) intervals.push_back(rr(rng));
}

/// R peaks of stretches of sinus rhythm ('s') and AF ('a'), each so many intervals long, seeded.
std::vector<std::int64_t> rhythm(std::initializer_list<std::pair<char, int>> stretches, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<double> rr;
  for (const auto& [kind, beats] : stretches) {
    if (kind == 'a')
      append_af(rr, beats, rng);
    else
      append_sinus(rr, beats, rng);
  }
  return peaks_of(rr);
}

std::int64_t count(const std::vector<std::uint8_t>& marks) {
  std::int64_t n = 0;
  for (auto m : marks) n += m;
  return n;
}

}  // namespace

TEST(AfRhythm, FindsAnIrregularStretchBetweenRegularOnes) {
  const auto peaks = rhythm({{'s', 200}, {'a', 300}, {'s', 200}}, 11);
  const auto r = zc::find_af_episodes(peaks, rate);
  ASSERT_EQ(r.episodes.size(), 1U);
  const auto& e = r.episodes[0];
  // The window of ±16 beats blurs the edges by at most its half-width.
  EXPECT_NEAR(static_cast<double>(e.first_beat), 201, 16);
  EXPECT_NEAR(static_cast<double>(e.last_beat), 501, 16);
  EXPECT_EQ(e.rhythm, "AFIB");
  EXPECT_EQ(e.onset, peaks[static_cast<std::size_t>(e.first_beat)]);
  EXPECT_EQ(e.offset, peaks[static_cast<std::size_t>(e.last_beat)]);
  EXPECT_EQ(count(r.in_af), e.last_beat - e.first_beat + 1);
}

TEST(AfRhythm, EctopicBeatsInARegularRhythmAreNotAf) {
  // Sinus rhythm with a premature beat and its compensatory pause every third beat (trigeminy):
  // every window has a third of its steps irregular without the ectopic rule, and more with
  // sinus jitter, but the premature beats' intervals are left out.
  std::mt19937 rng(5);
  std::normal_distribution<double> jitter(0.0, 0.01);
  std::vector<double> rr;
  for (int i = 0; i < 200; ++i) {
    rr.push_back(0.8 + jitter(rng));
    rr.push_back(0.5 + jitter(rng));  // premature
    rr.push_back(1.1 + jitter(rng));  // its pause
  }
  const auto peaks = peaks_of(rr);
  const auto with_rule = zc::find_af_episodes(peaks, rate);
  EXPECT_TRUE(with_rule.episodes.empty());
  EXPECT_EQ(count(with_rule.irregular), 0);
  // Without the ectopic rule (ratios that no beat meets) the same rhythm reads as AF, once the
  // repetition of its pattern is not asked about either.
  zc::af_params off;
  off.ectopic_early_ratio = 1e-9;
  off.distinct_pair_share_min = 0;
  const auto without = zc::find_af_episodes(peaks, rate, {}, {}, off);
  EXPECT_FALSE(without.episodes.empty());
}

TEST(AfRhythm, BeatsLeftOutDoNotCount) {
  // The same trigeminy, its premature beats marked by the caller (as the class rule marks V beats)
  // and the timing and pattern rules off: still not AF.
  std::vector<double> rr;
  for (int i = 0; i < 200; ++i) rr.insert(rr.end(), {0.8, 0.5, 1.1});
  const auto peaks = peaks_of(rr);
  std::vector<std::uint8_t> left_out(peaks.size(), 0);
  for (std::size_t b = 2; b < peaks.size(); b += 3) left_out[b] = 1;  // the beat ending each 0.5 s interval
  zc::af_params off;
  off.ectopic_early_ratio = 1e-9;
  off.distinct_pair_share_min = 0;
  EXPECT_TRUE(zc::find_af_episodes(peaks, rate, left_out, {}, off).episodes.empty());
  EXPECT_FALSE(zc::find_af_episodes(peaks, rate, {}, {}, off).episodes.empty());
}

TEST(AfRhythm, ABriefRegularStretchDoesNotSplitAnEpisode) {
  const auto episodes_with_gap = [](int regular_beats, double bridge_seconds) {
    const auto peaks = rhythm({{'s', 100}, {'a', 200}, {'s', regular_beats}, {'a', 200}, {'s', 100}}, 7);
    zc::af_params p;
    p.bridge_gap_seconds = bridge_seconds;
    return zc::find_af_episodes(peaks, rate, {}, {}, p).episodes.size();
  };
  // 20 regular beats (16 s) leave regular windows between the two stretches; each stretch's edge
  // windows, half regular, are not irregular either, so the AF beats are about 25 s apart.
  EXPECT_EQ(episodes_with_gap(20, 0), 2U);
  EXPECT_EQ(episodes_with_gap(20, 30), 1U);
  EXPECT_EQ(episodes_with_gap(120, 30), 2U);  // 96 s of sinus rhythm: two episodes
}

TEST(AfRhythm, ShortRunsAreDropped) {
  const auto peaks = rhythm({{'s', 100}, {'a', 60}, {'s', 100}}, 13);
  const auto found = zc::find_af_episodes(peaks, rate);
  ASSERT_EQ(found.episodes.size(), 1U);
  zc::af_params longer;
  longer.min_episode_beats = found.episodes[0].last_beat - found.episodes[0].first_beat + 2;
  EXPECT_TRUE(zc::find_af_episodes(peaks, rate, {}, {}, longer).episodes.empty());
  EXPECT_EQ(count(zc::find_af_episodes(peaks, rate, {}, {}, longer).in_af), 0);
}

TEST(AfRhythm, TooFewBeatsOrAGoodRhythmGiveNothing) {
  EXPECT_TRUE(zc::find_af_episodes(std::vector<std::int64_t>{}, rate).in_af.empty());
  const std::vector<std::int64_t> two{10, 200};
  const auto r = zc::find_af_episodes(two, rate);
  EXPECT_EQ(r.in_af.size(), 2U);
  EXPECT_TRUE(r.episodes.empty());
  EXPECT_TRUE(zc::find_af_episodes(rhythm({{'s', 500}}, 2), rate).episodes.empty());
}

TEST(AfRhythm, RefusesBadInput) {
  const std::vector<std::int64_t> peaks{100, 300, 500, 700};
  const std::vector<std::int64_t> back{100, 300, 300, 700};
  EXPECT_THROW((void)zc::find_af_episodes(back, rate), zeroflow::invalid_argument);
  EXPECT_THROW((void)zc::find_af_episodes(peaks, 0), zeroflow::invalid_argument);
  const std::vector<std::uint8_t> three(3, 0);
  EXPECT_THROW((void)zc::find_af_episodes(peaks, rate, three), zeroflow::invalid_argument);
  const auto bad = [&](auto change) {
    zc::af_params p;
    change(p);
    EXPECT_THROW((void)zc::find_af_episodes(peaks, rate, {}, {}, p), zeroflow::invalid_argument);
  };
  bad([](zc::af_params& p) { p.irregular_share = 1; });
  bad([](zc::af_params& p) { p.ectopic_early_ratio = 1.2; });
  bad([](zc::af_params& p) { p.ectopic_pause_ratio = 0.9; });
  bad([](zc::af_params& p) { p.bridge_gap_seconds = -1; });
  bad([](zc::af_params& p) { p.window_beats = 3; });
  bad([](zc::af_params& p) { p.min_episode_beats = 0; });
  bad([](zc::af_params& p) { p.strip_max_seconds = -1; });
}

TEST(AfRhythm, AStripWithItsPWavesIsReadWholeByThePrior) {
  // A 20 s strip of AF: fewer beats than the shortest episode. Without P waves, as in AF.
  const auto strip = rhythm({{'a', 24}}, 17);
  const std::vector<double> incoherent(strip.size(), 0.05), unlike_p(strip.size(), 0.1);
  const auto r = zc::find_af_episodes(strip, rate, {}, {incoherent, unlike_p});
  ASSERT_EQ(r.episodes.size(), 1U);
  EXPECT_EQ(r.episodes[0].first_beat, 0);
  EXPECT_EQ(r.episodes[0].last_beat, static_cast<std::int64_t>(strip.size()) - 1);
  EXPECT_EQ(count(r.in_af), static_cast<std::int64_t>(strip.size()));
  // The same rhythm with every beat's P wave the dominant one's is not AF; nor is a regular strip.
  const std::vector<double> coherent(strip.size(), 0.9), sinus_p(strip.size(), 0.98);
  EXPECT_TRUE(zc::find_af_episodes(strip, rate, {}, {coherent, sinus_p}).episodes.empty());
  const auto regular = rhythm({{'s', 24}}, 17);
  EXPECT_TRUE(zc::find_af_episodes(regular, rate, {}, {incoherent, unlike_p}).episodes.empty());
  // With the prior off, the windows decide: the strip holds no episode of 30 beats, but its
  // whole measurable rhythm is AF.
  zc::af_params windows_only;
  windows_only.strip_max_seconds = 0;
  const auto windows = zc::find_af_episodes(strip, rate, {}, {incoherent, unlike_p}, windows_only);
  ASSERT_EQ(windows.episodes.size(), 1U);
  EXPECT_LT(windows.episodes[0].last_beat - windows.episodes[0].first_beat + 1, zc::af_params{}.min_episode_beats);
  // So do they from beat times alone, and in a recording longer than a strip, where the same
  // stretch of AF is a short run.
  EXPECT_EQ(zc::find_af_episodes(strip, rate).episodes.size(), 1U);
  EXPECT_TRUE(zc::find_af_episodes(rhythm({{'s', 60}, {'a', 12}, {'s', 60}}, 17), rate).episodes.empty());
}

TEST(AfRhythm, ARepeatingPatternOfIrregularStepsIsNotAf) {
  // Grouped beating: a cycle of 0.70, 0.80 and 1.10 s intervals (5 ms of jitter). Every step is
  // irregular (ln 0.8/0.7 = 0.13, ln 1.1/0.8 = 0.32, ln 0.7/1.1 = −0.45) and none is early enough
  // for ectopic timing, but the three pairs of steps repeat: regularly irregular, not AF.
  std::mt19937 rng(23);
  std::normal_distribution<double> jitter(0.0, 0.005);
  std::vector<double> rr;
  for (int i = 0; i < 300; ++i) rr.push_back(std::array{0.70, 0.80, 1.10}[i % 3] + jitter(rng));
  const auto grouped = peaks_of(rr);
  const auto r = zc::find_af_episodes(grouped, rate);
  EXPECT_TRUE(r.episodes.empty());
  EXPECT_GT(count(r.irregular), 290);  // irregular windows, every one, but none AF
  zc::af_params any_pattern;
  any_pattern.distinct_pair_share_min = 0;  // the share of irregular steps alone calls it AF
  EXPECT_EQ(zc::find_af_episodes(grouped, rate, {}, {}, any_pattern).episodes.size(), 1U);
  // AF's pairs scatter: the same length of AF is still found whole.
  const auto af = rhythm({{'a', 300}}, 29);
  const auto found = zc::find_af_episodes(af, rate);
  ASSERT_EQ(found.episodes.size(), 1U);
  EXPECT_GT(count(found.in_af), 290);
  zc::af_params bad;
  bad.distinct_pair_share_min = 1.5;
  EXPECT_THROW((void)zc::find_af_episodes(af, rate, {}, {}, bad), zeroflow::invalid_argument);
}

TEST(AfRhythm, ACoherentPWaveVetoesAnIrregularWindow) {
  const auto peaks = rhythm({{'s', 100}, {'a', 200}, {'s', 100}}, 19);
  const std::vector<double> absent(peaks.size(), 0.05), present(peaks.size(), 0.6),
      unmeasured(peaks.size(), std::nan(""));
  EXPECT_EQ(zc::find_af_episodes(peaks, rate, {}, {absent}).episodes.size(), 1U);
  EXPECT_EQ(zc::find_af_episodes(peaks, rate, {}, {unmeasured}).episodes.size(), 1U);  // the rhythm decides
  EXPECT_TRUE(zc::find_af_episodes(peaks, rate, {}, {present}).episodes.empty());
  zc::af_params lenient;
  lenient.p_wave_coherence_max = 0.7;
  EXPECT_EQ(zc::find_af_episodes(peaks, rate, {}, {present}, lenient).episodes.size(), 1U);
  const std::vector<double> short_coherence(3, 0.1);
  EXPECT_THROW((void)zc::find_af_episodes(peaks, rate, {}, {short_coherence}), zeroflow::invalid_argument);
}
