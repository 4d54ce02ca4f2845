// The detector's rhythm checks (qrs_off_rhythm and qrs_recentred in src/signal/qrs_rhythm.hpp,
// the rhythm paths in src/signal/qrs_paths.hpp): a beat in noise that splits an ordinary R–R interval of a
// regular rhythm goes, and one out of time between neighbours two intervals apart gives way to a
// candidate in time; an early beat followed by its pause, a steep beat, a clear beat and any beat
// of an irregular rhythm stay. The rhythm paths (qrs_follow_rhythm) re-decide whole noisy
// stretches between clear beats: to the reference R–R in a regular rhythm, within the range of
// the clear intervals in an irregular one. Each case is built by hand around a rhythm of one beat
// every 300 samples (or an irregular one), and selected with qrs_select_host or the rule itself.
#include "signal/qrs_rhythm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "signal/motion_noise.hpp"
#include "signal/qrs_paths.hpp"
#include "signal/qrs_rules.hpp"
#include "signal/qrs_select.hpp"
#include "signal/signal_test_helpers.hpp"
#include "zeroflow/signal/qrs_detect.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

/// Candidates as the rhythm checks see them: positions (ascending), energies, slopes and
/// backgrounds, every one clear of noise (energy 100, background 1) and equally steep, unless a
/// case changes one.
struct beats {
  std::vector<std::int64_t> position;
  std::vector<float> amplitude, slope, background;

  /// A candidate at `at`, in its place among the others.
  void add(std::int64_t at, float energy = 100, float steepness = 1, float around = 1) {
    const auto i = std::upper_bound(position.begin(), position.end(), at) - position.begin();
    position.insert(position.begin() + i, at);
    amplitude.insert(amplitude.begin() + i, energy);
    slope.insert(slope.begin() + i, steepness);
    background.insert(background.begin() + i, around);
  }
  /// Beats every `interval` samples from `from`, `count` of them.
  void regular(std::int64_t from, std::int64_t count, std::int64_t interval) {
    for (std::int64_t k = 0; k < count; ++k) add(from + k * interval);
  }
  [[nodiscard]] std::int64_t index_of(std::int64_t at) const {
    return std::find(position.begin(), position.end(), at) - position.begin();
  }
  [[nodiscard]] sig::detail::qrs_candidate_view view() const {
    return {position.data(), amplitude.data(), slope.data(), background.data(),
            static_cast<std::int64_t>(position.size())};
  }
};

sig::detail::qrs_rules rules_with_reach(std::int64_t reach) {
  sig::detail::qrs_rules r;
  r.time.rhythm_reach_samples = reach;
  return r;
}

/// The accepted beats as the rhythm checks take them: every candidate of `b` but those at
/// `rejected` (beat_of), their clear intervals (clear), and k, the beat at sample `at`.
struct judged {
  std::vector<std::int64_t> beat_of, clear;
  std::int64_t k = 0;

  judged(const beats& b, const std::vector<std::int64_t>& rejected, std::int64_t at,
         const sig::detail::qrs_rules& rules) {
    for (std::size_t i = 0; i < b.position.size(); ++i)
      if (std::find(rejected.begin(), rejected.end(), b.position[i]) == rejected.end())
        beat_of.push_back(static_cast<std::int64_t>(i));
    for (std::size_t c = 0; c + 1 < beat_of.size(); ++c)
      if (sig::detail::qrs_is_clear_beat(b.view(), beat_of[c], rules.rhythm) &&
          sig::detail::qrs_is_clear_beat(b.view(), beat_of[c + 1], rules.rhythm))
        clear.push_back(static_cast<std::int64_t>(c));
    k = std::find(beat_of.begin(), beat_of.end(), b.index_of(at)) - beat_of.begin();
    if (k == beats()) ADD_FAILURE() << "no beat at " << at;
  }
  [[nodiscard]] std::int64_t beats() const { return static_cast<std::int64_t>(beat_of.size()); }
  [[nodiscard]] sig::detail::qrs_accepted_view view() const {
    return {beat_of.data(), beats(), clear.data(), static_cast<std::int64_t>(clear.size())};
  }
};

