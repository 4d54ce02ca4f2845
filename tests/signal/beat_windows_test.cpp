// embed_windows against a double-precision re-computation of its definition (robust_reference.hpp):
// every element of every row, output poisoned first, on seeded random recordings and peaks
// inside, near and far beyond both ends (int64 extremes included), strided inputs, gaps (NaN,
// ±inf) read as the median, and the refused arguments.
#include "zeroflow/signal/beat_windows.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "signal/robust_reference.hpp"
#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

/// Every element of `rows` against the reference: exactly 0 where the definition says 0, else
/// within the two float roundings of (x − center) / scale.
void expect_rows_match(const zf::array& rows, const std::vector<float>& x, const std::vector<std::int64_t>& peaks,
                       std::int64_t before, std::int64_t after, std::int64_t width, sig::normalization norm,
                       const std::string& what) {
  ASSERT_EQ(rows.ndim(), 2) << what;
  ASSERT_EQ(rows.shape(0), static_cast<std::int64_t>(peaks.size())) << what;
  ASSERT_EQ(rows.shape(1), width) << what;
  ASSERT_EQ(rows.type(), zf::float32) << what;
  const auto got = to_vector<float>(rows.reshape({rows.size()}));
  const auto want = ref_embed_windows(x, peaks, before, after, width, norm.center, norm.scale);
  ASSERT_EQ(got.size(), want.size()) << what;
  int failures = 0;
  for (std::size_t i = 0; i < want.size() && failures < 5; ++i) {
    const double tolerance = 2.5e-7 * std::fabs(want[i]);  // two float roundings of a normal number
    const bool ok = want[i] == 0.0 ? got[i] == 0.0F : std::fabs(static_cast<double>(got[i]) - want[i]) <= tolerance;
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << ": row " << i / static_cast<std::size_t>(width) << ", column "
                    << i % static_cast<std::size_t>(width) << " (peak " << peaks[i / static_cast<std::size_t>(width)]
                    << "): got " << got[i] << ", want " << want[i];
    }
  }
}

/// Peaks anywhere: inside, within a window of either end, just past them, and far outside.
std::vector<std::int64_t> random_peaks(std::mt19937_64& rng, std::int64_t n, std::int64_t before, std::int64_t after,
                                       std::size_t count) {
  std::vector<std::int64_t> peaks;
  std::uniform_int_distribution<int> kind(0, 9);
  for (std::size_t i = 0; i < count; ++i) {
    switch (kind(rng)) {
      case 0:  // the window overhangs the start
        peaks.push_back(std::uniform_int_distribution<std::int64_t>(-after - 2, before + 2)(rng));
        break;
      case 1:  // the window overhangs the end
        peaks.push_back(std::uniform_int_distribution<std::int64_t>(n - after - 2, n + before + 2)(rng));
        break;
      case 2:  // entirely outside
        peaks.push_back(std::uniform_int_distribution<std::int64_t>(-5 * n - 1000, 5 * n + 1000)(rng));
        break;
      default:
        peaks.push_back(std::uniform_int_distribution<std::int64_t>(0, n - 1)(rng));
    }
  }
  return peaks;
}

}  // namespace

using SignalBeatWindows = poisoned_host;

TEST_F(SignalBeatWindows, EveryElementMatchesTheDefinitionOnRandomPeaks) {
  std::mt19937_64 rng(811);
  std::normal_distribution<float> normal(0.0F, 2.0F);
  for (int trial = 0; trial < 60; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, trial < 50 ? 3000 : 200000)(rng);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = 5.0F + normal(rng);
    const std::int64_t before = std::uniform_int_distribution<std::int64_t>(0, 120)(rng);
    const std::int64_t after = std::uniform_int_distribution<std::int64_t>(1, 200)(rng);
    const std::int64_t width = before + after + std::uniform_int_distribution<std::int64_t>(0, 50)(rng);
    const auto count = std::uniform_int_distribution<std::size_t>(0, 300)(rng);
    const auto peaks = random_peaks(rng, n, before, after, count);  // unsorted, duplicates allowed
    const float scale = std::uniform_real_distribution<float>(0.05F, 20.0F)(rng) * (trial % 7 == 3 ? -1.0F : 1.0F);
    const sig::normalization norm{normal(rng) + 5.0F, scale};
    const auto rows = sig::embed_windows(to_array(x), to_array(peaks), before, after, width, norm, {});
    expect_rows_match(rows, x, peaks, before, after, width, norm, "trial " + std::to_string(trial));
    if (HasFailure()) return;
  }
}

