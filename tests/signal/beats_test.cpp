#include "zeroflow/signal/beats.hpp"

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

using SignalBeats = poisoned_host;
using SignalPeaks = poisoned_host;

TEST_F(SignalBeats, PositionsLengthsAndHistogramMatchSimpleLoops) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(0, 5000)(rng);
    const double density = std::uniform_real_distribution<double>(0, 1)(rng);
    std::vector<std::uint8_t> gate(static_cast<std::size_t>(n));
    for (auto& g : gate)
      g = std::bernoulli_distribution(density)(rng) ? 1 : (std::bernoulli_distribution(0.1)(rng) ? 2 : 0);

    std::vector<std::int64_t> expected_positions;
    for (std::int64_t i = 0; i < n; ++i)
      if (gate[static_cast<std::size_t>(i)] == 1) expected_positions.push_back(i);
    const zf::array positions = sig::gate_positions(to_array(gate), {});
    ASSERT_EQ(to_vector<std::int64_t>(positions), expected_positions);

    std::vector<std::int64_t> expected_lengths;
    for (std::size_t i = 1; i < expected_positions.size(); ++i)
      expected_lengths.push_back(expected_positions[i] - expected_positions[i - 1]);
    const zf::array lengths = sig::beat_lengths(positions, {});
    ASSERT_EQ(to_vector<std::int64_t>(lengths), expected_lengths);

    const std::int64_t bins = std::uniform_int_distribution<std::int64_t>(1, 40)(rng);
    std::vector<std::int64_t> expected_histogram(static_cast<std::size_t>(bins), 0);
    for (auto l : expected_lengths) ++expected_histogram[static_cast<std::size_t>(l < bins - 1 ? l : bins - 1)];
    ASSERT_EQ(to_vector<std::int64_t>(sig::length_histogram(lengths, bins, {})), expected_histogram);
  }
}

TEST_F(SignalBeats, BoolGatesAndStridedInputs) {
  const std::vector<bool> flags{false, true, true, false, true, false, false, true};
  zf::array gate = zf::empty({8}, zf::bool8, zf::cpu_device, {});
  for (std::size_t i = 0; i < flags.size(); ++i) gate.data_as<bool>()[i] = flags[i];
  EXPECT_EQ(to_vector<std::int64_t>(sig::gate_positions(gate, {})), (std::vector<std::int64_t>{1, 2, 4, 7}));
  // every other element of the uint8 gate 0 1 0 1 1 1 0 0 1 is 0 0 1 0 1
  const zf::array g = to_array(std::vector<std::uint8_t>{0, 1, 0, 1, 1, 1, 0, 0, 1}).slice(0, 0, 9, 2);
  EXPECT_EQ(to_vector<std::int64_t>(sig::gate_positions(g, {})), (std::vector<std::int64_t>{2, 4}));
  const zf::array p = to_array(std::vector<std::int64_t>{9, 7, 4, 0}).slice(0, 3, -1, -1);  // 0 4 7 9
  EXPECT_EQ(to_vector<std::int64_t>(sig::beat_lengths(p, {})), (std::vector<std::int64_t>{4, 3, 2}));
}

TEST_F(SignalBeats, EdgeCases) {
  EXPECT_EQ(sig::gate_positions(to_array(std::vector<std::uint8_t>{}), {}).size(), 0);
  EXPECT_EQ(sig::beat_lengths(to_array(std::vector<std::int64_t>{}), {}).size(), 0);
  EXPECT_EQ(sig::beat_lengths(to_array(std::vector<std::int64_t>{5}), {}).size(), 0);
  // one bin collects everything >= 0; negatives are not counted
  EXPECT_EQ(to_vector<std::int64_t>(sig::length_histogram(to_array(std::vector<std::int64_t>{0, 3, -2, 900}), 1, {})),
            (std::vector<std::int64_t>{3}));
  EXPECT_EQ(
      to_vector<std::int64_t>(sig::length_histogram(to_array(std::vector<std::int64_t>{0, 1, 2, 3, -1, 2}), 3, {})),
      (std::vector<std::int64_t>{1, 1, 3}));
  EXPECT_EQ(to_vector<std::int64_t>(sig::length_histogram(to_array(std::vector<std::int64_t>{}), 4, {})),
            (std::vector<std::int64_t>{0, 0, 0, 0}));
}

