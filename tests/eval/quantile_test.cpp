// eval::quantile and eval::tukey_fence_of against quartiles worked out by hand, and against a full
// sort with the interpolation written out on seeded random inputs (the selection is what differs).
#include "zeroflow/eval/quantile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace ev = zeroflow::eval;

namespace {

/// The q-quantile by a full sort: the order statistics at floor and ceil of q (n - 1), weighted.
double sorted_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(at);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

TEST(Quantile, QuartilesOfFourValuesWorkedByHand) {
  // Sorted 1 2 3 4: Q1 at index 0.75 = 1 + 0.75 = 1.75, Q3 at index 2.25 = 3 + 0.25 = 3.25,
  // the median at 1.5 = 2.5; given out of order.
  const std::vector<float> v{4.0f, 1.0f, 3.0f, 2.0f};
  EXPECT_EQ(ev::quantile(std::span<const float>(v), 0.25), 1.75);
  EXPECT_EQ(ev::quantile(std::span<const float>(v), 0.5), 2.5);
  EXPECT_EQ(ev::quantile(std::span<const float>(v), 0.75), 3.25);
  EXPECT_EQ(ev::quantile(std::span<const float>(v), 0.0), 1.0);
  EXPECT_EQ(ev::quantile(std::span<const float>(v), 1.0), 4.0);
  // IQR 1.5: fences 1.5 IQR = 2.25 beyond the quartiles.
  const ev::tukey_fence f = ev::tukey_fence_of(std::span<const float>(v));
  EXPECT_EQ(f.q1, 1.75);
  EXPECT_EQ(f.q3, 3.25);
  EXPECT_EQ(f.upper(), 5.5);
  EXPECT_EQ(f.lower(), -0.5);
  const ev::tukey_fence wide = ev::tukey_fence_of(std::span<const float>(v), 3.0);
  EXPECT_EQ(wide.upper(), 7.75);
}

TEST(Quantile, TiesAndASingleValue) {
  const std::vector<double> one{7.5};
  EXPECT_EQ(ev::quantile(std::span<const double>(one), 0.3), 7.5);
  const ev::tukey_fence f = ev::tukey_fence_of(std::span<const double>(one));
  EXPECT_EQ(f.lower(), 7.5);
  EXPECT_EQ(f.upper(), 7.5);
  // Sorted 0 0 0 0 9: Q3 at index 3 is 0; the one large value lies above the fence 0.
  const std::vector<float> tied{0, 9, 0, 0, 0};
  EXPECT_EQ(ev::tukey_fence_of(std::span<const float>(tied)).upper(), 0.0);
}

TEST(Quantile, NanGivesNanAsNumPy) {
  const std::vector<float> v{1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f};
  EXPECT_TRUE(std::isnan(ev::quantile(std::span<const float>(v), 0.5)));
  EXPECT_TRUE(std::isnan(ev::tukey_fence_of(std::span<const float>(v)).upper()));
}

TEST(Quantile, RefusesNoValuesAndQOutsideTheUnitInterval) {
  const std::vector<float> none;
  const std::vector<float> v{1.0f, 2.0f};
  EXPECT_THROW((void)ev::quantile(std::span<const float>(none), 0.5), zf::invalid_argument);
  EXPECT_THROW((void)ev::tukey_fence_of(std::span<const float>(none)), zf::invalid_argument);
  EXPECT_THROW((void)ev::quantile(std::span<const float>(v), -0.1), zf::invalid_argument);
  EXPECT_THROW((void)ev::quantile(std::span<const float>(v), 1.5), zf::invalid_argument);
  EXPECT_THROW((void)ev::quantile(std::span<const float>(v), std::nan("")), zf::invalid_argument);
  EXPECT_THROW((void)ev::tukey_fence_of(std::span<const float>(v), -1.0), zf::invalid_argument);
}

TEST(Quantile, AgreesWithAFullSortOnRandomInputs) {
  std::mt19937_64 rng(29);
  std::lognormal_distribution<float> skewed(0.0f, 2.0f);  // like reconstruction errors
  for (int round = 0; round < 50; ++round) {
    const auto n = static_cast<std::size_t>(1 + rng() % 2000);
    std::vector<float> v(n);
    for (auto& x : v) x = round % 5 == 0 ? static_cast<float>(rng() % 4) : skewed(rng);  // ties every fifth round
    const std::vector<double> wide(v.begin(), v.end());
    for (double q : {0.0, 0.05, 0.25, 0.5, 0.75, 0.9, 1.0}) {
      const double want = sorted_quantile(wide, q);
      EXPECT_NEAR(ev::quantile(std::span<const float>(v), q), want, 1e-12 * std::max(1.0, std::abs(want)))
          << "n " << n << " q " << q;
      EXPECT_EQ(ev::quantile(std::span<const float>(v), q), ev::quantile(std::span<const double>(wide), q));
    }
    // Float inputs and quartiles: every step is exact in double, so the fence is exactly the sort's.
    const ev::tukey_fence f = ev::tukey_fence_of(std::span<const float>(v));
    EXPECT_EQ(f.q1, sorted_quantile(wide, 0.25));
    EXPECT_EQ(f.q3, sorted_quantile(wide, 0.75));
  }
}

/// `n` lognormal float32 values (like reconstruction errors) in a host array.
zf::array skewed_array(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<float> skewed(0.0f, 2.0f);
  zf::array a = zf::empty({n}, zf::float32);
  for (float& x : a.span<float>()) x = skewed(rng);
  return a;
}

TEST(Quantile, ArraysOfAnyStrideAsTheirValues) {
  const zf::array a = skewed_array(1001, 7);
  const zf::array every_third = a.slice(0, 0, 1001, 3);
  std::vector<float> picked;
  for (std::int64_t i = 0; i < 1001; i += 3) picked.push_back(a.span<const float>()[static_cast<std::size_t>(i)]);
  for (double q : {0.05, 0.25, 0.5, 0.75}) {
    EXPECT_EQ(ev::quantile(every_third, q, {}), ev::quantile(std::span<const float>(picked), q));
    EXPECT_EQ(ev::quantile(a, q, {}), ev::quantile(a.span<const float>(), q));
  }
  const ev::tukey_fence f = ev::tukey_fence_of(every_third, 2.0, {});
  EXPECT_EQ(f.q1, ev::quantile(std::span<const float>(picked), 0.25));
  EXPECT_EQ(f.upper(), ev::tukey_fence_of(std::span<const float>(picked), 2.0).upper());
  EXPECT_THROW((void)ev::quantile(zf::empty({2, 2}, zf::float32), 0.5, {}), zf::invalid_argument);
  EXPECT_THROW((void)ev::quantile(zf::empty({4}, zf::int32), 0.5, {}), zf::invalid_argument);
  EXPECT_THROW((void)ev::quantile(zf::empty({0}, zf::float64), 0.5, {}), zf::invalid_argument);
}

TEST(Quantile, OnAGpuAsOnTheHost) {
  if (!zf::cuda_available()) GTEST_SKIP() << "needs a GPU";
  for (std::int64_t n : {1, 2, 5, 4096, 100003}) {
    const zf::array host = skewed_array(n, static_cast<std::uint64_t>(n));
    const zf::array gpu = zf::copy_to(host, zf::cuda_device(0));
    for (double q : {0.0, 0.05, 0.25, 0.5, 0.75, 1.0})
      EXPECT_EQ(ev::quantile(gpu, q, {}), ev::quantile(host.span<const float>(), q)) << n << " " << q;
    const ev::tukey_fence f = ev::tukey_fence_of(gpu.slice(0, 0, n, 2), ev::tukey_k, {});
    EXPECT_EQ(f.upper(), ev::tukey_fence_of(host.slice(0, 0, n, 2), ev::tukey_k, {}).upper()) << n;
  }
  zf::array with_nan = skewed_array(64, 1);
  with_nan.span<float>()[10] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(ev::quantile(zf::copy_to(with_nan, zf::cuda_device(0)), 0.5, {})));
}

}  // namespace
