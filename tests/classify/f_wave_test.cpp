// F-wave rates (f_wave.hpp) on signals whose answer is known: an oscillation inside the band
// crosses zero twice a cycle whatever the baseline does, one well outside the band is filtered
// out. (python/tests/test_rhythm.py checks the values against SciPy's own design and filtering.)
#include "zeroflow/classify/f_wave.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "zeroflow/core/error.hpp"

namespace zc = zeroflow::classify;

namespace {

constexpr double rate = 300;

/// Beats every `rr_seconds` from 0.5 s, and a signal of `seconds` holding a sinusoid of `hz`
/// (amplitude `amplitude`) over a slow baseline wander of ten times its size.
struct strip {
  std::vector<float> signal;
  std::vector<std::int64_t> peaks;
};
strip oscillation(double hz, double amplitude, double rr_seconds = 1.2, double seconds = 30) {
  strip s;
  const auto n = static_cast<std::size_t>(seconds * rate);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / rate;
    s.signal.push_back(static_cast<float>(amplitude * std::sin(2 * std::numbers::pi * hz * t) +
                                          10 * amplitude * std::sin(2 * std::numbers::pi * 0.2 * t)));
  }
  for (double t = 0.5; t < seconds - 0.5; t += rr_seconds) s.peaks.push_back(std::llround(t * rate));
  return s;
}

double median_of_measured(std::vector<double> v) {
  std::erase_if(v, [](double x) { return std::isnan(x); });
  std::sort(v.begin(), v.end());
  return v.empty() ? std::nan("") : v[v.size() / 2];
}

}  // namespace

TEST(FWave, AnOscillationInTheBandCrossesZeroTwiceACycle) {
  for (const double hz : {4.0, 6.0, 9.0}) {
    const strip s = oscillation(hz, 0.1);
    const auto rates = zc::f_wave_rates(s.signal, s.peaks, rate);
    ASSERT_EQ(rates.size(), s.peaks.size());
    EXPECT_TRUE(std::isnan(rates[0]));  // no interval before the first beat
    // An interval of about 0.54 s (1.2 s less the T wave and the QRS onset) holds 2·hz·0.54
    // crossings, give or take the one its ends may cut.
    EXPECT_NEAR(median_of_measured(rates), 2 * hz, 2.0) << hz << " Hz";
  }
}

TEST(FWave, OnlyTheBandIsCounted) {
  // Forward and backward, the response is |H|²: 1 at the band's centre (6 Hz), 1/2 at its edges
  // (3 and 12 Hz: the design's half-power points) and next to nothing well outside it. Added to a
  // 6 Hz oscillation of 0.1, one of 0.3 at the upper edge keeps 0.15 and sets the crossings; at
  // 40 Hz or 0.7 Hz it keeps under 0.001.
  const auto mixed = [](double edge_hz, double edge_amplitude) {
    strip s = oscillation(6.0, 0.1);
    for (std::size_t i = 0; i < s.signal.size(); ++i)
      s.signal[i] +=
          static_cast<float>(edge_amplitude * std::sin(2 * std::numbers::pi * edge_hz * static_cast<double>(i) / rate));
    return median_of_measured(zc::f_wave_rates(s.signal, s.peaks, rate));
  };
  EXPECT_NEAR(mixed(12.0, 0.3), 24.0, 2.0);
  EXPECT_NEAR(mixed(40.0, 0.3), 12.0, 2.0);
  EXPECT_NEAR(mixed(0.7, 0.3), 12.0, 2.0);
}