TEST_F(SignalBeats, RejectsBadInput) {
  EXPECT_THROW((void)sig::gate_positions(to_array(std::vector<float>{1}), {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::gate_positions(to_array(std::vector<std::int64_t>{1}), {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::gate_positions(to_array(std::vector<std::uint8_t>{1, 0, 1, 0}).reshape({2, 2}), {}),
               zf::invalid_argument);
  EXPECT_THROW((void)sig::beat_lengths(to_array(std::vector<std::int32_t>{1, 2}), {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::length_histogram(to_array(std::vector<std::int64_t>{1, 2}), 0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::length_histogram(to_array(std::vector<double>{1, 2}), 4, {}), zf::invalid_argument);
}

namespace {
// locate_peaks as documented, in the most literal form.
std::vector<std::int64_t> reference_peaks(const std::vector<float>& x, const std::vector<std::int64_t>& positions,
                                          std::int64_t nms_window, std::int64_t ricker_width, float center) {
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<std::int64_t> out;
  for (std::int64_t p : positions) {
    const std::int64_t guess = p + (nms_window + 1) / 2 - (ricker_width - 1) / 2;
    std::int64_t best = -1;
    float best_value = 0;
    for (std::int64_t i = guess - ricker_width / 2; i <= guess + ricker_width / 2; ++i) {
      if (i < 0 || i >= n) continue;
      const float v = std::fabs(x[static_cast<std::size_t>(i)] - center);
      if (std::isnan(v)) continue;
      if (best < 0 || v > best_value) best = i, best_value = v;
    }
    out.push_back(best >= 0 ? best : std::min(std::max<std::int64_t>(guess, 0), n - 1));
  }
  return out;
}
}  // namespace

TEST_F(SignalPeaks, MatchTheDefinitionOnRandomInputs) {
  std::mt19937_64 rng(17);
  std::normal_distribution<float> normal(0, 1);
  for (int trial = 0; trial < 60; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 3000)(rng);
    std::vector<float> x(static_cast<std::size_t>(n));
    const bool coarse = trial % 2 == 0;  // small integers: many ties, ties go to the lowest index
    for (auto& v : x) v = coarse ? static_cast<float>(std::uniform_int_distribution<int>(-2, 2)(rng)) : normal(rng);
    if (trial % 5 == 0) x[static_cast<std::size_t>(n / 2)] = std::numeric_limits<float>::quiet_NaN();
    std::vector<std::int64_t> positions;
    for (std::int64_t p = std::uniform_int_distribution<std::int64_t>(0, 50)(rng); p < n + 40;
         p += std::uniform_int_distribution<std::int64_t>(1, 200)(rng))
      positions.push_back(p);  // some lie past the end: the window is clamped
    const std::int64_t window = std::uniform_int_distribution<std::int64_t>(1, 300)(rng);
    const std::int64_t width = std::uniform_int_distribution<std::int64_t>(1, 80)(rng);
    const float center = coarse ? 0.0f : normal(rng);
    const auto peaks = sig::locate_peaks(to_array(x), to_array(positions), window, width, center, {});
    ASSERT_EQ(to_vector<std::int64_t>(peaks), reference_peaks(x, positions, window, width, center))
        << "n=" << n << " window=" << window << " width=" << width;
  }
}

TEST_F(SignalPeaks, FindsPositiveAndInvertedSpikes) {
  // Seed sizes: the gate fires 90 − 14 = 76 samples before the filtered peak's raw position.
  std::vector<float> x(1000, 1.0f);
  x[400] = 5.0f;   // upright R peak
  x[700] = -4.0f;  // inverted
  const auto peaks = sig::locate_peaks(to_array(x), to_array(std::vector<std::int64_t>{400 - 76 + 9, 700 - 76 - 12}),
                                       180, 30, 1.0f, {});
  EXPECT_EQ(to_vector<std::int64_t>(peaks), (std::vector<std::int64_t>{400, 700}));
  // all NaN: the clamped guess
  std::vector<float> nans(10, std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(to_vector<std::int64_t>(
                sig::locate_peaks(to_array(nans), to_array(std::vector<std::int64_t>{0, 50}), 4, 3, 0.0f, {})),
            (std::vector<std::int64_t>{1, 9}));  // guesses 0 + 2 − 1 and 50 + 1 → clamped to 9
}

TEST_F(SignalPeaks, RejectsBadInput) {
  const zf::array x = to_array(std::vector<float>(10, 0.0f));
  const zf::array p = to_array(std::vector<std::int64_t>{1});
  EXPECT_THROW((void)sig::locate_peaks(x, p, 0, 3, 0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::locate_peaks(x, p, 3, 0, 0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::locate_peaks(to_array(std::vector<float>{}), p, 3, 3, 0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::locate_peaks(x, to_array(std::vector<std::int32_t>{1}), 3, 3, 0, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::locate_peaks(p, p, 3, 3, 0, {}), zf::invalid_argument);
}
