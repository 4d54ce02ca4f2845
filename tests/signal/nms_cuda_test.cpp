// GPU NMS gate and the fused band-pass + gate against the host implementation, element for
// element, on seeded random sizes and windows (within one tile, across tiles, N == window, the
// tiled limit of 1536 and the global-memory fallback above it), plateaus and special values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "signal/detail_cuda/bandpass_gate.hpp"
#include "zeroflow/signal/beats.hpp"
#include "zeroflow/signal/nms.hpp"
#include "zeroflow/signal/ricker.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

enum class values { smooth, plateaus, special };

std::vector<float> random_values(std::mt19937_64& rng, std::int64_t n, values kind) {
  std::normal_distribution<float> normal(0, 1);
  std::uniform_int_distribution<int> small(0, 3), pick(0, 19);
  std::vector<float> x(static_cast<std::size_t>(n));
  const double phase = std::uniform_real_distribution<double>(0, 6)(rng);
  for (std::size_t i = 0; i < x.size(); ++i) {
    switch (kind) {
      case values::smooth:  // beat-like bumps plus noise: sparse gates, as for an ECG
        x[i] = 4.0f * static_cast<float>(std::sin(phase + 0.031 * static_cast<double>(i))) + 0.3f * normal(rng);
        break;
      case values::plateaus:
        x[i] = static_cast<float>(small(rng));
        break;
      case values::special: {
        const int p = pick(rng);
        x[i] = p == 0   ? std::numeric_limits<float>::quiet_NaN()
               : p == 1 ? std::numeric_limits<float>::infinity()
               : p == 2 ? -std::numeric_limits<float>::infinity()
               : p == 3 ? -0.0f
                        : static_cast<float>(small(rng));
      } break;
    }
  }
  return x;
}

void expect_gate_matches(const std::vector<float>& x, std::int64_t window, const char* what) {
  const auto host = to_vector<std::uint8_t>(sig::nms_gate(to_array(x), window, {}));
  const zf::array dev = sig::nms_gate(to_device(x), window, {});
  ASSERT_EQ(dev.type(), zf::uint8);
  EXPECT_EQ(int_mismatch(from_device<std::uint8_t>(dev), host), "")
      << what << ": n=" << x.size() << " window=" << window;
}

// The fused kernel on x (or on a view `skip` elements into a device copy of x, which moves the
// input's alignment), against the host's band-pass, gate and gate positions.
void expect_fused_matches(const std::vector<float>& x, std::int64_t width, std::int64_t window, const char* what,
                          std::int64_t skip = 0) {
  const std::vector<float> tail(x.begin() + skip, x.end());
  const zf::array host_filtered = sig::bandpass(to_array(tail), width, {});
  const zf::array host_gate = sig::nms_gate(host_filtered, window, {});
  const zf::array input = to_device(x).slice(0, skip, static_cast<std::int64_t>(x.size()));
  const auto fused = sig::detail::bandpass_gate_cuda(input, width, window, {});
  const auto shape = [&] {
    return std::string(what) + ": n=" + std::to_string(tail.size()) + " width=" + std::to_string(width) +
           " window=" + std::to_string(window) + " skip=" + std::to_string(skip);
  };
  EXPECT_EQ(float_mismatch(from_device<float>(fused.filtered), to_vector<float>(host_filtered)), "")
      << shape() << " filtered";
  EXPECT_EQ(int_mismatch(from_device<std::uint8_t>(fused.gate), to_vector<std::uint8_t>(host_gate)), "")
      << shape() << " gate";
  // The positions from the kernel's counts per block (fused sizes only).
  if (!fused.block_ones.valid()) {
    EXPECT_THROW((void)sig::detail::fused_gate_positions(fused, {}), zf::invalid_argument) << shape();
    return;
  }
  const auto expected = to_vector<std::int64_t>(sig::gate_positions(host_gate, {}));
  EXPECT_EQ(int_mismatch(from_device<std::int64_t>(sig::detail::fused_gate_positions(fused, {})), expected), "")
      << shape() << " positions";
  // Without the read-back, into buffers too small, exact and too large: the first positions that
  // fit, the clamped count and the true count.
  const auto count = static_cast<std::int64_t>(expected.size());
  for (const std::int64_t capacity : {count / 2, count, count + 7}) {
    zf::array counters = zf::zeros({2}, zf::int64, input.where(), {});
    auto* live = counters.data_as<std::int64_t>();
    const zf::array positions = sig::detail::fused_gate_positions_live(
        fused, capacity, live, reinterpret_cast<unsigned long long*>(live + 1), {});
    ASSERT_EQ(positions.size(), capacity);
    const std::int64_t fits = std::min(count, capacity);
    EXPECT_EQ(int_mismatch(from_device<std::int64_t>(positions.slice(0, 0, fits)),
                           std::vector<std::int64_t>(expected.begin(), expected.begin() + fits)),
              "")
        << shape() << " capacity " << capacity;
    EXPECT_EQ(from_device<std::int64_t>(counters), (std::vector<std::int64_t>{fits, count}))
        << shape() << " capacity " << capacity;
  }
}

}  // namespace

using SignalNmsCuda = cuda_signal_test;

