#include "zeroflow/signal/nms.hpp"

#include <gtest/gtest.h>

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
// The seed's segment_kernel and `out[1:] *= (diff(out) == 1)`, transcribed loop for loop.
std::vector<std::uint8_t> seed_gate(const std::vector<float>& signal, std::int64_t window) {
  const auto n = static_cast<std::int64_t>(signal.size());
  std::vector<std::int64_t> out(static_cast<std::size_t>(n - window + 1));
  for (std::int64_t position = 0; position < n - window + 1; ++position) {
    float accum = -std::numeric_limits<float>::infinity();
    for (std::int64_t index = 0; index < window; ++index) {
      const float value = signal[static_cast<std::size_t>(position + index)];
      accum = value > accum ? value : accum;
    }
    out[static_cast<std::size_t>(position)] =
        accum == signal[static_cast<std::size_t>(position + (window + 1) / 2)] ? 1 : 0;
  }
  std::vector<std::int64_t> diff(out.size() > 0 ? out.size() - 1 : 0);  // numpy evaluates diff before the product
  for (std::size_t i = 0; i < diff.size(); ++i) diff[i] = out[i + 1] - out[i];
  for (std::size_t i = 0; i < diff.size(); ++i) out[i + 1] *= (diff[i] == 1) ? 1 : 0;
  return {out.begin(), out.end()};
}

enum class values { continuous, plateaus, special };

std::vector<float> random_values(std::mt19937_64& rng, std::int64_t n, values kind) {
  std::normal_distribution<float> normal(0, 1);
  std::uniform_int_distribution<int> small(0, 3), pick(0, 19);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (auto& v : x) {
    switch (kind) {
      case values::continuous:
        v = normal(rng);
        break;
      case values::plateaus:
        v = static_cast<float>(small(rng));
        break;  // many equal maxima
      case values::special: {
        const int p = pick(rng);
        v = p == 0   ? std::numeric_limits<float>::quiet_NaN()
            : p == 1 ? std::numeric_limits<float>::infinity()
            : p == 2 ? -std::numeric_limits<float>::infinity()
            : p == 3 ? -0.0f
                     : static_cast<float>(small(rng));
      } break;
    }
  }
  return x;
}
}  // namespace

using SignalNms = poisoned_host;

TEST_F(SignalNms, HandWorkedPlateau) {
  // window 3, centre offset 2: raw gate 1,1,0,0,0 (the plateau passes twice), rising edge 1,0,0,0,0
  const std::vector<float> x{0, 1, 3, 3, 1, 0, 0};
  EXPECT_EQ(to_vector<std::uint8_t>(sig::nms_gate(to_array(x), 3, {})), (std::vector<std::uint8_t>{1, 0, 0, 0, 0}));
  // window 2 (centre offset 1): x[p+1] >= x[p]
  const std::vector<float> y{5, 1, 2, 3, 3, 0};
  EXPECT_EQ(to_vector<std::uint8_t>(sig::nms_gate(to_array(y), 2, {})), (std::vector<std::uint8_t>{0, 1, 0, 0, 0}));
  // window == length: one output
  EXPECT_EQ(to_vector<std::uint8_t>(sig::nms_gate(to_array(x), 7, {})), (std::vector<std::uint8_t>{0}));
  // all-NaN windows have maximum -inf: a -inf centre passes
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(to_vector<std::uint8_t>(sig::nms_gate(to_array(std::vector<float>{nan, -inf, nan, nan}), 3, {})),
            seed_gate({nan, -inf, nan, nan}, 3));
  EXPECT_EQ(seed_gate({nan, -inf, nan, nan}, 3), (std::vector<std::uint8_t>{0, 0}));
  EXPECT_EQ(seed_gate({nan, nan, -inf, nan}, 3), (std::vector<std::uint8_t>{1, 0}));
  EXPECT_EQ(to_vector<std::uint8_t>(sig::nms_gate(to_array(std::vector<float>{nan, nan, -inf, nan}), 3, {})),
            (std::vector<std::uint8_t>{1, 0}));
}

TEST_F(SignalNms, MatchesTheSeedsDefinitionOnRandomInputs) {
  std::mt19937_64 rng(2024);
  for (values kind : {values::continuous, values::plateaus, values::special}) {
    for (int trial = 0; trial < 60; ++trial) {
      const std::int64_t n = std::uniform_int_distribution<std::int64_t>(2, 4000)(rng);
      const std::int64_t w = std::uniform_int_distribution<std::int64_t>(2, std::min<std::int64_t>(n, 300))(rng);
      const auto x = random_values(rng, n, kind);
      const auto gate = to_vector<std::uint8_t>(sig::nms_gate(to_array(x), w, {}));
      ASSERT_EQ(gate, seed_gate(x, w)) << "kind " << static_cast<int>(kind) << " n=" << n << " w=" << w;
    }
  }
}

TEST_F(SignalNms, LongInputsSplitAcrossThreadsMatchToo) {
  // Long enough for several chunks; a smooth signal with bumps gives sparse gates like an ECG's.
  std::mt19937_64 rng(7);
  for (values kind : {values::continuous, values::plateaus}) {
    auto x = random_values(rng, 400000, kind);
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] += 5.0f * static_cast<float>(std::sin(static_cast<double>(i) * 0.03));
    for (std::int64_t w : {2, 180, 1000})
      ASSERT_EQ(to_vector<std::uint8_t>(sig::nms_gate(to_array(x), w, {})), seed_gate(x, w)) << w;
  }
}

TEST_F(SignalNms, StridedInput) {
  std::mt19937_64 rng(3);
  const auto x = random_values(rng, 1001, values::plateaus);
  const zf::array reversed = to_array(x).slice(0, 1000, -1, -1);
  const std::vector<float> back(x.rbegin(), x.rend());
  EXPECT_EQ(to_vector<std::uint8_t>(sig::nms_gate(reversed, 20, {})), seed_gate(back, 20));
}

TEST_F(SignalNms, RejectsBadInput) {
  const zf::array x = to_array(std::vector<float>(50, 0.0f));
  EXPECT_THROW((void)sig::nms_gate(x, 1, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::nms_gate(x, 0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::nms_gate(x, 51, {}), zf::invalid_argument);  // signal shorter than the window
  EXPECT_THROW((void)sig::nms_gate(to_array(std::vector<float>{}), 2, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::nms_gate(to_array(std::vector<double>(50, 0.0)), 5, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::nms_gate(x.reshape({5, 10}), 2, {}), zf::invalid_argument);
}
