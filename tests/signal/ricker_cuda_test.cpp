// GPU band-pass and Ricker kernel against the host implementation: bit for bit (the GPU repeats
// the host's double operations in the host's order), on seeded random sizes around the kernel's
// tile (1792 outputs) and tap limit (1024 taps), with NaN and infinities, and every output
// element checked after poisoning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "zeroflow/signal/detail/ricker.hpp"
#include "zeroflow/signal/ricker.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

std::vector<float> random_signal(std::mt19937_64& rng, std::int64_t n, bool special) {
  std::normal_distribution<float> normal(0.3f, 2.0f);
  std::uniform_int_distribution<int> pick(0, 49);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (auto& v : x) {
    v = normal(rng);
    if (!special) continue;
    const int p = pick(rng);
    if (p == 0) v = std::numeric_limits<float>::quiet_NaN();
    if (p == 1) v = std::numeric_limits<float>::infinity();
    if (p == 2) v = -std::numeric_limits<float>::infinity();
    if (p == 3) v = 0.0f;
    if (p == 4) v = -0.0f;
    if (p == 5) v = 1e30f;
    if (p == 6) v = std::numeric_limits<float>::denorm_min();
  }
  return x;
}

// The host's documented order of operations, written out again: acc = 0; acc += h[k]·x[(m−k) mod n].
std::vector<float> direct_convolution(const std::vector<float>& x, std::int64_t width) {
  const auto taps = sig::detail::ricker_taps(width);
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<float> y(x.size());
  for (std::int64_t m = 0; m < n; ++m) {
    double acc = 0.0;
    for (std::int64_t k = 0; k < width; ++k) {
      const std::int64_t i = m - k < 0 ? m - k + n : m - k;
      acc += taps[static_cast<std::size_t>(k)] * static_cast<double>(x[static_cast<std::size_t>(i)]);
    }
    y[static_cast<std::size_t>(m)] = static_cast<float>(acc);
  }
  return y;
}

void expect_bandpass_matches(const std::vector<float>& x, std::int64_t width, const char* what) {
  const auto host = to_vector<float>(sig::bandpass(to_array(x), width, {}));
  const auto gpu = from_device<float>(sig::bandpass(to_device(x), width, {}));
  EXPECT_EQ(float_mismatch(gpu, host), "") << what << ": n=" << x.size() << " width=" << width;
}

}  // namespace

using SignalRickerCuda = cuda_signal_test;

TEST_F(SignalRickerCuda, KernelTapsMatchTheHost) {
  // 600 taps span the 2 KiB upload chunks of the parameter-block upload.
  for (std::int64_t width : {1, 2, 3, 29, 30, 31, 512, 600, 1025}) {
    const auto host = to_vector<float>(sig::ricker_kernel(width, zf::cpu_device, {}));
    const zf::array dev = sig::ricker_kernel(width, gpu0, {});
    ASSERT_EQ(dev.where(), gpu0);
    ASSERT_EQ(dev.type(), zf::float32);
    EXPECT_EQ(float_mismatch(from_device<float>(dev), host), "") << "width " << width;
  }
}

TEST_F(SignalRickerCuda, BandpassIsBitIdenticalToTheHost) {
  std::mt19937_64 rng(11);
  // Sizes below one tile, at tile boundaries and not multiples of the block size.
  const std::vector<std::int64_t> sizes{1, 2, 3, 7, 29, 30, 31, 255, 256, 257, 1791, 1792, 1793, 3583, 3585, 10007};
  for (std::int64_t n : sizes) {
    const auto x = random_signal(rng, n, false);
    for (std::int64_t width :
         {std::int64_t{1}, std::int64_t{2}, std::int64_t{7}, std::int64_t{8}, std::int64_t{30}, std::int64_t{31}, n}) {
      if (width > n) continue;
      expect_bandpass_matches(x, width, "sizes");
    }
  }
  for (int trial = 0; trial < 25; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 300000)(rng);
    const std::int64_t width = std::uniform_int_distribution<std::int64_t>(1, std::min<std::int64_t>(n, 1024))(rng);
    expect_bandpass_matches(random_signal(rng, n, false), width, "random");
  }
}

TEST_F(SignalRickerCuda, BandpassFollowsTheDocumentedOrderOfOperations) {
  // Independent of the host implementation: the documented loop, compiled here.
  std::mt19937_64 rng(12);
  for (std::int64_t n : {5, 1800, 40000}) {
    const auto x = random_signal(rng, n, false);
    for (std::int64_t width : {1, 4, 30}) {
      if (width > n) continue;
      const auto gpu = from_device<float>(sig::bandpass(to_device(x), width, {}));
      EXPECT_EQ(float_mismatch(gpu, direct_convolution(x, width)), "") << "n=" << n << " width=" << width;
    }
  }
}

TEST_F(SignalRickerCuda, BandpassWithNaNsAndInfinities) {
  poison_with(0x7F);  // NaN is a legitimate output here; the poison must not look like one
  std::mt19937_64 rng(13);
  for (std::int64_t n : {1, 30, 1792, 5000, 77777}) {
    const auto x = random_signal(rng, n, true);
    for (std::int64_t width : {1, 30, 101}) {
      if (width <= n) expect_bandpass_matches(x, width, "special values");
    }
  }
}

TEST_F(SignalRickerCuda, WideKernelsTakeTheGlobalMemoryPath) {
  std::mt19937_64 rng(14);
  for (std::int64_t width : {1024, 1025, 2000, 4097}) {  // tiled limit is 1024 taps
    for (std::int64_t n : {width, width + 1, std::int64_t{9000}}) {
      expect_bandpass_matches(random_signal(rng, n, false), width, "wide");
    }
  }
}

TEST_F(SignalRickerCuda, EmptyDeviceSignalIsRejectedBeforeTheKernel) {
  EXPECT_THROW((void)sig::bandpass(to_device(std::vector<float>{}), 1, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::bandpass(to_device(std::vector<float>(10, 1.0f)), 11, {}), zf::invalid_argument);
}