TEST_F(SignalNmsCuda, HandWorkedCases) {
  const std::vector<float> x{0, 1, 3, 3, 1, 0, 0};
  EXPECT_EQ(from_device<std::uint8_t>(sig::nms_gate(to_device(x), 3, {})), (std::vector<std::uint8_t>{1, 0, 0, 0, 0}));
  EXPECT_EQ(from_device<std::uint8_t>(sig::nms_gate(to_device(x), 7, {})), (std::vector<std::uint8_t>{0}));
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // A window of NaNs and one −inf has maximum −inf, so a −inf centre passes (the seed's loop).
  EXPECT_EQ(from_device<std::uint8_t>(sig::nms_gate(to_device(std::vector<float>{nan, nan, -inf, nan}), 3, {})),
            (std::vector<std::uint8_t>{1, 0}));
  EXPECT_EQ(from_device<std::uint8_t>(sig::nms_gate(to_device(std::vector<float>{nan, -inf, nan, nan}), 3, {})),
            (std::vector<std::uint8_t>{0, 0}));
}

TEST_F(SignalNmsCuda, MatchesTheHostOnRandomInputs) {
  std::mt19937_64 rng(21);
  for (values kind : {values::smooth, values::plateaus, values::special}) {
    // Fixed corner cases: N == window, one tile (3328 outputs) and its neighbours; windows up to
    // 13 samples (one chunk: scanned per output), 14 (no whole chunk in common) and wider.
    for (std::int64_t window : {2, 3, 4, 5, 12, 13, 14, 15, 27, 28, 180, 181}) {
      for (std::int64_t n : {window, window + 1, window + 3327, window + 3328, window + 3329, window + 6700}) {
        expect_gate_matches(random_values(rng, n, kind), window, "corners");
      }
    }
    for (int trial = 0; trial < 30; ++trial) {
      const std::int64_t n = std::uniform_int_distribution<std::int64_t>(2, 200000)(rng);
      const std::int64_t window = std::uniform_int_distribution<std::int64_t>(2, std::min<std::int64_t>(n, 1536))(rng);
      expect_gate_matches(random_values(rng, n, kind), window, "random");
    }
  }
}

TEST_F(SignalNmsCuda, WindowsAroundTheTiledLimitAndTheFallback) {
  std::mt19937_64 rng(22);
  for (std::int64_t window : {1535, 1536, 1537, 2048, 3000, 5000}) {
    for (std::int64_t n : {window, window + 1, window + 9000}) {
      for (values kind : {values::smooth, values::plateaus, values::special}) {
        expect_gate_matches(random_values(rng, n, kind), window, "wide");
      }
    }
  }
}

TEST_F(SignalNmsCuda, UnalignedInputView) {
  // A view starting one element into its buffer: the kernel must not assume 16-byte alignment.
  std::mt19937_64 rng(23);
  const auto x = random_values(rng, 5001, values::smooth);
  const zf::array dev = to_device(x).slice(0, 1, 5001);
  const std::vector<float> tail(x.begin() + 1, x.end());
  EXPECT_EQ(int_mismatch(from_device<std::uint8_t>(sig::nms_gate(dev, 180, {})),
                         to_vector<std::uint8_t>(sig::nms_gate(to_array(tail), 180, {}))),
            "");
}

TEST_F(SignalNmsCuda, FusedBandpassAndGateMatchTheHost) {
  std::mt19937_64 rng(24);
  // Seed sizes, tile edges of the fused kernel (3328 outputs per block: N = 3507 fills one),
  // N == window, and inputs 1 to 4 floats into their buffer (vector loads need 16-byte alignment).
  for (std::int64_t n : {180, 181, 209, 3506, 3507, 3508, 6834, 6835, 6836, 100000}) {
    expect_fused_matches(random_values(rng, n, values::smooth), 30, 180, "seed sizes");
  }
  for (std::int64_t skip : {1, 2, 3, 4})
    expect_fused_matches(random_values(rng, 50000, values::smooth), 30, 180, "view", skip);
  for (std::int64_t window : {2, 13, 14, 27})
    expect_fused_matches(random_values(rng, 20000, values::plateaus), 30, window, "narrow");
  for (int trial = 0; trial < 30; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(2, 150000)(rng);
    const std::int64_t width = std::uniform_int_distribution<std::int64_t>(1, std::min<std::int64_t>(n, 1024))(rng);
    const std::int64_t window = std::uniform_int_distribution<std::int64_t>(2, std::min<std::int64_t>(n, 1536))(rng);
    expect_fused_matches(random_values(rng, n, values::smooth), width, window, "random");
  }
  // Beyond the fused limits the two stages run one after the other.
  expect_fused_matches(random_values(rng, 12000, values::smooth), 1024, 1536, "widest fused");
  expect_fused_matches(random_values(rng, 12000, values::smooth), 1025, 180, "wide kernel");
  expect_fused_matches(random_values(rng, 12000, values::smooth), 30, 1537, "wide window");
}

TEST_F(SignalNmsCuda, FusedWithNaNs) {
  poison_with(0x7F);
  std::mt19937_64 rng(25);
  for (std::int64_t n : {200, 5000, 40000})
    expect_fused_matches(random_values(rng, n, values::special), 30, 180, "special");
}
