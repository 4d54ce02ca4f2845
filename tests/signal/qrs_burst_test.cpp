// The detector's burst rule (qrs_in_burst in src/signal/qrs_decide.hpp): a synthetic
// ECG with a burst of electrode-motion-like noise (band-limited to 2-12 Hz, where the QRS energy
// lies) loses the false beats that the noise made without the rule and keeps every true beat in
// and around the burst; the background and the rule themselves against their definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "signal/motion_noise.hpp"
#include "signal/qrs_decide.hpp"
#include "signal/qrs_measures.hpp"
#include "signal/qrs_rules.hpp"
#include "signal/qrs_select.hpp"
#include "signal/robust_reference.hpp"
#include "signal/signal_test_helpers.hpp"
#include "zeroflow/signal/qrs_detect.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace sig = zeroflow::signal;
namespace synth = zeroflow::synth;
using namespace zeroflow::signal::testing;

namespace {

constexpr double rate = motion_rate;

}  // namespace

using SignalQrsBurst = poisoned_host;

TEST_F(SignalQrsBurst, RejectsElectrodeMotionPeaksAndKeepsTheBeats) {
  synth::ecg_options o;
  o.hours = 150.0 / 3600;
  o.sample_rate = rate;
  o.heart_rate_bpm = 70;
  int checked = 0;
  std::size_t extra_with = 0, extra_without = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    o.seed = seed;
    const auto ecg = synth::generate_ecg(o);
    auto x = ecg.samples;
    // 30 s of motion from 60 s on, as strong as the QRS complexes in the band-pass: without the
    // burst rule the noise passes the threshold between the beats.
    const std::int64_t from = at_seconds(60), to = at_seconds(90);
    add_motion_burst(x, from, to, 0.3, 100 + seed);
    const auto d = sig::detect_qrs(to_array(x), {.sample_rate = rate}, 0.0F, {});
    // The burst rule on and off, the rhythm check (qrs_rhythm_test.cpp) off in both.
    auto burst_rule = sig::detail::qrs_rules_for(sig::sizes_for({.sample_rate = rate}));
    burst_rule.rhythm.noisy_snr = 0;
    burst_rule.path_trigger.anchor_slope_fraction = 1e30F;  // and no rhythm path
    auto no_burst_rule = burst_rule;
    no_burst_rule.burst.snr = 0;
    const auto samples = static_cast<std::int64_t>(x.size());
    const auto peaks = to_vector<std::int64_t>(sig::detail::qrs_select_host(d, samples, burst_rule, {}));
    const auto before = to_vector<std::int64_t>(sig::detail::qrs_select_host(d, samples, no_burst_rule, {}));
    const std::string what = "seed " + std::to_string(seed);
    // Around the burst: the 10 s before and after it, where the levels must not have suffered.
    const std::int64_t around_from = from - at_seconds(10), around_to = to + at_seconds(10);
    const auto without = errors_in(before, ecg.r_peaks, around_from, around_to);
    const auto with = errors_in(peaks, ecg.r_peaks, around_from, around_to);
    if (without.extra.size() < 3) continue;  // this burst fooled the detector too little to tell
    ++checked;
    // Fewer false beats in every burst, and no beat lost that the detector found without the rule.
    EXPECT_LT(with.extra.size(), without.extra.size())
        << what << ": " << with.extra.size() << " false beats with the rule, " << without.extra.size()
        << " without, at " << first_values(with.extra);
    EXPECT_LE(with.missed.size(), without.missed.size()) << what << ": beats missed at " << first_values(with.missed);
    extra_with += with.extra.size();
    extra_without += without.extra.size();
    // Outside the burst and its surroundings the rule changes nothing.
    const auto outside = [&](const std::vector<std::int64_t>& p) {
      std::vector<std::int64_t> kept;
      for (auto v : p)
        if (v < around_from - at_seconds(1) || v >= around_to + at_seconds(1)) kept.push_back(v);
      return kept;
    };
    EXPECT_EQ(outside(peaks), outside(before)) << what;
  }
  EXPECT_GE(checked, 2) << "the bursts no longer fool the detector without the rule: make them stronger";
  // Over the bursts, the rule takes out at least two false beats in five.
  EXPECT_LE(extra_with * 5, extra_without * 3)
      << extra_with << " false beats with the rule, " << extra_without << " without";
}

