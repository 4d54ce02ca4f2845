// GPU gate positions, beat lengths, length histogram and R-peak search against the host
// implementation, every element, on seeded random inputs of many sizes (empty included).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "zeroflow/signal/beats.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

std::vector<std::uint8_t> random_gate(std::mt19937_64& rng, std::int64_t n, double density) {
  std::vector<std::uint8_t> gate(static_cast<std::size_t>(n));
  std::bernoulli_distribution one(density), two(0.05);
  for (auto& g : gate) g = one(rng) ? 1 : (two(rng) ? 2 : 0);  // 2 must not count
  return gate;
}

std::vector<std::int64_t> sorted_positions(std::mt19937_64& rng, std::int64_t count, std::int64_t gap_max) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(count));
  std::uniform_int_distribution<std::int64_t> gap(1, gap_max);
  std::int64_t at = std::uniform_int_distribution<std::int64_t>(0, 50)(rng);
  for (auto& v : p) v = at += gap(rng);
  return p;
}

}  // namespace

using SignalBeatsCuda = cuda_signal_test;

TEST_F(SignalBeatsCuda, GatePositionsMatchTheHost) {
  std::mt19937_64 rng(31);
  std::vector<std::int64_t> sizes{0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 4095, 4096, 4097};
  for (int i = 0; i < 20; ++i) sizes.push_back(std::uniform_int_distribution<std::int64_t>(0, 3000000)(rng));
  for (std::int64_t n : sizes) {
    for (double density : {0.0, 0.004, 0.3, 1.0}) {
      const auto gate = random_gate(rng, n, density);
      const auto host = to_vector<std::int64_t>(sig::gate_positions(to_array(gate), {}));
      const zf::array dev = sig::gate_positions(to_device(gate), {});
      ASSERT_EQ(dev.type(), zf::int64);
      ASSERT_EQ(int_mismatch(from_device<std::int64_t>(dev), host), "") << "n=" << n << " density=" << density;
    }
  }
}

TEST_F(SignalBeatsCuda, BoolGates) {
  std::mt19937_64 rng(32);
  const std::int64_t n = 100003;
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n));
  for (auto& b : bytes) b = std::bernoulli_distribution(0.2)(rng) ? 1 : 0;
  zf::array host_gate = zf::empty({n}, zf::bool8, zf::cpu_device, {});
  std::copy(bytes.begin(), bytes.end(), static_cast<std::uint8_t*>(host_gate.data()));
  const auto host = to_vector<std::int64_t>(sig::gate_positions(host_gate, {}));
  const auto gpu = from_device<std::int64_t>(sig::gate_positions(zf::copy_to(host_gate, gpu0, {}), {}));
  EXPECT_EQ(int_mismatch(gpu, host), "");
}

TEST_F(SignalBeatsCuda, LengthsMatchTheHost) {
  std::mt19937_64 rng(33);
  for (std::int64_t count : {0, 1, 2, 3, 255, 256, 257, 100000, 1234567}) {
    const auto p = sorted_positions(rng, count, 400);
    const auto host = to_vector<std::int64_t>(sig::beat_lengths(to_array(p), {}));
    EXPECT_EQ(int_mismatch(from_device<std::int64_t>(sig::beat_lengths(to_device(p), {})), host), "") << count;
  }
}

TEST_F(SignalBeatsCuda, HistogramMatchesTheHost) {
  std::mt19937_64 rng(34);
  // Shared-memory counters up to 8192 bins, global atomics beyond.
  for (std::int64_t bins : {1, 2, 3, 513, 8191, 8192, 8193, 100000}) {
    for (std::int64_t count : {0, 1, 1000, 777777}) {
      std::vector<std::int64_t> lengths(static_cast<std::size_t>(count));
      std::uniform_int_distribution<std::int64_t> length(-3, 2 * bins + 5);  // negatives are not counted
      for (auto& l : lengths) l = length(rng);
      if (count > 10) lengths[3] = std::numeric_limits<std::int64_t>::max();
      const auto host = to_vector<std::int64_t>(sig::length_histogram(to_array(lengths), bins, {}));
      const zf::array dev = sig::length_histogram(to_device(lengths), bins, {});
      ASSERT_EQ(dev.type(), zf::int64);
      ASSERT_EQ(int_mismatch(from_device<std::int64_t>(dev), host), "") << "bins=" << bins << " count=" << count;
    }
  }
  // Many equal lengths (contention on one counter), as real beats give.
  const std::vector<std::int64_t> same(500000, 200);
  EXPECT_EQ(int_mismatch(from_device<std::int64_t>(sig::length_histogram(to_device(same), 513, {})),
                         to_vector<std::int64_t>(sig::length_histogram(to_array(same), 513, {}))),
            "");
}

TEST_F(SignalBeatsCuda, PeaksMatchTheHost) {
  std::mt19937_64 rng(35);
  std::normal_distribution<float> normal(0.2f, 1.0f);
  for (int trial = 0; trial < 40; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 200000)(rng);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = normal(rng);
    if (trial % 3 == 0) {  // NaNs, infinities and ties
      for (int k = 0; k < n / 20 + 1; ++k) {
        const auto i = static_cast<std::size_t>(std::uniform_int_distribution<std::int64_t>(0, n - 1)(rng));
        x[i] = k % 3 == 0   ? std::numeric_limits<float>::quiet_NaN()
               : k % 3 == 1 ? std::numeric_limits<float>::infinity()
                            : 1.5f;
      }
    }
    // Positions anywhere, including ones whose search window leaves the signal at either end.
    const std::int64_t count = std::uniform_int_distribution<std::int64_t>(0, 3000)(rng);
    std::vector<std::int64_t> p(static_cast<std::size_t>(count));
    for (auto& v : p) v = std::uniform_int_distribution<std::int64_t>(-300, n + 300)(rng);
    std::sort(p.begin(), p.end());
    const std::int64_t window = std::uniform_int_distribution<std::int64_t>(1, 400)(rng);
    const std::int64_t width = std::uniform_int_distribution<std::int64_t>(1, 60)(rng);
    const float center = trial % 2 == 0 ? 0.0f : normal(rng);
    const auto host = to_vector<std::int64_t>(sig::locate_peaks(to_array(x), to_array(p), window, width, center, {}));
    const auto gpu =
        from_device<std::int64_t>(sig::locate_peaks(to_device(x), to_device(p), window, width, center, {}));
    ASSERT_EQ(int_mismatch(gpu, host), "") << "trial " << trial << " n=" << n;
  }
}

TEST_F(SignalBeatsCuda, MixedDevicesAreRejected) {
  const std::vector<float> x(100, 1.0f);
  const std::vector<std::int64_t> p{1, 2};
  EXPECT_THROW((void)sig::locate_peaks(to_device(x), to_array(p), 10, 3, 0.0f, {}), zf::invalid_argument);
}