/// Whether the beat at sample `at` is off the rhythm, every beat of `b` accepted.
bool off_rhythm(const beats& b, std::int64_t at, const sig::detail::qrs_rules& rules) {
  const judged j(b, {}, at, rules);
  return sig::detail::qrs_off_rhythm(b.view(), j.view(), j.k, rules);
}

/// 11 clear beats 300 samples apart, an extra beat at 3150 (in noise: under 32 times its
/// background; slope 0.5 of its neighbours'), then 20 more clear beats.
beats split_interval(float energy = 20, float around = 1) {
  beats b;
  b.regular(0, 11, 300);  // ... 3000
  b.add(3150, energy, 0.5F, around);
  b.regular(3300, 20, 300);
  return b;
}

/// The candidate (its sample) that the beat at `at` gives way to, or -1: the candidates of `b`
/// are beats except those at `rejected`.
std::int64_t recentred(const beats& b, const std::vector<std::int64_t>& rejected, std::int64_t at,
                       const sig::detail::qrs_rules& rules) {
  const judged j(b, rejected, at, rules);
  const auto to = sig::detail::qrs_recentred(b.view(), j.view(), j.k, rules);
  return to < 0 ? -1 : b.position[static_cast<std::size_t>(to)];
}

/// The beats qrs_select_host accepts among the candidates of `b`, default rules at 360 Hz; with
/// `checked` false, every beat counts as clear of noise and none anchors a path, so no rhythm
/// check acts.
std::vector<std::int64_t> select(const beats& b, bool checked) {
  sig::qrs_detection d;
  d.candidates = to_array(b.position);
  d.amplitude = to_array(b.amplitude);
  d.slope = to_array(b.slope);
  d.background = to_array(b.background);
  auto rules = sig::detail::qrs_rules_for(sig::sizes_for({.sample_rate = 360}));
  if (!checked) {
    rules.rhythm.noisy_snr = 0;
    rules.path_trigger.anchor_slope_fraction = 1e30F;
  }
  return to_vector<std::int64_t>(sig::detail::qrs_select_host(d, b.position.back() + 300, rules, {}));
}

/// The marks qrs_rhythm_path leaves between the beats at samples `a` and `z` of `b` (the beats'
/// steepness 1; R–R 300, or the range [shortest, longest] with `bonus` a beat), every candidate
/// but those at `rejected` marked before.
std::vector<std::int64_t> path(const beats& b, std::int64_t a, std::int64_t z,
                               const std::vector<std::int64_t>& rejected, float shortest = 300, float longest = 300,
                               float bonus = 0) {
  const auto n = b.position.size();
  std::vector<std::uint8_t> beat(n);
  for (std::size_t i = 0; i < n; ++i)
    beat[i] = std::find(rejected.begin(), rejected.end(), b.position[i]) == rejected.end();
  std::vector<float> cost(n, -1);
  std::vector<std::int64_t> back(n, -2);
  sig::detail::qrs_rhythm_path(b.view(), b.index_of(a), b.index_of(z), {shortest, longest, 1, bonus},
                               sig::detail::qrs_rules{}, {cost.data(), back.data()}, beat.data());
  std::vector<std::int64_t> marked;
  for (std::size_t i = 0; i < n; ++i)
    if (beat[i] && b.position[i] > a && b.position[i] < z) marked.push_back(b.position[i]);
  return marked;
}

/// 11 clear beats 300 samples apart, a beat in noise at `beat` (energy 90 over a background of 3,
/// slope 0.5), a rejected candidate at `rival` (energy 25 over 2, slope 1), then 20 clear beats
/// from 3600: the beat at 3300 was displaced by noise to `beat`.
beats displaced(std::int64_t beat = 3100, std::int64_t rival = 3300) {
  beats b;
  b.regular(0, 11, 300);  // ... 3000
  b.add(beat, 90, 0.5F, 3);
  b.add(rival, 25, 1, 2);
  b.regular(3600, 20, 300);
  return b;
}

}  // namespace

using SignalQrsRhythm = poisoned_host;

