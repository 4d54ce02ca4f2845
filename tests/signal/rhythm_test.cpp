// rhythm_features against a double-precision re-computation of rhythm.hpp's definitions
// (robust_reference.hpp): R–R before and after, the median of up to 16 neighbouring intervals and
// the irregularity, on seeded random rhythms at several sample rates; 0, 1 and 2 beats; a
// premature beat with a compensatory pause worked out by hand; strided peaks; refused input.
#include "zeroflow/signal/rhythm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "signal/robust_reference.hpp"
#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

/// Intervals are float(samples) · float(1 / rate): two roundings. The irregularity is a sum of
/// two logarithms of ratios of such intervals, so its error is absolute.
constexpr double interval_tolerance = 3.0e-7;
constexpr double irregularity_tolerance = 2.0e-6;

void expect_rhythm_matches(const sig::rhythm& got, const std::vector<std::int64_t>& peaks, double rate,
                           const std::string& what) {
  const auto want = ref_rhythm(peaks, rate);
  const struct {
    const zf::array& got;
    const std::vector<double>& want;
    const char* name;
    bool relative;
  } fields[] = {{got.rr_before, want.rr_before, "rr_before", true},
                {got.rr_after, want.rr_after, "rr_after", true},
                {got.local_rr, want.local_rr, "local_rr", true},
                {got.irregularity, want.irregularity, "irregularity", false}};
  for (const auto& f : fields) {
    ASSERT_EQ(f.got.type(), zf::float32) << what << ": " << f.name;
    ASSERT_EQ(f.got.where(), zf::cpu_device) << what << ": " << f.name;
    const auto values = to_vector<float>(f.got);
    ASSERT_EQ(values.size(), peaks.size()) << what << ": " << f.name;
    int failures = 0;
    for (std::size_t b = 0; b < values.size() && failures < 5; ++b) {
      const double tolerance = f.relative ? interval_tolerance * std::fabs(f.want[b]) : irregularity_tolerance;
      if (!(std::fabs(static_cast<double>(values[b]) - f.want[b]) <= tolerance)) {
        ++failures;
        ADD_FAILURE() << what << ": " << f.name << "[" << b << "] = " << values[b] << ", want " << f.want[b];
      }
    }
  }
}

/// Ascending peaks: a rhythm with slow variation, premature beats (early, then a long pause),
/// runs of identical intervals (ties in the median) and rare long gaps.
std::vector<std::int64_t> random_rhythm(std::mt19937_64& rng, std::size_t count, double rate) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::int64_t> peaks;
  std::int64_t at = std::uniform_int_distribution<std::int64_t>(0, 1000)(rng);
  const double mean_rr = std::uniform_real_distribution<double>(0.33, 1.5)(rng);
  for (std::size_t i = 0; i < count; ++i) {
    peaks.push_back(at);
    const double u = unit(rng);
    double rr = mean_rr * (1.0 + 0.1 * std::sin(0.3 * static_cast<double>(i)));
    if (u < 0.1)
      rr *= 0.6;  // premature
    else if (u < 0.15)
      rr *= 1.6;  // pause
    else if (u < 0.17)
      rr *= 5.0;  // dropout
    else if (u < 0.4)
      rr = mean_rr;  // exact repeats
    at += std::max<std::int64_t>(1, std::llround(rr * rate));
  }
  return peaks;
}

}  // namespace

using SignalRhythm = poisoned_host;

TEST_F(SignalRhythm, MatchesTheDefinitionsOnRandomRhythms) {
  std::mt19937_64 rng(821);
  for (int trial = 0; trial < 40; ++trial) {
    const double rate = std::vector<double>{128, 250, 360, 500, 1000}[static_cast<std::size_t>(trial % 5)];
    const auto count = std::uniform_int_distribution<std::size_t>(2, trial < 30 ? 60 : 5000)(rng);
    const auto peaks = random_rhythm(rng, count, rate);
    expect_rhythm_matches(sig::rhythm_features(to_array(peaks), rate, {}), peaks, rate,
                          "trial " + std::to_string(trial));
    if (HasFailure()) return;
  }
}

TEST_F(SignalRhythm, NoneOneAndTwoBeats) {
  const auto none = sig::rhythm_features(to_array(std::vector<std::int64_t>{}), 250, {});
  for (const zf::array* a : {&none.rr_before, &none.rr_after, &none.local_rr, &none.irregularity}) {
    ASSERT_TRUE(a->valid());
    EXPECT_EQ(a->shape(), (zf::shape_t{0}));
  }
  const auto one = sig::rhythm_features(to_array(std::vector<std::int64_t>{1234}), 250, {});
  for (const zf::array* a : {&one.rr_before, &one.rr_after, &one.local_rr, &one.irregularity})
    EXPECT_EQ(to_vector<float>(*a), std::vector<float>{0.0F});
  // Two beats 0.8 s apart: both see that one interval on either side and as their local rhythm.
  const std::vector<std::int64_t> two{100, 300};
  const auto r = sig::rhythm_features(to_array(two), 250, {});
  for (const zf::array* a : {&r.rr_before, &r.rr_after, &r.local_rr})
    for (float v : to_vector<float>(*a)) EXPECT_NEAR(v, 0.8, 0.8 * interval_tolerance);
  EXPECT_EQ(to_vector<float>(r.irregularity), (std::vector<float>{0.0F, 0.0F}));
  expect_rhythm_matches(r, two, 250, "two beats");
}