TEST_F(SignalBeatWindows, PeaksAtTheEndsOfInt64AndOfTheRecording) {
  std::vector<float> x(500);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.5F - 40.0F;
  const std::int64_t before = 30, after = 50, width = 128;
  const std::vector<std::int64_t> peaks{int64_min,
                                        int64_min + 1,
                                        int64_min + before - 1,
                                        int64_min + before,
                                        int64_max,
                                        int64_max - 1,
                                        int64_max - after,
                                        -before - after,
                                        -after,
                                        -after + 1,
                                        -1,
                                        0,
                                        before,
                                        499,
                                        500,
                                        499 + before,
                                        500 + before,
                                        1000,
                                        int64_max / 2,
                                        int64_min / 2};
  const sig::normalization norm{3.0F, 0.25F};
  const auto rows = sig::embed_windows(to_array(x), to_array(peaks), before, after, width, norm, {});
  expect_rows_match(rows, x, peaks, before, after, width, norm, "extremes");
  // Spot checks of the definition, by hand: the first in-range column of peak −1 is j = before + 1
  // (sample 0), and peak 499's last real column is j = before (sample 499).
  const auto flat = to_vector<float>(rows.reshape({rows.size()}));
  EXPECT_EQ(flat[10 * width + before], 0.0F);  // peak −1: sample −1 does not exist
  EXPECT_FLOAT_EQ(flat[10 * width + before + 1], (-40.0F - 3.0F) / 0.25F);
  EXPECT_FLOAT_EQ(flat[13 * width + before], (499 * 0.5F - 40.0F - 3.0F) / 0.25F);
  EXPECT_EQ(flat[13 * width + before + 1], 0.0F);
  for (std::size_t b : {0U, 1U, 4U, 5U, 18U, 19U})
    for (std::int64_t j = 0; j < width; ++j) EXPECT_EQ(flat[b * width + static_cast<std::size_t>(j)], 0.0F) << b;
}

TEST_F(SignalBeatWindows, GapsReadAsTheMedianAndStridedInputsAreHonoured) {
  std::mt19937_64 rng(812);
  std::normal_distribution<float> normal(1.0F, 1.0F);
  // Every other sample of `both` is the recording; the others are decoys that must never be read.
  std::vector<float> both(2 * 4000), x(4000);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = normal(rng);
    if (i % 97 == 5) x[i] = std::numeric_limits<float>::quiet_NaN();
    if (i % 131 == 7) x[i] = std::numeric_limits<float>::infinity();
    if (i % 173 == 9) x[i] = -std::numeric_limits<float>::infinity();
    both[2 * i] = x[i];
    both[2 * i + 1] = 1.0e6F;
  }
  std::vector<std::int64_t> peaks_both;
  for (auto p : random_peaks(rng, 4000, 60, 90, 120)) peaks_both.push_back(p), peaks_both.push_back(-77);
  std::vector<std::int64_t> peaks;
  for (std::size_t i = 0; i < peaks_both.size(); i += 2) peaks.push_back(peaks_both[i]);
  const sig::normalization norm{0.5F, 1.5F};
  const zf::array signal = to_array(both).slice(0, 0, 8000, 2);
  const zf::array strided_peaks = to_array(peaks_both).slice(0, 0, static_cast<std::int64_t>(peaks_both.size()), 2);
  ASSERT_EQ(signal.strides()[0], 2);
  const auto rows = sig::embed_windows(signal, strided_peaks, 60, 90, 256, norm, {});
  expect_rows_match(rows, x, peaks, 60, 90, 256, norm, "strided, with gaps");
}

TEST_F(SignalBeatWindows, NoPeaksGiveNoRows) {
  const std::vector<float> x(100, 1.0F);
  const auto rows = sig::embed_windows(to_array(x), to_array(std::vector<std::int64_t>{}), 10, 20, 32, {}, {});
  EXPECT_EQ(rows.shape(), (zf::shape_t{0, 32}));
  // A window filling the whole row (no zero padding) and before = 0 are allowed.
  const std::vector<std::int64_t> peaks{0, 50, 99};
  expect_rows_match(sig::embed_windows(to_array(x), to_array(peaks), 12, 20, 32, {0.5F, 2.0F}, {}), x, peaks, 12, 20,
                    32, {0.5F, 2.0F}, "full row");
  expect_rows_match(sig::embed_windows(to_array(x), to_array(peaks), 0, 1, 1, {}, {}), x, peaks, 0, 1, 1, {},
                    "one sample");
}

TEST_F(SignalBeatWindows, RefusesBadArguments) {
  const auto x = to_array(std::vector<float>(100, 1.0F));
  const auto p = to_array(std::vector<std::int64_t>{10, 50});
  constexpr float inf = std::numeric_limits<float>::infinity();
  EXPECT_THROW((void)sig::embed_windows(x, p, -1, 10, 32, {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(x, p, 10, 0, 32, {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(x, p, 10, 23, 32, {}, {}), zf::invalid_argument);  // 33 > 32
  EXPECT_THROW((void)sig::embed_windows(x, p, 0, 33, 32, {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(x, p, int64_max, 1, 32, {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(x, p, 10, 10, 32, {0.0F, 0.0F}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(x, p, 10, 10, 32, {0.0F, inf}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(x, p, 10, 10, 32, {std::nanf(""), 1.0F}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(to_array(std::vector<double>(100, 1.0)), p, 10, 10, 32, {}, {}),
               zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(x, to_array(std::vector<std::int32_t>{10, 50}), 10, 10, 32, {}, {}),
               zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(x.reshape({10, 10}), p, 10, 10, 32, {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(zf::array{}, p, 10, 10, 32, {}, {}), zf::invalid_argument);
  // Rows × width past 64 bits of bytes: refused before anything is allocated.
  EXPECT_THROW((void)sig::embed_windows(x, p, 0, 1, std::int64_t{1} << 62, {}, {}), zf::invalid_argument);
}