TEST_F(SignalQrsRhythm, NoisyBeatThatSplitsAnIntervalIsOffTheRhythm) {
  const auto rules = rules_with_reach(100000);
  const auto b = split_interval();
  EXPECT_TRUE(off_rhythm(b, 3150, rules));
  // Its neighbours and every clear beat are not judged at all.
  for (std::int64_t at : {0L, 2700L, 3000L, 3300L, 3600L, 9000L}) EXPECT_FALSE(off_rhythm(b, at, rules)) << at;
}

TEST_F(SignalQrsRhythm, EachConditionKeepsTheBeat) {
  const auto rules = rules_with_reach(100000);
  {
    auto b = split_interval();
    b.amplitude[static_cast<std::size_t>(b.index_of(3150))] = 32;  // 32 ≥ 32 · 1: clear of noise
    EXPECT_FALSE(off_rhythm(b, 3150, rules));
  }
  {
    auto b = split_interval();
    b.slope[static_cast<std::size_t>(b.index_of(3150))] = 0.8F;  // not under 0.8 of its neighbours'
    EXPECT_FALSE(off_rhythm(b, 3150, rules));
  }
  {
    // An early beat followed by a compensatory pause: its neighbours are 600 samples apart.
    beats b;
    b.regular(0, 11, 300);
    b.add(3150, 20, 0.5F);
    b.regular(3600, 20, 300);
    EXPECT_FALSE(off_rhythm(b, 3150, rules));
  }
  {
    // Neighbours 300 · 1.2 = 360 samples apart: just outside the tolerance; 355 just inside.
    beats outside, inside;
    outside.regular(0, 11, 300);
    outside.add(3150, 20, 0.5F);
    outside.regular(3360, 20, 300);
    EXPECT_FALSE(off_rhythm(outside, 3150, rules));
    inside.regular(0, 11, 300);
    inside.add(3150, 20, 0.5F);
    inside.regular(3355, 20, 300);
    EXPECT_TRUE(off_rhythm(inside, 3150, rules));
  }
}

TEST_F(SignalQrsRhythm, IrregularOrUnknownRhythmKeepsTheBeat) {
  const auto rules = rules_with_reach(100000);
  {
    // Intervals of 240 and 360 alternating (AF-like): quartiles 240 and 360, 120 apart ≥ 0.2 · 300.
    beats b;
    std::int64_t at = 0;
    for (int k = 0; k < 31; ++k) {
      b.add(at);
      if (k == 10) b.add(at + 120, 20, 0.5F);  // splits the 240 after it
      at += k % 2 ? 360 : 240;
    }
    EXPECT_FALSE(off_rhythm(b, b.position[11], rules));
  }
  {
    // Seven clear intervals in all: too few to make a rhythm.
    beats b;
    b.regular(0, 5, 300);
    b.add(1350, 20, 0.5F);
    b.regular(1500, 4, 300);
    EXPECT_FALSE(off_rhythm(b, 1350, rules));
  }
  {
    // The clear intervals lie beyond the reach (the rhythm there may be another).
    auto b = split_interval();
    EXPECT_FALSE(off_rhythm(b, 3150, rules_with_reach(100)));
    EXPECT_TRUE(off_rhythm(b, 3150, rules_with_reach(2500)));  // 15 of the 16 nearest within reach
  }
}

TEST_F(SignalQrsRhythm, SelectionDropsTheExtraBeat) {
  // The same beats as candidates of qrs_select. The extra one (energy 90 over a background of 3)
  // clears the threshold (a quarter of the way from the noise level, 50, to the beats' 100), is
  // no T wave (150 samples after a beat, past the 0.36 s window) and clears 8 times its
  // background, so the burst rule leaves it: the rhythm check alone drops it.
  const auto b = split_interval(90, 3);
  EXPECT_EQ(select(b, false), b.position);
  auto want = b.position;
  want.erase(want.begin() + b.index_of(3150));
  EXPECT_EQ(select(b, true), want);
}

