// The detector's rhythm checks (qrs_off_rhythm and qrs_recentred in
// zeroflow/signal/detail/qrs_decide.hpp): a beat in noise that splits an ordinary R–R interval of a
// regular rhythm goes, and one out of time between neighbours two intervals apart gives way to a
// candidate in time; an early beat followed by its pause, a steep beat, a clear beat and any beat
// of an irregular rhythm stay. Each case is built by hand around a rhythm of one beat every 300
// samples, and selected with qrs_select_host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "signal/motion_noise.hpp"
#include "signal/signal_test_helpers.hpp"
#include "zeroflow/signal/detail/qrs_decide.hpp"
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
};

sig::detail::qrs_rules rules_with_reach(std::int64_t reach) {
  sig::detail::qrs_rules r;
  r.rhythm_reach = reach;
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
      if (sig::detail::qrs_is_clear_beat(b.amplitude.data(), b.background.data(), beat_of[c], rules) &&
          sig::detail::qrs_is_clear_beat(b.amplitude.data(), b.background.data(), beat_of[c + 1], rules))
        clear.push_back(static_cast<std::int64_t>(c));
    k = std::find(beat_of.begin(), beat_of.end(), b.index_of(at)) - beat_of.begin();
    if (k == beats()) ADD_FAILURE() << "no beat at " << at;
  }
  [[nodiscard]] std::int64_t beats() const { return static_cast<std::int64_t>(beat_of.size()); }
  [[nodiscard]] std::int64_t clear_count() const { return static_cast<std::int64_t>(clear.size()); }
};

/// Whether the beat at sample `at` is off the rhythm, every beat of `b` accepted.
bool off_rhythm(const beats& b, std::int64_t at, const sig::detail::qrs_rules& rules) {
  const judged j(b, {}, at, rules);
  return sig::detail::qrs_off_rhythm(b.position.data(), b.amplitude.data(), b.slope.data(), b.background.data(),
                                     j.beat_of.data(), j.beats(), j.clear.data(), j.clear_count(), j.k, rules);
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
  const auto to = sig::detail::qrs_recentred(b.position.data(), b.amplitude.data(), b.slope.data(), b.background.data(),
                                             j.beat_of.data(), j.beats(), j.clear.data(), j.clear_count(), j.k, rules);
  return to < 0 ? -1 : b.position[static_cast<std::size_t>(to)];
}

/// The beats qrs_select_host accepts among the candidates of `b`, default rules at 360 Hz; with
/// `checked` false, every beat counts as clear of noise, so neither rhythm check acts.
std::vector<std::int64_t> select(const beats& b, bool checked) {
  sig::qrs_detection d;
  d.candidates = to_array(b.position);
  d.amplitude = to_array(b.amplitude);
  d.slope = to_array(b.slope);
  d.background = to_array(b.background);
  auto rules = sig::detail::qrs_rules_for(sig::sizes_for({.sample_rate = 360}));
  if (!checked) rules.noisy_snr = 0;
  return to_vector<std::int64_t>(sig::detail::qrs_select_host(d, b.position.back() + 300, rules, {}));
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
  std::size_t extra_with = 0, extra_without = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    o.seed = seed;
    const auto ecg = zeroflow::synth::generate_ecg(o);
    auto x = ecg.samples;
    const std::int64_t from = at_seconds(60), to = at_seconds(90);
    add_motion_burst(x, from, to, 0.4, 200 + seed);
    const auto d = sig::detect_qrs(to_array(x), {.sample_rate = motion_rate}, 0.0F, {});
    const auto with = to_vector<std::int64_t>(d.peaks);
    auto no_check = sig::detail::qrs_rules_for(sig::sizes_for({.sample_rate = motion_rate}));
    no_check.noisy_snr = 0;
    const auto without =
        to_vector<std::int64_t>(sig::detail::qrs_select_host(d, static_cast<std::int64_t>(x.size()), no_check, {}));
    const std::string what = "seed " + std::to_string(seed);
    const auto e_with = errors_in(with, ecg.r_peaks, 0, static_cast<std::int64_t>(x.size()));
    const auto e_without = errors_in(without, ecg.r_peaks, 0, static_cast<std::int64_t>(x.size()));
    EXPECT_LE(e_with.extra.size(), e_without.extra.size()) << what;
    EXPECT_LE(e_with.missed.size(), e_without.missed.size())
        << what << ": beats missed at " << first_values(e_with.missed);
    // What the check keeps that the selection without it had not, it moved there: a true beat.
    for (auto p : with) {
      if (!std::binary_search(without.begin(), without.end(), p)) {
        EXPECT_TRUE(errors_in({p}, ecg.r_peaks, 0, static_cast<std::int64_t>(x.size())).extra.empty())
            << what << " at " << p;
      }
    }
    extra_with += e_with.extra.size();
    extra_without += e_without.extra.size();
  }
  std::cout << "[ info ] false beats in motion noise: " << extra_with << " with the rhythm check, " << extra_without
            << " without\n";
  EXPECT_GE(extra_without, 10u) << "the bursts no longer fool the detector: make them stronger";
  // Over the bursts, the check takes out at least a third of the false beats.
  EXPECT_LE(extra_with * 3, extra_without * 2)
      << extra_with << " false beats with the check, " << extra_without << " without";
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
