#include "zeroflow/signal/embed.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

using SignalEmbed = poisoned_host;

namespace {
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace

TEST_F(SignalEmbed, MatchesManualSlicing) {
  std::mt19937_64 rng(41);
  std::normal_distribution<float> normal(0, 3);
  for (int trial = 0; trial < 40; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, 20000)(rng);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = normal(rng);
    // increasing positions inside the signal, gaps 1..300; lengths = gaps (as beat_lengths gives)
    std::vector<std::int64_t> positions;
    for (std::int64_t p = std::uniform_int_distribution<std::int64_t>(0, 100)(rng); p < n;
         p += std::uniform_int_distribution<std::int64_t>(1, 300)(rng))
      positions.push_back(p);
    std::vector<std::int64_t> lengths;
    for (std::size_t i = 1; i < positions.size(); ++i) lengths.push_back(positions[i] - positions[i - 1]);
    const std::int64_t lo = std::uniform_int_distribution<std::int64_t>(0, 150)(rng);
    const std::int64_t hi = lo + std::uniform_int_distribution<std::int64_t>(0, 150)(rng);
    const std::int64_t width = hi + std::uniform_int_distribution<std::int64_t>(0, 40)(rng);
    const sig::normalization norm{normal(rng), std::uniform_real_distribution<float>(0.1f, 5.0f)(rng)};

    const auto e = sig::embed_beats(to_array(x), to_array(positions), to_array(lengths), lo, hi, width, norm, {});

    std::vector<std::uint8_t> kept;
    std::vector<std::int64_t> kept_index;
    std::vector<float> rows;
    for (std::size_t c = 0; c < lengths.size(); ++c) {
      const bool keep = lo <= lengths[c] && lengths[c] <= hi;
      kept.push_back(keep ? 1 : 0);
      if (!keep) continue;
      kept_index.push_back(static_cast<std::int64_t>(c));
      for (std::int64_t i = 0; i < width; ++i)
        rows.push_back(i < lengths[c] ? (x[static_cast<std::size_t>(positions[c] + i)] - norm.center) / norm.scale
                                      : 0.0f);
    }
    ASSERT_EQ(to_vector<std::uint8_t>(e.kept), kept);
    ASSERT_EQ(to_vector<std::int64_t>(e.kept_index), kept_index);
    ASSERT_EQ(e.rows.shape(), (zf::shape_t{static_cast<std::int64_t>(kept_index.size()), width}));
    const auto got = to_vector<float>(e.rows.reshape({e.rows.size()}));
    ASSERT_EQ(got.size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
      ASSERT_TRUE(same_bits(got[i], rows[i])) << "element " << i << ": " << got[i] << " vs " << rows[i];
  }
}

TEST_F(SignalEmbed, ExtraPositionsStridedInputsAndNothingKept) {
  const std::vector<float> x{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const auto pos = to_array(std::vector<std::int64_t>{6, 99, 3, 99, 1, 99}).slice(0, 4, -1, -2);  // 1 3 6
  const auto len = to_array(std::vector<std::int64_t>{2, 3});
  const auto e = sig::embed_beats(to_array(x), pos, len, 3, 3, 4, {1.0f, 2.0f}, {});
  EXPECT_EQ(to_vector<std::uint8_t>(e.kept), (std::vector<std::uint8_t>{0, 1}));
  EXPECT_EQ(to_vector<std::int64_t>(e.kept_index), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(to_vector<float>(e.rows.reshape({4})), (std::vector<float>{1.0f, 1.5f, 2.0f, 0.0f}));  // x[3..6)

  const auto none = sig::embed_beats(to_array(x), pos, len, 5, 8, 8, {}, {});
  EXPECT_EQ(none.rows.shape(), (zf::shape_t{0, 8}));
  EXPECT_EQ(none.kept_index.size(), 0);
  EXPECT_EQ(to_vector<std::uint8_t>(none.kept), (std::vector<std::uint8_t>{0, 0}));
}

TEST_F(SignalEmbed, RejectsBadInput) {
  const auto x = to_array(std::vector<float>(100, 1.0f));
  const auto pos = to_array(std::vector<std::int64_t>{0, 10, 30});
  const auto len = to_array(std::vector<std::int64_t>{10, 20});
  EXPECT_NO_THROW((void)sig::embed_beats(x, pos, len, 5, 30, 32, {}, {}));
  EXPECT_THROW((void)sig::embed_beats(x, pos, len, 5, 33, 32, {}, {}), zf::invalid_argument);  // row too narrow
  EXPECT_THROW((void)sig::embed_beats(x, pos, len, 6, 5, 32, {}, {}), zf::invalid_argument);   // min > max
  EXPECT_THROW((void)sig::embed_beats(x, pos, len, -1, 5, 32, {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_beats(x, pos, len, 5, 30, 32, {0.0f, 0.0f}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_beats(x, pos, len, 5, 30, 32, {0.0f, std::numeric_limits<float>::infinity()}, {}),
               zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_beats(x, pos.slice(0, 0, 1), len, 5, 30, 32, {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_beats(x, to_array(std::vector<float>{0, 10}), len, 5, 30, 32, {}, {}),
               zf::invalid_argument);
  // a kept span past the end of the signal, and one before its start
  EXPECT_THROW((void)sig::embed_beats(x, to_array(std::vector<std::int64_t>{85, 95}), len, 5, 30, 32, {}, {}),
               zf::invalid_argument);
  EXPECT_THROW((void)sig::embed_beats(x, to_array(std::vector<std::int64_t>{-1, 10}), len, 5, 30, 32, {}, {}),
               zf::invalid_argument);
  // ...but spans that are not kept are not read
  EXPECT_NO_THROW((void)sig::embed_beats(x, to_array(std::vector<std::int64_t>{-50, 10}), len, 15, 30, 32, {}, {}));
}