TEST_F(SignalQrsRhythm, DropsElectrodeMotionBeatsAndKeepsTheHeart) {
  // Synthetic ECGs at 70 bpm with 30 s of motion noise as strong as the QRS complexes in the
  // band-pass: the burst rule leaves some noise peaks that split R–R intervals; the rhythm
  // check takes most of them out and no true beat with them.
  zeroflow::synth::ecg_options o;
  o.hours = 150.0 / 3600;
  o.sample_rate = motion_rate;
  o.heart_rate_bpm = 70;
  std::size_t extra_with = 0, extra_without = 0, missed_with = 0, missed_without = 0, added = 0, added_false = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    o.seed = seed;
    const auto ecg = zeroflow::synth::generate_ecg(o);
    auto x = ecg.samples;
    const std::int64_t from = at_seconds(60), to = at_seconds(90);
    add_motion_burst(x, from, to, 0.4, 200 + seed);
    const auto d = sig::detect_qrs(to_array(x), {.sample_rate = motion_rate}, 0.0F, {});
    const auto with = to_vector<std::int64_t>(d.peaks);
    auto no_check = sig::detail::qrs_rules_for(sig::sizes_for({.sample_rate = motion_rate}));
    no_check.rhythm.noisy_snr = 0;
    no_check.path_trigger.anchor_slope_fraction = 1e30F;  // and no rhythm path
    const auto without =
        to_vector<std::int64_t>(sig::detail::qrs_select_host(d, static_cast<std::int64_t>(x.size()), no_check, {}));
    const auto n = static_cast<std::int64_t>(x.size());
    const auto e_with = errors_in(with, ecg.r_peaks, 0, n);
    const auto e_without = errors_in(without, ecg.r_peaks, 0, n);
    // What the checks keep that the selection without them had not, they moved there or found
    // on the rhythm's path.
    for (auto p : with) {
      if (!std::binary_search(without.begin(), without.end(), p)) {
        ++added;
        added_false += errors_in({p}, ecg.r_peaks, 0, n).extra.size();
      }
    }
    extra_with += e_with.extra.size();
    extra_without += e_without.extra.size();
    missed_with += e_with.missed.size();
    missed_without += e_without.missed.size();
  }
  std::cout << "[ info ] in motion noise, with the rhythm checks / without: " << extra_with << " / " << extra_without
            << " false beats, " << missed_with << " / " << missed_without << " missed; " << added << " beats added, "
            << added_false << " of them false\n";
  EXPECT_GE(extra_without, 10u) << "the bursts no longer fool the detector: make them stronger";
  // Over the bursts, the checks take out at least half of the false beats, and miss no more true ones.
  EXPECT_LE(extra_with * 2, extra_without);
  EXPECT_LE(missed_with, missed_without);
}

TEST_F(SignalQrsRhythm, DisplacedBeatGivesWayToTheCandidateInTime) {
  const auto rules = rules_with_reach(100000);
  EXPECT_EQ(recentred(displaced(), {3300}, 3100, rules), 3300);
  EXPECT_EQ(recentred(displaced(3480), {3300}, 3480, rules), 3300);  // displaced late
  // The beats in time and the clear ones are never moved.
  for (std::int64_t at : {2700L, 3000L, 3600L}) EXPECT_EQ(recentred(displaced(), {3300}, at, rules), -1) << at;
  // Of two candidates in time, the stronger.
  auto two = displaced();
  two.add(3310, 50, 1, 2);
  EXPECT_EQ(recentred(two, {3300, 3310}, 3100, rules), 3310);
}

