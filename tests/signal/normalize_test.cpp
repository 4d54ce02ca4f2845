#include "zeroflow/signal/normalize.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {
// Median by full sort, the mean of the middle two for an even count.
double sorted_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

sig::normalization reference(const std::vector<float>& x) {
  std::vector<double> finite;
  for (float v : x)
    if (std::isfinite(v)) finite.push_back(v);
  if (finite.empty()) return {0, 1};
  const double median = sorted_median(finite);
  std::vector<double> deviation;
  for (double v : finite) deviation.push_back(std::fabs(v - median));
  const double mad = sorted_median(deviation);
  double mean = 0, var = 0;
  for (double v : finite) mean += v;
  mean /= static_cast<double>(finite.size());
  for (double v : finite) var += (v - mean) * (v - mean);
  const double sd = std::sqrt(var / static_cast<double>(finite.size()));
  const double scale = mad > 0 ? 1.4826 * mad : sd > 0 ? sd : 1;
  return {static_cast<float>(median), static_cast<float>(scale)};
}
}  // namespace

using SignalNormalize = poisoned_host;

TEST_F(SignalNormalize, MatchesSortingOnRandomInputs) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 60; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 3001)(rng);
    const double gain = std::uniform_real_distribution<double>(0.001, 1000)(rng);
    const double offset = std::uniform_real_distribution<double>(-2000, 2000)(rng);
    std::normal_distribution<double> normal(0, 1);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = static_cast<float>(offset + gain * normal(rng));
    if (trial % 3 == 0) x[0] = std::numeric_limits<float>::quiet_NaN();
    if (trial % 4 == 0) x[static_cast<std::size_t>(n - 1)] = -std::numeric_limits<float>::infinity();
    const auto got = sig::robust_zscore(to_array(x), {});
    const auto want = reference(x);
    EXPECT_FLOAT_EQ(got.center, want.center) << "n=" << n;
    EXPECT_FLOAT_EQ(got.scale, want.scale) << "n=" << n;
  }
}

TEST_F(SignalNormalize, MatchesSortingOnLongInputsWithDuplicatesAndSignedZeros) {
  // Long enough for several threads; small integers, ±0 and a few huge values put many samples
  // in the same selection bucket and ranks on both sides of zero.
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 6; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(200000, 700000)(rng);
    std::vector<float> x(static_cast<std::size_t>(n));
    std::uniform_int_distribution<int> small(-3, 3 + trial), pick(0, 999);
    for (auto& v : x) {
      const int p = pick(rng);
      v = p == 0   ? -0.0f
          : p == 1 ? 3e38f
          : p == 2 ? -1e-40f
          : p == 3 ? std::numeric_limits<float>::quiet_NaN()
                   : static_cast<float>(small(rng)) * 0.25f;
    }
    const auto got = sig::robust_zscore(to_array(x), {});
    const auto want = reference(x);
    EXPECT_FLOAT_EQ(got.center, want.center) << "n=" << n;
    EXPECT_FLOAT_EQ(got.scale, want.scale) << "n=" << n;
  }
}

TEST_F(SignalNormalize, SmallCasesByHand) {
  auto z = [](std::vector<float> x) { return sig::robust_zscore(to_array(x), {}); };
  auto r = z({3, 1, 2});  // median 2, deviations 1 1 0 -> MAD 1
  EXPECT_EQ(r.center, 2.0f);
  EXPECT_FLOAT_EQ(r.scale, 1.4826f);
  r = z({4, 1, 2, 10});  // median 3, deviations 1 2 1 7 -> MAD 1.5
  EXPECT_EQ(r.center, 3.0f);
  EXPECT_FLOAT_EQ(r.scale, 1.4826f * 1.5f);
  r = z({1, 2, 100, -5});  // the middle values 1 and 2 lie in different selection buckets
  EXPECT_EQ(r.center, 1.5f);
  EXPECT_FLOAT_EQ(r.scale, 1.4826f * 3.5f);  // deviations 0.5 0.5 6.5 98.5
  r = z({1000, 1});                          // and with empty buckets between them
  EXPECT_EQ(r.center, 500.5f);
  EXPECT_FLOAT_EQ(r.scale, 1.4826f * 499.5f);
  r = z({5, 5, 5, 9});  // MAD 0 -> population sd of {5,5,5,9} = sqrt(3)
  EXPECT_EQ(r.center, 5.0f);
  EXPECT_FLOAT_EQ(r.scale, std::sqrt(3.0f));
  r = z({7, 7, 7});  // constant -> 1
  EXPECT_EQ(r.center, 7.0f);
  EXPECT_EQ(r.scale, 1.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  r = z({nan, inf, -inf});  // nothing finite
  EXPECT_EQ(r.center, 0.0f);
  EXPECT_EQ(r.scale, 1.0f);
  r = z({nan, 3, inf, 1, 2});  // non-finite samples are ignored
  EXPECT_EQ(r.center, 2.0f);
  EXPECT_FLOAT_EQ(r.scale, 1.4826f);
}

TEST_F(SignalNormalize, MillivoltsAndAdcUnitsGiveTheSameZScores) {
  std::mt19937_64 rng(8);
  std::normal_distribution<float> noise(0, 0.05f);
  std::vector<float> mv(5000), adc(5000);
  for (std::size_t i = 0; i < mv.size(); ++i) {
    mv[i] = (i % 200 == 0 ? 1.5f : 0.0f) + noise(rng);
    adc[i] = 1024.0f + 200.0f * mv[i];  // an ADC with 200 counts per mV around mid-scale
  }
  const auto a = sig::robust_zscore(to_array(mv), {});
  const auto b = sig::robust_zscore(to_array(adc), {});
  for (std::size_t i = 0; i < mv.size(); i += 37)
    EXPECT_NEAR((mv[i] - a.center) / a.scale, (adc[i] - b.center) / b.scale, 2e-3) << i;
}

TEST_F(SignalNormalize, StridedInputAndErrors) {
  const zf::array x = to_array(std::vector<float>{9, 1, 9, 2, 9, 3});
  const auto r = sig::robust_zscore(x.slice(0, 1, 6, 2), {});  // 1 2 3
  EXPECT_EQ(r.center, 2.0f);
  EXPECT_THROW((void)sig::robust_zscore(to_array(std::vector<float>{}), {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::robust_zscore(to_array(std::vector<double>{1.0}), {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::robust_zscore(x.reshape({2, 3}), {}), zf::invalid_argument);
}