TEST(FWave, AMissingSampleCostsOnlyTheIntervalsNearIt) {
  strip s = oscillation(6.0, 0.1);
  const auto clean = zc::f_wave_rates(s.signal, s.peaks, rate);
  // A NaN in the T–Q interval before beat 10 (which ends 0.07 s before its R peak).
  s.signal[static_cast<std::size_t>(s.peaks[10] - 40)] = std::nanf("");
  const auto gapped = zc::f_wave_rates(s.signal, s.peaks, rate);
  ASSERT_TRUE(std::isfinite(clean[10]));
  EXPECT_TRUE(std::isnan(gapped[10]));
  std::size_t lost = 0;
  for (std::size_t b = 0; b < clean.size(); ++b) {
    if (std::isnan(gapped[b])) lost += std::isfinite(clean[b]) ? 1 : 0;
    if (b >= 9 && b <= 11) continue;
    // Further away its ringing has died down: the same rates (and the same unmeasured first beat).
    EXPECT_TRUE(gapped[b] == clean[b] || (std::isnan(gapped[b]) && std::isnan(clean[b]))) << b;
  }
  EXPECT_LE(lost, 2U);
  // The first finite sample is the baseline: a NaN at the start changes nothing further on.
  strip late = oscillation(6.0, 0.1);
  late.signal[0] = std::nanf("");
  EXPECT_NEAR(median_of_measured(zc::f_wave_rates(late.signal, late.peaks, rate)), 12.0, 2.0);
  std::fill(late.signal.begin(), late.signal.end(), std::nanf(""));
  const auto none = zc::f_wave_rates(late.signal, late.peaks, rate);
  EXPECT_TRUE(std::all_of(none.begin(), none.end(), [](double r) { return std::isnan(r); }));
}

TEST(FWave, IntervalsNearTheEndsAreNotMeasured) {
  // The filter starts from rest at both ends: an interval within a third of a second (a period of
  // 3 Hz) of them is not measured, however the signal goes on.
  const strip s = oscillation(6.0, 0.1, 1.2, 30);
  std::vector<float> cut(s.signal.begin(), s.signal.begin() + s.peaks.back() + 10);
  const auto rates = zc::f_wave_rates(cut, s.peaks, rate);
  EXPECT_TRUE(std::isnan(rates.back()));  // ends 0.07 + 0.03 s before the signal does
  EXPECT_TRUE(std::isfinite(rates[rates.size() - 2]));
}

TEST(FWave, ShortIntervalsAndLowRatesAreNotMeasured) {
  // At 150 beats per minute the T wave ends 0.1 + 0.45·√0.4 = 0.38 s after the R peak, after the
  // next QRS has begun: no T–Q interval.
  const strip fast = oscillation(6.0, 0.1, 0.4);
  const auto rates = zc::f_wave_rates(fast.signal, fast.peaks, rate);
  EXPECT_TRUE(std::all_of(rates.begin(), rates.end(), [](double r) { return std::isnan(r); }));
  // At 20 Hz the band does not fit under the Nyquist frequency.
  const std::vector<float> slow(200, 0.0F);
  const std::vector<std::int64_t> peaks{10, 60, 120};
  const auto at_20 = zc::f_wave_rates(slow, peaks, 20.0);
  EXPECT_TRUE(std::all_of(at_20.begin(), at_20.end(), [](double r) { return std::isnan(r); }));
  EXPECT_TRUE(zc::f_wave_rates(slow, {}, 20.0).empty());
}

TEST(FWave, RefusesWhatItCannotMeasure) {
  const std::vector<float> signal(1000, 0.0F);
  const std::vector<std::int64_t> outside{10, 1000}, backwards{500, 400}, fine{100, 600};
  EXPECT_THROW((void)zc::f_wave_rates(signal, outside, rate), zeroflow::invalid_argument);
  EXPECT_THROW((void)zc::f_wave_rates(signal, backwards, rate), zeroflow::invalid_argument);
  EXPECT_THROW((void)zc::f_wave_rates(signal, fine, 0.0), zeroflow::invalid_argument);
  zc::f_wave_params inverted;
  inverted.band_low_hz = 20;
  EXPECT_THROW((void)zc::f_wave_rates(signal, fine, rate, inverted), zeroflow::invalid_argument);
}