TEST_F(SignalRhythm, PrematureBeatWithCompensatoryPause) {
  // A steady 1 s rhythm at 250 Hz with beat 20 coming 0.6 s after beat 19 and beat 21 1.4 s
  // after it. The local rhythm of every beat is 1 s (16 neighbouring intervals, two of them
  // unusual), so only beat 20 is irregular: ln(1 / 0.6) + ln(1.4 / 0.6).
  std::vector<std::int64_t> peaks;
  for (int b = 0; b < 41; ++b) peaks.push_back(500 + 250 * b - (b == 20 ? 100 : 0));
  const auto r = sig::rhythm_features(to_array(peaks), 250, {});
  const auto irregularity = to_vector<float>(r.irregularity);
  const auto local = to_vector<float>(r.local_rr);
  for (std::size_t b = 0; b < peaks.size(); ++b) {
    EXPECT_NEAR(local[b], 1.0, 1e-6) << b;
    if (b == 20) {
      EXPECT_NEAR(irregularity[b], std::log(1 / 0.6) + std::log(1.4 / 0.6), 2e-6);
    } else {
      EXPECT_NEAR(irregularity[b], 0.0, 1e-6) << b;  // beat 21 comes late and is followed by a normal beat
    }
  }
  EXPECT_NEAR(to_vector<float>(r.rr_before)[20], 0.6, 1e-6);
  EXPECT_NEAR(to_vector<float>(r.rr_after)[20], 1.4, 1e-6);
  expect_rhythm_matches(r, peaks, 250, "premature ventricular beat");
  // An atrial premature beat: early, but the next beat follows one normal interval later.
  peaks.clear();
  for (int b = 0; b < 41; ++b) peaks.push_back(250 * b + (b >= 20 ? -100 : 0));
  const auto apb = to_vector<float>(sig::rhythm_features(to_array(peaks), 250, {}).irregularity);
  EXPECT_NEAR(apb[20], std::log(1 / 0.6) + std::log(1.0 / 0.6), 2e-6);
}

TEST_F(SignalRhythm, TheMedianUsesAtMostEightIntervalsOnEitherSide) {
  // Intervals of 1 s, except 0.5 s for k < 12 and 2 s from k = 30 on: beat 20's window k in
  // [12, 28) holds only 1 s intervals, beat 21's [13, 29) too, beat 22's [14, 30) too, while beat
  // 10's window [2, 18) is 10 short and 6 normal intervals: median 0.5.
  std::vector<std::int64_t> peaks{0};
  for (int k = 0; k < 40; ++k) peaks.push_back(peaks.back() + (k < 12 ? 180 : k < 30 ? 360 : 720));
  const auto local = to_vector<float>(sig::rhythm_features(to_array(peaks), 360, {}).local_rr);
  EXPECT_NEAR(local[20], 1.0, 1e-6);
  EXPECT_NEAR(local[22], 1.0, 1e-6);
  EXPECT_NEAR(local[10], 0.5, 1e-6);
  EXPECT_NEAR(local[26], 1.0, 1e-6);  // [18, 34): 12 of 1 s, 4 of 2 s
  EXPECT_NEAR(local[40], 2.0, 1e-6);  // the last beat: [32, 40) all 2 s
  expect_rhythm_matches(sig::rhythm_features(to_array(peaks), 360, {}), peaks, 360, "windows");
}

TEST_F(SignalRhythm, StridedPeaksAndRefusedInput) {
  std::mt19937_64 rng(822);
  const auto peaks = random_rhythm(rng, 300, 250);
  std::vector<std::int64_t> interleaved;
  for (auto p : peaks) interleaved.push_back(p), interleaved.push_back(-1);
  const auto strided = to_array(interleaved).slice(0, 0, static_cast<std::int64_t>(interleaved.size()), 2);
  expect_rhythm_matches(sig::rhythm_features(strided, 250, {}), peaks, 250, "strided");

  const auto p = to_array(peaks);
  EXPECT_THROW((void)sig::rhythm_features(p, 0.0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::rhythm_features(p, -250.0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::rhythm_features(p, std::numeric_limits<double>::quiet_NaN(), {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::rhythm_features(p, std::numeric_limits<double>::infinity(), {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::rhythm_features(to_array(std::vector<float>{1, 2}), 250, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::rhythm_features(p.reshape({2, 150}), 250, {}), zf::invalid_argument);
}
