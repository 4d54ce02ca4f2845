// minmax_decimate and absmax_decimate on the host against a plain loop per bucket, bit for bit:
// seeded random sizes (empty, 1 sample, buckets of 1, around a warp, longer than the signal),
// ties and signed zeros, strided views (step, negative, zero), and the argument checks.
#include "zeroflow/signal/decimate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

// The order of decimate.hpp spelled out independently: numbers, then −0 before +0.
bool earlier(float a, float b) { return a < b || (a == b && std::signbit(a) && !std::signbit(b)); }

struct reference {
  std::vector<float> lo, hi, peak;
};

reference naive(const std::vector<float>& x, std::int64_t bucket) {
  reference r;
  for (std::size_t first = 0; first < x.size(); first += static_cast<std::size_t>(bucket)) {
    const std::size_t last = std::min(x.size(), first + static_cast<std::size_t>(bucket));
    float lo = x[first], hi = x[first], peak = x[first];
    for (std::size_t i = first + 1; i < last; ++i) {
      if (earlier(x[i], lo)) lo = x[i];
      if (earlier(hi, x[i])) hi = x[i];
      const float a = std::fabs(x[i]), b = std::fabs(peak);
      if (a > b || (a == b && earlier(peak, x[i]))) peak = x[i];
    }
    r.lo.push_back(lo);
    r.hi.push_back(hi);
    r.peak.push_back(peak);
  }
  return r;
}

std::string mismatch(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return "sizes " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(want[i]))
      return "bucket " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs " + std::to_string(want[i]);
  return {};
}

/// The elements a (possibly strided) view shows, in order.
std::vector<float> shown(const zf::array& view) { return to_vector<float>(view); }

void expect_matches(const zf::array& signal, std::int64_t bucket, const std::string& what) {
  const auto want = naive(shown(signal), bucket);
  const zf::array mm = sig::minmax_decimate(signal, bucket, {});
  const zf::array peak = sig::absmax_decimate(signal, bucket, {});
  ASSERT_EQ(mm.shape(), (zf::shape_t{static_cast<std::int64_t>(want.lo.size()), 2})) << what;
  ASSERT_EQ(peak.shape(), (zf::shape_t{static_cast<std::int64_t>(want.lo.size())})) << what;
  EXPECT_EQ(mm.where(), zf::cpu_device);
  const auto pairs = shown(mm.reshape({mm.size()}));
  std::vector<float> lo, hi;
  for (std::size_t b = 0; 2 * b < pairs.size(); ++b) lo.push_back(pairs[2 * b]), hi.push_back(pairs[2 * b + 1]);
  EXPECT_EQ(mismatch(lo, want.lo), "") << what << " (min)";
  EXPECT_EQ(mismatch(hi, want.hi), "") << what << " (max)";
  EXPECT_EQ(mismatch(shown(peak), want.peak), "") << what << " (absmax)";
}

std::vector<float> random_signal(std::mt19937_64& rng, std::int64_t n, bool ties) {
  std::normal_distribution<float> normal(0, 2);
  std::uniform_int_distribution<int> small(-3, 3);
  std::bernoulli_distribution negative_zero(0.2);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (auto& v : x) {
    if (!ties) {
      v = normal(rng);
    } else {  // equal values, equal magnitudes of both signs, and both zeros
      v = static_cast<float>(small(rng));
      if (v == 0 && negative_zero(rng)) v = -0.0f;
    }
  }
  return x;
}

}  // namespace

using SignalDecimate = poisoned_host;

TEST_F(SignalDecimate, HandPickedBuckets) {
  const auto x = to_array<float>({3, -5, 5, 1, -0.0f, 0.0f, -2, 2, 7});
  const auto mm = to_vector<float>(sig::minmax_decimate(x, 4, {}).reshape({6}));
  EXPECT_EQ(mm, (std::vector<float>{-5, 5, -2, 2, 7, 7}));
  const auto peak = to_vector<float>(sig::absmax_decimate(x, 4, {}));
  EXPECT_EQ(peak, (std::vector<float>{5, 2, 7}));  // +5 wins over −5, +2 over −2; the short last bucket
  // Signed zeros: −0 is the minimum, +0 the maximum and the larger "magnitude".
  const auto zeros = to_array<float>({0.0f, -0.0f, 0.0f});
  const auto z = to_vector<float>(sig::minmax_decimate(zeros, 3, {}).reshape({2}));
  EXPECT_TRUE(std::signbit(z[0]));
  EXPECT_FALSE(std::signbit(z[1]));
  EXPECT_FALSE(std::signbit(to_vector<float>(sig::absmax_decimate(to_array<float>({-0.0f, 0.0f}), 2, {}))[0]));
  EXPECT_TRUE(std::signbit(to_vector<float>(sig::absmax_decimate(to_array<float>({-0.0f, -0.0f}), 5, {}))[0]));
  // Infinities are ordinary values.
  const auto inf = std::numeric_limits<float>::infinity();
  const auto i = to_vector<float>(sig::minmax_decimate(to_array<float>({1, -inf, inf}), 2, {}).reshape({4}));
  EXPECT_EQ(i, (std::vector<float>{-inf, 1, inf, inf}));
}

