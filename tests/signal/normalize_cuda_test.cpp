// GPU robust z-score (radix-selected median and MAD) against the host implementation: the same
// floats, on seeded random sizes and distributions chosen to stress the selection (ties at the
// middle, even and odd counts, the two middle values in different buckets, ±0, huge dynamic
// range, values packed in a narrow band, NaN and infinities, misaligned views), and the
// MAD == 0 fallback.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "zeroflow/signal/normalize.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

enum class shape { normal, integers, wide_range, narrow_band, with_specials, signed_zeros, mostly_equal };

std::vector<float> make(std::mt19937_64& rng, std::int64_t n, shape kind) {
  std::normal_distribution<double> normal(0, 1);
  std::uniform_int_distribution<int> small(-2, 2), pick(0, 9);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (auto& v : x) {
    switch (kind) {
      case shape::normal:
        v = static_cast<float>(3.0 + 0.5 * normal(rng));
        break;
      case shape::integers:
        v = static_cast<float>(small(rng));
        break;                 // ties everywhere
      case shape::wide_range:  // magnitudes from 1e-30 to 1e30, both signs
        v = static_cast<float>((unit(rng) < 0.5 ? -1 : 1) * std::pow(10.0, -30 + 60 * unit(rng)));
        break;
      case shape::narrow_band:
        v = static_cast<float>(1024.0 + 0.01 * normal(rng));
        break;  // ADC counts, one binade
      case shape::with_specials: {
        const int p = pick(rng);
        v = p == 0   ? std::numeric_limits<float>::quiet_NaN()
            : p == 1 ? std::numeric_limits<float>::infinity()
            : p == 2 ? -std::numeric_limits<float>::infinity()
                     : static_cast<float>(normal(rng));
      } break;
      case shape::signed_zeros:
        v = pick(rng) < 4 ? (pick(rng) < 5 ? -0.0f : 0.0f) : static_cast<float>(normal(rng));
        break;
      case shape::mostly_equal:
        v = pick(rng) < 6 ? 7.25f : static_cast<float>(normal(rng));
        break;  // MAD == 0
    }
  }
  return x;
}

std::string describe(const sig::normalization& got, const sig::normalization& want) {
  return "GPU {" + std::to_string(got.center) + ", " + std::to_string(got.scale) + "} host {" +
         std::to_string(want.center) + ", " + std::to_string(want.scale) + "}";
}

void expect_matches(const zf::array& host_signal, const zf::array& device_signal, const std::string& what) {
  const auto want = sig::robust_zscore(host_signal, {});
  const auto got = sig::robust_zscore(device_signal, {});
  // == on the center: the host may return −0 where the GPU returns +0 (the same median).
  EXPECT_TRUE(got.center == want.center && same_float(got.scale, want.scale)) << what << ": " << describe(got, want);
}

void expect_matches(const std::vector<float>& x, const std::string& what) {
  expect_matches(to_array(x), to_device(x), what + " n=" + std::to_string(x.size()));
}

}  // namespace

using SignalNormalizeCuda = cuda_signal_test;

TEST_F(SignalNormalizeCuda, SmallCasesByHand) {
  const auto one = sig::robust_zscore(to_device(std::vector<float>{5.0f}), {});
  EXPECT_EQ(one.center, 5.0f);
  EXPECT_EQ(one.scale, 1.0f);  // MAD 0 and stddev 0: scale 1
  // 1 2 3 4 100: median 3, deviations 2 1 0 1 97 -> MAD 1
  const auto five = sig::robust_zscore(to_device(std::vector<float>{100, 2, 4, 1, 3}), {});
  EXPECT_EQ(five.center, 3.0f);
  EXPECT_EQ(five.scale, static_cast<float>(1.4826));
  // even count: median (2 + 10)/2 = 6, deviations 5 4 4 94 -> MAD (4 + 5)/2
  const auto four = sig::robust_zscore(to_device(std::vector<float>{10, 1, 2, 100}), {});
  EXPECT_EQ(four.center, 6.0f);
  EXPECT_EQ(four.scale, static_cast<float>(1.4826 * 4.5));
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const auto none = sig::robust_zscore(to_device(std::vector<float>{nan, inf, -inf}), {});
  EXPECT_EQ(none.center, 0.0f);
  EXPECT_EQ(none.scale, 1.0f);
}

