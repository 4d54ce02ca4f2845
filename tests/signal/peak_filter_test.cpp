// drop_weak_peaks: host against a plain re-computation (sort + threshold), the seed's
// behaviour at ratio 0, and the GPU against the host on the same inputs.
#include "zeroflow/signal/peak_filter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "signal/cuda_test_helpers.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

struct case_data {
  std::vector<float> filtered;
  std::vector<std::int64_t> positions;
};

case_data random_case(std::mt19937_64& rng, std::int64_t n, std::int64_t count) {
  case_data c;
  std::normal_distribution<float> noise(0.f, 0.05f);
  std::uniform_real_distribution<float> beat(0.6f, 1.4f), weak(0.0f, 0.08f);
  std::bernoulli_distribution is_weak(0.1);
  c.filtered.resize(static_cast<std::size_t>(n));
  for (auto& v : c.filtered) v = noise(rng);
  std::uniform_int_distribution<std::int64_t> at(0, n - 91);
  for (std::int64_t i = 0; i < count; ++i) c.positions.push_back(at(rng));
  std::sort(c.positions.begin(), c.positions.end());
  c.positions.erase(std::unique(c.positions.begin(), c.positions.end()), c.positions.end());
  for (auto p : c.positions) c.filtered[static_cast<std::size_t>(p + 90)] = is_weak(rng) ? weak(rng) : beat(rng);
  return c;
}

// The definition, written out: lower median of the heights, keep heights >= ratio * median.
std::vector<std::int64_t> reference(const case_data& c, std::int64_t offset, double ratio) {
  std::vector<float> h;
  for (auto p : c.positions) h.push_back(c.filtered[static_cast<std::size_t>(p + offset)]);
  std::vector<float> sorted = h;
  std::sort(sorted.begin(), sorted.end());
  const float threshold = static_cast<float>(ratio) * sorted[(sorted.size() - 1) / 2];
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < h.size(); ++i)
    if (h[i] >= threshold) out.push_back(c.positions[i]);
  return out;
}

}  // namespace

TEST(SignalPeakFilter, MatchesTheDefinitionOnRandomCases) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 50; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(200, 20000)(rng);
    const auto c = random_case(rng, n, std::uniform_int_distribution<std::int64_t>(1, n / 40 + 1)(rng));
    const double ratio = std::uniform_real_distribution<double>(0.05, 0.5)(rng);
    const auto got = to_vector<std::int64_t>(
        sig::drop_weak_peaks(to_array(c.filtered), to_array(c.positions), 180, ratio, 0.0f, zf::stream_view{}));
    EXPECT_EQ(got, reference(c, 90, ratio)) << "trial " << trial;
  }
}

TEST(SignalPeakFilter, RatioZeroKeepsEveryPositionAsTheSeedDoes) {
  std::mt19937_64 rng(5);
  const auto c = random_case(rng, 5000, 60);
  const auto got =
      to_vector<std::int64_t>(sig::drop_weak_peaks(to_array(c.filtered), to_array(c.positions), 180, 0.0, 0.0f, {}));
  EXPECT_EQ(got, c.positions);
}

TEST(SignalPeakFilter, DropsTheWeakOnesOnly) {
  std::vector<float> filtered(1000, 0.0f);
  const std::vector<std::int64_t> positions{10, 200, 400, 600, 800};
  const float heights[] = {1.0f, 0.05f, 0.9f, 1.1f, 0.3f};
  for (std::size_t i = 0; i < positions.size(); ++i) filtered[static_cast<std::size_t>(positions[i] + 90)] = heights[i];
  // median (lower) of {1.0, 0.05, 0.9, 1.1, 0.3} is 0.9; 0.1 * 0.9 = 0.09 drops only 0.05.
  const auto got =
      to_vector<std::int64_t>(sig::drop_weak_peaks(to_array(filtered), to_array(positions), 180, 0.1, 0.0f, {}));
  EXPECT_EQ(got, (std::vector<std::int64_t>{10, 400, 600, 800}));
}

TEST(SignalPeakFilter, BaselineIsSubtractedBeforeTheRatio) {
  std::vector<float> filtered(1000, 5.0f);
  const std::vector<std::int64_t> positions{10, 200, 400};
  const float heights[] = {6.0f, 5.05f, 6.2f};  // 1.0, 0.05, 1.2 above a 5.0 baseline
  for (std::size_t i = 0; i < positions.size(); ++i) filtered[static_cast<std::size_t>(positions[i] + 90)] = heights[i];
  const auto kept =
      to_vector<std::int64_t>(sig::drop_weak_peaks(to_array(filtered), to_array(positions), 180, 0.1, 5.0f, {}));
  EXPECT_EQ(kept, (std::vector<std::int64_t>{10, 400}));
  const auto without =
      to_vector<std::int64_t>(sig::drop_weak_peaks(to_array(filtered), to_array(positions), 180, 0.1, 0.0f, {}));
  EXPECT_EQ(without, positions);  // 5.05 >= 0.1 * 6.0: the offset hides the weak one
}

TEST(SignalPeakFilter, RejectsPositionsOutsideTheSignal) {
  std::vector<float> filtered(100, 1.0f);
  std::vector<std::int64_t> positions{5, 50};
  EXPECT_THROW((void)sig::drop_weak_peaks(to_array(filtered), to_array(positions), 180, 0.1, 0.0f, {}),
               zf::invalid_argument);
}

using SignalPeakFilterCuda = cuda_signal_test;

TEST_F(SignalPeakFilterCuda, GpuKeepsExactlyWhatTheHostKeeps) {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 30; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(200, 400000)(rng);
    const auto c = random_case(rng, n, std::uniform_int_distribution<std::int64_t>(1, n / 40 + 1)(rng));
    const double ratio = std::uniform_real_distribution<double>(0.05, 0.5)(rng);
    const auto host = to_vector<std::int64_t>(
        sig::drop_weak_peaks(to_array(c.filtered), to_array(c.positions), 180, ratio, 0.0f, {}));
    const auto gpu = from_device<std::int64_t>(
        sig::drop_weak_peaks(to_device(c.filtered), to_device(c.positions), 180, ratio, 0.0f, {}));
    EXPECT_EQ(gpu, host) << "trial " << trial << " n " << n;
  }
}