TEST_F(SignalQrsBurst, BackgroundIsTheMedianOfTheBlockMeans) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<float> energy(0.0F, 1.5F);
  std::vector<float> e(3000);
  for (auto& v : e) v = energy(rng);
  for (const std::int64_t block : {1, 7, 36}) {
    for (const std::int64_t at : {0L, 5L, 100L, 1500L, 2950L, 2999L}) {
      // Blocks [at − (b+2)·block, at − (b+1)·block) and [at + (b+1)·block + 1, at + (b+2)·block + 1),
      // b = 0..3, cut at the ends; the candidate's own ±block left out.
      std::vector<double> means;
      const auto n = static_cast<std::int64_t>(e.size());
      for (std::int64_t b = 0; b < sig::detail::qrs_background_blocks; ++b) {
        for (const std::int64_t lo0 : {at - (b + 2) * block, at + (b + 1) * block + 1}) {
          const std::int64_t lo = std::max<std::int64_t>(0, lo0), hi = std::min(n, lo0 + block);
          if (lo >= hi) continue;
          double sum = 0;
          for (std::int64_t i = lo; i < hi; ++i) sum += e[static_cast<std::size_t>(i)];
          means.push_back(sum / static_cast<double>(hi - lo));
        }
      }
      std::sort(means.begin(), means.end());
      const std::size_t m = means.size();
      const double want = m == 0 ? 0.0 : m % 2 ? means[m / 2] : 0.5 * (means[m / 2 - 1] + means[m / 2]);
      EXPECT_NEAR(sig::detail::qrs_background(e.data(), n, at, block), want, 1e-6 * want)
          << "block " << block << ", at " << at;
    }
  }
}

TEST_F(SignalQrsBurst, OnlyTheSteepestOfCloseCandidatesInNoise) {
  const sig::detail::qrs_burst_rules burst;  // snr 8, spacing_mean_rr 0.5
  // Candidates 100 samples apart; mean RR 300, so neighbours within 150 samples count.
  const std::vector<std::int64_t> position{0, 100, 200, 300, 500};
  const std::vector<float> amplitude{10, 10, 10, 10, 10};
  const std::vector<float> slope{1.0F, 0.5F, 2.0F, 0.4F, 0.3F};
  std::vector<float> background{2, 2, 2, 2, 2};  // 10 < 8·2: every candidate stands in noise
  const auto in_burst = [&](std::int64_t i, float threshold, float mean_rr) {
    const sig::detail::qrs_candidate_view c{position.data(), amplitude.data(), slope.data(), background.data(),
                                            static_cast<std::int64_t>(position.size())};
    return sig::detail::qrs_in_burst(c, i, threshold, mean_rr, burst);
  };
  EXPECT_FALSE(in_burst(0, 1, 300));   // 1 is less steep, 2 out of reach (200 ≥ 150)
  EXPECT_TRUE(in_burst(1, 1, 300));    // 0 and 2 are steeper
  EXPECT_FALSE(in_burst(2, 1, 300));   // the steepest of its neighbours
  EXPECT_TRUE(in_burst(3, 1, 300));    // 2 is steeper
  EXPECT_FALSE(in_burst(4, 1, 300));   // alone within reach
  EXPECT_FALSE(in_burst(1, 20, 300));  // its steeper neighbours are under the threshold
  EXPECT_FALSE(in_burst(1, 1, 0));     // no rhythm yet
  background[1] = 1;                   // 10 ≥ 8·1: clear of its background, whatever its neighbours
  EXPECT_FALSE(in_burst(1, 1, 300));
}