TEST_F(SignalQrsRhythm, EachConditionKeepsTheDisplacedBeat) {
  const auto rules = rules_with_reach(100000);
  const auto at = [](const beats& b, std::int64_t sample) { return static_cast<std::size_t>(b.index_of(sample)); };
  {
    auto b = displaced();
    b.amplitude[at(b, 3100)] = 96;  // 96 ≥ 32 · 3: clear of noise
    EXPECT_EQ(recentred(b, {3300}, 3100, rules), -1);
  }
  {
    auto b = displaced();
    b.slope[at(b, 3300)] = 0.49F;  // the rival less steep than the beat (a premature beat stays)
    EXPECT_EQ(recentred(b, {3300}, 3100, rules), -1);
  }
  {
    auto b = displaced();
    b.amplitude[at(b, 3300)] = 22;  // under a quarter of the beat's energy
    EXPECT_EQ(recentred(b, {3300}, 3100, rules), -1);
  }
  {
    auto b = displaced();
    b.slope[at(b, 3300)] = 0.49F;  // under half as steep as the beats around
    b.slope[at(b, 3100)] = 0.4F;
    EXPECT_EQ(recentred(b, {3300}, 3100, rules), -1);
    b.slope[at(b, 3300)] = 0.5F;
    EXPECT_EQ(recentred(b, {3300}, 3100, rules), 3300);
  }
  {
    auto b = displaced();
    b.amplitude[at(b, 3300)] = 9;  // under a tenth of the beats around (the noise after a wide beat)
    b.amplitude[at(b, 3100)] = 30;
    EXPECT_EQ(recentred(b, {3300}, 3100, rules), -1);
    b.amplitude[at(b, 3300)] = 10;
    EXPECT_EQ(recentred(b, {3300}, 3100, rules), 3300);
  }
  // The rival out of time (3300 ± 60 is the tolerance), or the beat in time: nothing moves.
  EXPECT_EQ(recentred(displaced(3100, 3370), {3370}, 3100, rules), -1);
  EXPECT_EQ(recentred(displaced(3250, 3300), {3300}, 3250, rules), -1);
  {
    // Neighbours 1.5 intervals apart (an early beat with a short pause): not a displaced beat.
    beats b;
    b.regular(0, 11, 300);
    b.add(3100, 90, 0.5F, 3);
    b.add(3300, 25, 1, 2);
    b.regular(3450, 20, 300);
    EXPECT_EQ(recentred(b, {3300}, 3100, rules), -1);
  }
  {
    // An irregular rhythm: intervals of 240 and 360 alternating.
    beats b;
    std::int64_t t = 0;
    for (int k = 0; k < 31; ++k) {
      b.add(t);
      if (k == 10) {
        b.add(t + 80, 90, 0.5F, 3);
        b.add(t + 300, 25, 1, 2);
      }
      t += k == 10 ? 600 : (k % 2 ? 360 : 240);
    }
    EXPECT_EQ(recentred(b, {b.position[12]}, b.position[11], rules), -1);
  }
}

TEST_F(SignalQrsRhythm, SelectionMovesTheDisplacedBeat) {
  // The displaced case as candidates of qrs_select: the beat at 3100 clears the threshold and
  // comes after the P-wave window; the one at 3300 is under half the threshold (no search-back
  // takes it) and under 20 times its background (no clear-gap rule does): only the rhythm check
  // puts the beat back in time.
  const auto b = displaced();
  auto want = b.position;
  want.erase(want.begin() + b.index_of(3300));
  EXPECT_EQ(select(b, false), want);
  want = b.position;
  want.erase(want.begin() + b.index_of(3100));
  EXPECT_EQ(select(b, true), want);
}

TEST_F(SignalQrsRhythm, PathMendsTwoErrorsInARow) {
  // A beat displaced by noise (3080 taken, 3300 lost) and an extra one (3420) side by side: the
  // neighbours of each are neither one nor two intervals apart, so the local checks leave both.
  // The path from 3000 to 3600 takes the hidden beat, as steep as the beats, and nothing else.
  beats b;
  b.regular(0, 11, 300);
  b.add(3080, 60, 0.5F, 10);
  b.add(3300, 30, 1, 10);
  b.add(3420, 60, 0.5F, 10);
  b.regular(3600, 20, 300);
  EXPECT_EQ(path(b, 3000, 3600, {3300}), (std::vector<std::int64_t>{3300}));
  // The hidden beat under its background: no beat of a path. A beat left out costs more than one
  // 120 samples out of time, so the path keeps the candidate nearest to the rhythm.
  auto none = b;
  none.amplitude[static_cast<std::size_t>(none.index_of(3300))] = 5;
  EXPECT_EQ(path(none, 3000, 3600, {3300}), (std::vector<std::int64_t>{3420}));
}

