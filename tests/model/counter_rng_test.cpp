// The torch-free pieces of zeroflow's own training on the host: Philox4x32-10 against Random123's
// published known-answer vectors, its normal draws against N(0, 1), and vae::train's split.
#include "model/counter_rng.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <set>

#include "model/row_order.hpp"

namespace zfd = zeroflow::model::detail;

TEST(CounterRng, MatchesRandom123sKnownAnswers) {
  struct kat {
    zfd::philox_block counter;
    std::uint64_t key;
    zfd::philox_block expected;
  };
  const kat cases[] = {
      {{{0, 0, 0, 0}}, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffffffffffffULL,
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      // key words (0xa4093822, 0x299f31d0): the low word first.
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0x299f31d0a4093822ULL,
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const kat& c : cases) {
    const zfd::philox_block got = zfd::philox4x32(c.counter, c.key);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(got.v[i], c.expected.v[i]) << i;
  }
}

TEST(CounterRng, NormalDrawsAreStandardNormal) {
  const int n = 200000;
  double sum = 0, squares = 0, beyond2 = 0;
  for (int i = 0; i < n / 2; ++i) {
    const zfd::normal_pair p = zfd::normal2(42, static_cast<std::uint32_t>(i), 7, zfd::rng_stream::training_noise);
    for (const float v : {p.a, p.b}) {
      ASSERT_TRUE(std::isfinite(v));
      sum += v;
      squares += static_cast<double>(v) * v;
      beyond2 += std::abs(v) > 2 ? 1 : 0;
    }
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(squares / n, 1.0, 0.01);
  EXPECT_NEAR(beyond2 / n, 0.0455, 0.003);  // P(|Z| > 2)
  // Another step, another stream or another key: other draws.
  const auto a = zfd::normal2(42, 3, 7, zfd::rng_stream::training_noise);
  EXPECT_NE(a.a, zfd::normal2(42, 3, 8, zfd::rng_stream::training_noise).a);
  EXPECT_NE(a.a, zfd::normal2(42, 3, 7, zfd::rng_stream::test_noise).a);
  EXPECT_NE(a.a, zfd::normal2(43, 3, 7, zfd::rng_stream::training_noise).a);
}

TEST(RowSplit, PartitionsTheRowsReproducibly) {
  const auto s = zfd::split_rows(1001, 0.25, 42);
  EXPECT_EQ(s.train.size(), 750U);  // floor(0.75 · 1001)
  EXPECT_EQ(s.test.size(), 251U);
  EXPECT_TRUE(std::is_sorted(s.train.begin(), s.train.end()));
  EXPECT_TRUE(std::is_sorted(s.test.begin(), s.test.end()));
  std::set<std::int64_t> all(s.train.begin(), s.train.end());
  all.insert(s.test.begin(), s.test.end());
  EXPECT_EQ(all.size(), 1001U);
  EXPECT_EQ(*all.begin(), 0);
  EXPECT_EQ(*all.rbegin(), 1000);
  const auto again = zfd::split_rows(1001, 0.25, 42);
  EXPECT_EQ(again.train, s.train);
  EXPECT_NE(zfd::split_rows(1001, 0.25, 43).train, s.train);
  // Held-out rows come from everywhere, not one end: about a quarter of each half.
  const auto first_half = std::count_if(s.test.begin(), s.test.end(), [](std::int64_t r) { return r < 500; });
  EXPECT_NEAR(static_cast<double>(first_half) / static_cast<double>(s.test.size()), 0.5, 0.1);
  EXPECT_TRUE(zfd::split_rows(10, 0.0, 1).test.empty());
  EXPECT_EQ(zfd::split_rows(1, 0.25, 1).train.size(), 0U);  // floor(0.75): vae::train refuses it
}