TEST_F(SignalNormalizeCuda, MatchesTheHostOnEveryShape) {
  std::mt19937_64 rng(41);
  const std::vector<std::int64_t> fixed{1, 2, 3, 4, 5, 6, 7, 8, 31, 32, 33, 1000, 1001, 65536, 65537};
  for (shape kind : {shape::normal, shape::integers, shape::wide_range, shape::narrow_band, shape::with_specials,
                     shape::signed_zeros, shape::mostly_equal}) {
    for (std::int64_t n : fixed) expect_matches(make(rng, n, kind), "shape " + std::to_string(static_cast<int>(kind)));
    for (int trial = 0; trial < 12; ++trial) {
      const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 400000)(rng);
      expect_matches(make(rng, n, kind), "random shape " + std::to_string(static_cast<int>(kind)));
    }
  }
}

TEST_F(SignalNormalizeCuda, MiddleValuesInDifferentBuckets) {
  // Even counts whose two middle values L < U differ in the top digit of the key (bits 31..19),
  // only in the middle one (18..6) or only in the last (5..0): the lower value is then resolved
  // at a different level of the selection each time.
  auto ulps_above = [](float v, int k) {
    for (int i = 0; i < k; ++i) v = std::nextafter(v, 1e30f);
    return v;
  };
  const std::vector<std::pair<float, float>> middles{
      {-1.0f, 1.0f}, {3.0f, ulps_above(3.0f, 100)}, {3.0f, ulps_above(3.0f, 1)}};
  for (const auto& [lower, upper] : middles) {
    std::vector<float> x;
    for (int i = 0; i < 3000; ++i) x.push_back(lower - 0.01f * static_cast<float>(i));
    for (int i = 0; i < 3000; ++i) x.push_back(upper + 0.01f * static_cast<float>(i));
    expect_matches(x, "middles " + std::to_string(lower) + " " + std::to_string(upper));
    x.push_back(upper);  // odd count: the upper value alone
    expect_matches(x, "odd");
  }
  // Neighbouring floats: identical in every digit but the last.
  std::vector<float> y;
  float v = 3.0f;
  for (int i = 0; i < 4000; ++i) {
    y.push_back(v);
    v = std::nextafter(v, 4.0f);
  }
  expect_matches(y, "adjacent floats");
  // Symmetric around the median: pairs of equal deviations.
  std::vector<float> z{0.0f};
  for (int i = 1; i <= 3000; ++i) {
    z.push_back(static_cast<float>(i));
    z.push_back(-static_cast<float>(i) - 0.5f);
  }
  expect_matches(z, "symmetric");
}

TEST_F(SignalNormalizeCuda, LongRecordingAndMisalignedViews) {
  std::mt19937_64 rng(42);
  const auto x = make(rng, 5000003, shape::narrow_band);
  expect_matches(x, "long");
  const zf::array host = to_array(x);
  const zf::array dev = to_device(x);
  for (std::int64_t offset : {1, 2, 3}) {  // data not on a 16-byte boundary: scalar head and tail
    expect_matches(host.slice(0, offset, 4000000 + offset), dev.slice(0, offset, 4000000 + offset),
                   "offset " + std::to_string(offset));
  }
  const auto small = make(rng, 7, shape::normal);
  for (std::int64_t offset : {1, 2, 3})
    expect_matches(to_array(small).slice(0, offset, 7), to_device(small).slice(0, offset, 7), "tiny view");
}

TEST_F(SignalNormalizeCuda, FlatAndClippedRecordingsUseTheStandardDeviation) {
  std::vector<float> flat(100000, -2.5f);
  expect_matches(flat, "flat");  // MAD 0, stddev 0: scale 1
  std::mt19937_64 rng(43);
  auto clipped = make(rng, 300001, shape::normal);
  for (std::size_t i = 0; i < clipped.size(); i += 3) clipped[i] = 5.0f;
  for (std::size_t i = 1; i < clipped.size(); i += 3) clipped[i] = 5.0f;
  expect_matches(clipped, "clipped");
}