TEST_F(SignalQrsRhythm, PathKeepsAPrematureBeatAndDropsASplit) {
  beats premature;  // a wide early beat, then its pause: the heart's
  premature.regular(0, 11, 300);
  premature.add(3180, 60, 0.5F, 10);
  premature.regular(3600, 20, 300);
  EXPECT_EQ(path(premature, 3000, 3600, {}), (std::vector<std::int64_t>{3180}));
  beats split;  // as steep as the beats, but it halves an ordinary interval: noise
  split.regular(0, 11, 300);
  split.add(3150, 100, 1, 10);
  split.regular(3300, 20, 300);
  EXPECT_EQ(path(split, 3000, 3300, {}), std::vector<std::int64_t>{});
  // The marks are those of the cheapest path, written only strictly between the anchors.
  beats far;  // anchors too far apart for any path (over 2.5 reference intervals): nothing changes
  far.regular(0, 11, 300);
  far.add(3400, 60, 0.5F, 10);
  far.regular(3800, 20, 300);
  EXPECT_EQ(path(far, 3000, 3800, {}), (std::vector<std::int64_t>{3400}));
}

TEST_F(SignalQrsRhythm, PathOnlyWhereNoiseIs) {
  namespace d = sig::detail;
  const d::qrs_rules rules = rules_with_reach(100000);
  beats b;  // a premature beat clear of noise (16 times its background) in a clean stretch
  b.regular(0, 11, 300);
  b.add(3180, 80, 0.5F, 5);
  b.add(3240, 20, 0.2F, 1);  // its T wave: a quarter of its energy, a rival too weak to count
  b.regular(3600, 20, 300);
  const auto wants = [&](const beats& with, const std::vector<std::int64_t>& rejected) {
    const judged j(with, rejected, 3000, rules);
    return d::qrs_wants_path(with.view(), j.view(), j.k, j.k + 2, rules);
  };
  EXPECT_FALSE(wants(b, {3240}));
  auto rival = b;  // a candidate between the anchors with 0.65 of the weakest beat's energy
  rival.amplitude[static_cast<std::size_t>(rival.index_of(3240))] = 52;
  EXPECT_TRUE(wants(rival, {3240}));
  auto burst = b;  // the beat under 8 times its background
  burst.background[static_cast<std::size_t>(burst.index_of(3180))] = 10.1F;
  EXPECT_TRUE(wants(burst, {3240}));
  // Anchors: clear beats at least 0.85 and at most 2 times as steep as the clear beats around.
  const auto anchor = [&](const beats& with, std::int64_t at) {
    const judged j(with, {3240}, at, rules);
    return d::qrs_is_anchor(with.view(), j.view(), j.k, rules);
  };
  EXPECT_TRUE(anchor(b, 3000));
  EXPECT_FALSE(anchor(b, 3180));  // in noise
  auto flat = b;
  flat.slope[static_cast<std::size_t>(flat.index_of(3000))] = 0.8F;
  EXPECT_FALSE(anchor(flat, 3000));
  flat.slope[static_cast<std::size_t>(flat.index_of(3000))] = 0.85F;
  EXPECT_TRUE(anchor(flat, 3000));
  auto step = b;  // a jump of the baseline: more than twice as steep as the beats
  step.slope[static_cast<std::size_t>(step.index_of(3000))] = 2.01F;
  EXPECT_FALSE(anchor(step, 3000));
  step.slope[static_cast<std::size_t>(step.index_of(3000))] = 2.0F;
  EXPECT_TRUE(anchor(step, 3000));
}

