// Beat rows whose sizes or sample offsets would wrap: rows × row width beyond 64 bits, and peaks
// at the ends of the int64 range (embed_windows takes peaks of any value).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/beat_windows.hpp"
#include "zeroflow/signal/embed.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;

namespace {

zf::array int64_array(const std::vector<std::int64_t>& values) {
  auto a = zf::empty({static_cast<std::int64_t>(values.size())}, zf::int64);
  std::copy(values.begin(), values.end(), a.data_as<std::int64_t>());
  return a;
}

zf::array ramp(std::int64_t n) {
  auto a = zf::empty({n}, zf::float32);
  for (std::int64_t i = 0; i < n; ++i) a.data_as<float>()[i] = static_cast<float>(i + 1);
  return a;
}

__extension__ typedef __int128 i128;  // wide enough for any int64 sum

constexpr std::int64_t huge_width = std::int64_t{1} << 62;

}  // namespace

TEST(SignalEmbedSizes, RowsTimesWidthBeyond64BitsIsRefused) {
  const auto x = ramp(100);
  const auto peaks = int64_array({10, 20, 30, 40});  // 4 × 2^62 floats: the byte count wraps to 0
  EXPECT_THROW((void)sig::embed_windows(x, peaks, 2, 3, huge_width, {0.0F, 1.0F}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_windows(x, peaks, 2, 3, std::numeric_limits<std::int64_t>::min(), {0.0F, 1.0F}, {}),
               zf::invalid_argument);
  const auto lengths = int64_array({10, 10, 10});
  EXPECT_THROW((void)sig::embed_beats(x, peaks, lengths, 5, 20, huge_width, {0.0F, 1.0F}, {}), zf::invalid_argument);
}

TEST(SignalEmbedSizes, PeaksAtTheEndsOfInt64GiveZeroRows) {
  const std::int64_t n = 50, before = 3, after = 4, width = 16;
  const auto x = ramp(n);
  const std::vector<std::int64_t> peaks = {
      std::numeric_limits<std::int64_t>::min(),     std::numeric_limits<std::int64_t>::min() + 1, 25,
      std::numeric_limits<std::int64_t>::max() - 2, std::numeric_limits<std::int64_t>::max(),     1};
  const sig::normalization norm{0.5F, 2.0F};
  const auto rows = sig::embed_windows(x, int64_array(peaks), before, after, width, norm, {});
  ASSERT_EQ(rows.shape(), (zf::shape_t{static_cast<std::int64_t>(peaks.size()), width}));
  const float* r = rows.data_as<const float>();
  for (std::size_t b = 0; b < peaks.size(); ++b)
    for (std::int64_t j = 0; j < width; ++j) {
      // The sample in 128-bit arithmetic: inside the recording only for the ordinary peaks.
      const i128 at = static_cast<i128>(peaks[b]) - before + j;
      const float expected = j < before + after && at >= 0 && at < n
                                 ? (static_cast<float>(static_cast<std::int64_t>(at) + 1) - norm.center) / norm.scale
                                 : 0.0F;
      EXPECT_EQ(r[b * width + static_cast<std::size_t>(j)], expected) << "peak " << peaks[b] << ", column " << j;
    }
}
