// The detector's search for a clear candidate in a gap (qrs_is_clear in
// src/signal/qrs_decide.hpp): wide premature beats with their compensatory pause,
// which put too little energy into the QRS band to clear the threshold that narrow beats set, are
// found, and nothing else is; the same rhythm under noise gains no false beat; the rule itself
// against its definition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "signal/qrs_decide.hpp"
#include "signal/qrs_rules.hpp"
#include "signal/qrs_select.hpp"
#include "signal/robust_reference.hpp"
#include "signal/signal_test_helpers.hpp"
#include "zeroflow/signal/qrs_detect.hpp"

namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

constexpr double rate = 360;

/// Adds a Gaussian bump of `height` mV and standard deviation `sigma` seconds centred at `at` seconds.
void add_wave(std::vector<float>& x, double at, double height, double sigma) {
  const auto centre = at * rate;
  const auto reach = static_cast<std::int64_t>(5 * sigma * rate);
  for (std::int64_t i = static_cast<std::int64_t>(centre) - reach; i <= static_cast<std::int64_t>(centre) + reach;
       ++i) {
    if (i < 0 || i >= static_cast<std::int64_t>(x.size())) continue;
    const double z = (static_cast<double>(i) - centre) / (sigma * rate);
    x[static_cast<std::size_t>(i)] += static_cast<float>(height * std::exp(-0.5 * z * z));
  }
}

struct rhythm {
  std::vector<float> x;
  std::vector<std::int64_t> beats, wide;
};

/// Sinus rhythm at 1 s (P, narrow QRS of 1 mV, T) where every `every`-th beat is an aberrated
/// premature one: 0.55 s after the last beat, its QRS wide (σ 34 ms) and half as tall, its T wave
/// inverted, followed by a pause to 1.5 s after it. White noise of `noise` mV rms.
rhythm premature_wide_beats(double seconds, int every, double noise, std::uint64_t seed) {
  rhythm r;
  r.x.assign(static_cast<std::size_t>(seconds * rate), 0.0F);
  double t = 1.0;
  for (int k = 0; t < seconds - 1.5; ++k) {
    const bool wide = k > 12 && k % every == 0;
    if (wide) {
      add_wave(r.x, t, 0.5, 0.034);
      add_wave(r.x, t + 0.3, -0.25, 0.07);
      r.wide.push_back(static_cast<std::int64_t>(t * rate));
    } else {
      add_wave(r.x, t - 0.16, 0.12, 0.025);
      add_wave(r.x, t, 1.0, 0.01);
      add_wave(r.x, t + 0.3, 0.3, 0.06);
    }
    r.beats.push_back(static_cast<std::int64_t>(t * rate));
    const bool next_wide = k + 1 > 12 && (k + 1) % every == 0;
    t += next_wide ? 0.55 : wide ? 1.5 : 1.0;
  }
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> white(0.0, noise);
  for (auto& v : r.x) v += static_cast<float>(white(rng));
  return r;
}

std::vector<std::int64_t> detect_with(const std::vector<float>& x, const sig::detail::qrs_rules* rules) {
  const auto d = sig::detect_qrs(to_array(x), {.sample_rate = rate}, 0.0F, {});
  if (rules == nullptr) return to_vector<std::int64_t>(d.peaks);
  return to_vector<std::int64_t>(sig::detail::qrs_select_host(d, static_cast<std::int64_t>(x.size()), *rules, {}));
}

std::vector<std::int64_t> missed_of(const std::vector<std::int64_t>& peaks, const std::vector<std::int64_t>& truth) {
  return match_peaks_one_to_one(peaks, truth, static_cast<std::int64_t>(0.075 * rate)).missed;
}

}  // namespace

using SignalQrsClear = poisoned_host;

TEST_F(SignalQrsClear, FindsWidePrematureBeatsUnderTheThreshold) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto r = premature_wide_beats(240, 6, 0.01, seed);
    const std::string what = "seed " + std::to_string(seed);
    ASSERT_GE(r.wide.size(), 25U);
    auto without_rule = sig::detail::qrs_rules_for(sig::sizes_for({.sample_rate = rate}));
    without_rule.search_back.clear_snr = 1e30F;
    // The wide beats do fool the detector without the rule (else this test shows nothing) ...
    EXPECT_GE(missed_of(detect_with(r.x, &without_rule), r.wide).size(), r.wide.size() / 2) << what;
    // ... and with it all but the odd one are found, every narrow beat still, and nothing else.
    const auto peaks = detect_with(r.x, nullptr);
    const auto m = match_peaks_one_to_one(peaks, r.beats, static_cast<std::int64_t>(0.075 * rate));
    EXPECT_LE(m.missed.size() * 10, r.wide.size()) << what << ": missed " << first_values(m.missed);
    EXPECT_EQ(missed_of(peaks, r.wide).size(), m.missed.size()) << what << ": a narrow beat was lost";
    EXPECT_TRUE(m.extra.empty()) << what << ": extra " << first_values(m.extra);
  }
}

TEST_F(SignalQrsClear, NoiseDoesNotPassForAClearBeat) {
  // The same rhythm in white noise of a fifth of the wide beats' height: whatever the detector
  // misses there, the rule must not add a false beat to those the noise makes anyway.
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto r = premature_wide_beats(240, 6, 0.1, seed);
    auto without_rule = sig::detail::qrs_rules_for(sig::sizes_for({.sample_rate = rate}));
    without_rule.search_back.clear_snr = 1e30F;
    const auto tolerance = static_cast<std::int64_t>(0.075 * rate);
    const auto with = match_peaks_one_to_one(detect_with(r.x, nullptr), r.beats, tolerance);
    const auto without = match_peaks_one_to_one(detect_with(r.x, &without_rule), r.beats, tolerance);
    EXPECT_LE(with.extra.size(), without.extra.size())
        << "seed " << seed << ": extra " << first_values(with.extra) << " with the rule, "
        << first_values(without.extra) << " without";
  }
}

TEST_F(SignalQrsClear, ClearMeansFarAboveItsBackgroundSteepAndNotNegligible) {
  const sig::detail::qrs_search_back_rules rules;  // clear_snr 20, clear_threshold_fraction 0.2,
                                                   // clear_slope_fraction 0.2
  const std::vector<float> amplitude{10, 10, 10, 1, 10};
  const std::vector<float> slope{1, 1, 0.1F, 1, 1};
  const std::vector<float> background{0.1F, 0.6F, 0.1F, 0.01F, 0.49F};
  const auto clear = [&](std::int64_t j, float threshold) {
    const sig::detail::qrs_candidate_view c{nullptr, amplitude.data(), slope.data(), background.data(),
                                            static_cast<std::int64_t>(amplitude.size())};
    return sig::detail::qrs_is_clear(c, j, threshold, 1.0F, rules);
  };
  EXPECT_TRUE(clear(0, 40));   // 10 ≥ 20·0.1 and 10 > 0.2·40
  EXPECT_FALSE(clear(0, 60));  // 10 < 0.2·60: too weak next to the beats
  EXPECT_FALSE(clear(1, 40));  // 10 < 20·0.6: stands in noise
  EXPECT_FALSE(clear(2, 40));  // slope 0.1 < 0.2 of the beats': a slow wave
  EXPECT_TRUE(clear(3, 4));    // weak, but clear of a quiet background
  EXPECT_TRUE(clear(4, 40));   // 10 > 20·0.49
}