TEST_F(SignalDecimate, MatchesANaiveLoopOnRandomSizes) {
  std::mt19937_64 rng(61);
  const std::vector<std::int64_t> sizes = {0, 1, 2, 31, 32, 33, 1000, 4097, 65536 + 7};
  for (std::int64_t n : sizes) {
    for (std::int64_t bucket : {1, 2, 3, 5, 16, 31, 32, 33, 100, 4096, 5000, 1 << 20}) {
      for (bool ties : {false, true}) {
        const auto x = random_signal(rng, n, ties);
        expect_matches(to_array(x), bucket,
                       "n " + std::to_string(n) + ", bucket " + std::to_string(bucket) + (ties ? ", ties" : ""));
      }
    }
  }
  for (int trial = 0; trial < 40; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, trial < 30 ? 5000 : 400000)(rng);
    const std::int64_t bucket = std::uniform_int_distribution<std::int64_t>(1, trial % 2 ? 40 : n + 10)(rng);
    expect_matches(to_array(random_signal(rng, n, trial % 3 == 0)), bucket, "trial " + std::to_string(trial));
  }
}

TEST_F(SignalDecimate, BucketLongerThanTheSignalGivesOneBucket) {
  std::mt19937_64 rng(62);
  const auto x = random_signal(rng, 777, false);
  const auto mm = sig::minmax_decimate(to_array(x), 1000, {});
  ASSERT_EQ(mm.shape(), (zf::shape_t{1, 2}));
  const auto v = to_vector<float>(mm.reshape({2}));
  EXPECT_EQ(v[0], *std::min_element(x.begin(), x.end()));
  EXPECT_EQ(v[1], *std::max_element(x.begin(), x.end()));
}

TEST_F(SignalDecimate, BucketOfOneIsTheSignal) {
  std::mt19937_64 rng(63);
  const auto x = random_signal(rng, 1001, false);
  const auto mm = to_vector<float>(sig::minmax_decimate(to_array(x), 1, {}).reshape({2002}));
  const auto peak = to_vector<float>(sig::absmax_decimate(to_array(x), 1, {}));
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(mm[2 * i], x[i]);
    EXPECT_EQ(mm[2 * i + 1], x[i]);
  }
  EXPECT_EQ(peak, x);
}

TEST_F(SignalDecimate, StridedViews) {
  std::mt19937_64 rng(64);
  for (int trial = 0; trial < 12; ++trial) {
    const auto base = to_array(random_signal(rng, 3000 + trial, trial % 2 == 1));
    const std::int64_t bucket = std::uniform_int_distribution<std::int64_t>(1, 70)(rng);
    const std::string what = "trial " + std::to_string(trial) + ", bucket " + std::to_string(bucket);
    expect_matches(base.slice(0, 5, 2900, 3), bucket, what + ", step 3");
    expect_matches(base.slice(0, 2999, 10, -2), bucket, what + ", step -2");
  }
  // Zero stride: one sample seen n times.
  const auto one = to_array<float>({-1.5f});
  const zf::array repeated(one.owner(), zf::float32, {50}, zf::shape_t{0});
  expect_matches(repeated, 7, "zero stride");
}

TEST_F(SignalDecimate, RejectsBadArguments) {
  const auto x = to_array<float>({1, 2, 3, 4});
  EXPECT_THROW((void)sig::minmax_decimate(x, 0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::absmax_decimate(x, -3, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::minmax_decimate(x.reshape({2, 2}), 2, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::minmax_decimate(to_array<std::int64_t>({1, 2}), 2, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::absmax_decimate(zf::array{}, 2, {}), zf::invalid_argument);
}