TEST_F(SignalQrsRhythm, PathInAnIrregularRhythmKeepsItsRange) {
  // Intervals of 240 and 360 alternating: no regular reference, a range of [240, 360]. Between
  // two beats 720 apart, the hidden beat at 360 in noise and two noise peaks, less steep, that
  // split the intervals into pieces shorter than the range: the path keeps the beat alone.
  beats b;
  std::int64_t t = 0;
  for (int k = 0; k < 12; ++k) {
    b.add(t);
    t += k % 2 ? 360 : 240;
  }
  const std::int64_t a = t;  // 3600
  b.add(a);
  b.add(a + 150, 60, 0.4F, 10);
  b.add(a + 360, 40, 1, 10);
  b.add(a + 560, 60, 0.4F, 10);
  t = a + 720;
  for (int k = 0; k < 12; ++k) {
    b.add(t);
    t += k % 2 ? 240 : 360;
  }
  EXPECT_EQ(path(b, a, a + 720, {}, 240, 360, 1.5F), (std::vector<std::int64_t>{a + 360}));
  // Without the bonus a beat is only a cost where every interval lies in the range: none is kept.
  EXPECT_EQ(path(b, a, a + 720, {}, 240, 720, 0), std::vector<std::int64_t>{});
  // The whole rule (qrs_follow_rhythm): the range comes from the clear intervals around, and the
  // path runs only where a beat stands deep in noise (under 5 times its background) or noise rose
  // between the anchors (qrs_noise_rose).
  namespace d = sig::detail;
  const d::qrs_rules rules = rules_with_reach(100000);
  const auto follow = [&](const beats& with) {
    const judged j(with, {}, a, rules);
    std::vector<std::int64_t> anchors;
    for (std::int64_t k = 0; k < j.beats(); ++k)
      if (d::qrs_is_anchor(with.view(), j.view(), k, rules)) anchors.push_back(k);
    std::vector<std::uint8_t> beat(with.position.size(), 1);
    std::vector<float> cost(with.position.size());
    std::vector<std::int64_t> back(with.position.size());
    for (std::size_t c = 0; c + 1 < anchors.size(); ++c)
      d::qrs_follow_rhythm(with.view(), j.view(), anchors.data(), static_cast<std::int64_t>(c), rules,
                           {cost.data(), back.data()}, beat.data());
    std::vector<std::int64_t> marked;
    for (std::size_t i = 0; i < beat.size(); ++i)
      if (beat[i]) marked.push_back(with.position[i]);
    return marked;
  };
  const auto kept = follow(b);
  EXPECT_EQ(std::count(kept.begin(), kept.end(), a + 150) + std::count(kept.begin(), kept.end(), a + 560), 0);
  EXPECT_EQ(kept.size(), b.position.size() - 2);
  auto shallow = b;  // every beat at least 5 times its background: nothing changes
  for (std::int64_t at : {a + 150, a + 360, a + 560})
    shallow.background[static_cast<std::size_t>(shallow.index_of(at))] = 7;
  EXPECT_EQ(follow(shallow), shallow.position);
  // The same beats in a burst of noise that rose between the anchors (background 10 times
  // theirs), each still 6 times its background: the path runs, and the two peaks go.
  const auto in_burst = [&](float around) {
    auto with = b;
    for (std::int64_t at : {a + 150, a + 360, a + 560}) {
      const auto i = static_cast<std::size_t>(with.index_of(at));
      with.background[i] = around;
      with.amplitude[i] = 60;
    }
    return with;
  };
  const auto risen = in_burst(10);
  EXPECT_EQ(follow(risen).size(), b.position.size() - 2);
  const auto risen_less = in_burst(7.9F);  // 7.9 times: no rise, nothing changes
  EXPECT_EQ(follow(risen_less), risen_less.position);
  const judged at_a(risen, {}, a, rules);  // anchors a and a + 720, three beats between
  EXPECT_TRUE(d::qrs_noise_rose(risen.view(), at_a.view(), at_a.k, at_a.k + 4, 8.0F));
  EXPECT_FALSE(d::qrs_noise_rose(risen_less.view(), at_a.view(), at_a.k, at_a.k + 4, 8.0F));
  auto one_risen = risen_less;  // one of the three: not a burst
  one_risen.background[static_cast<std::size_t>(one_risen.index_of(a + 360))] = 10;
  EXPECT_FALSE(d::qrs_noise_rose(one_risen.view(), at_a.view(), at_a.k, at_a.k + 4, 8.0F));
  one_risen.background[static_cast<std::size_t>(one_risen.index_of(a + 150))] = 10;  // two of three: a burst
  EXPECT_TRUE(d::qrs_noise_rose(one_risen.view(), at_a.view(), at_a.k, at_a.k + 4, 8.0F));
}
