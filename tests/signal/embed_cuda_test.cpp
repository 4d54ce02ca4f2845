// GPU prune + embed against the host implementation: kept flags, kept indices (beat order) and
// every element of every row bit for bit, on seeded random beats, with nothing kept, everything
// kept, extra positions, and the out-of-signal error naming the same candidate as the host.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/embed.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

struct beats {
  std::vector<float> x;
  std::vector<std::int64_t> positions, lengths;
};

beats random_beats(std::mt19937_64& rng, std::int64_t n, std::int64_t max_gap) {
  std::normal_distribution<float> normal(0.5f, 3.0f);
  beats b;
  b.x.resize(static_cast<std::size_t>(n));
  for (auto& v : b.x) v = normal(rng);
  for (std::int64_t p = std::uniform_int_distribution<std::int64_t>(0, 100)(rng); p < n;
       p += std::uniform_int_distribution<std::int64_t>(1, max_gap)(rng))
    b.positions.push_back(p);
  for (std::size_t i = 1; i < b.positions.size(); ++i) b.lengths.push_back(b.positions[i] - b.positions[i - 1]);
  return b;
}

void expect_embedding_matches(const beats& b, std::int64_t lo, std::int64_t hi, std::int64_t width,
                              sig::normalization norm, const std::string& what) {
  const auto host =
      sig::embed_beats(to_array(b.x), to_array(b.positions), to_array(b.lengths), lo, hi, width, norm, {});
  const auto gpu =
      sig::embed_beats(to_device(b.x), to_device(b.positions), to_device(b.lengths), lo, hi, width, norm, {});
  ASSERT_EQ(gpu.rows.where(), gpu0);
  ASSERT_EQ(gpu.rows.shape(), host.rows.shape()) << what;
  EXPECT_EQ(int_mismatch(from_device<std::uint8_t>(gpu.kept), to_vector<std::uint8_t>(host.kept)), "") << what;
  EXPECT_EQ(int_mismatch(from_device<std::int64_t>(gpu.kept_index), to_vector<std::int64_t>(host.kept_index)), "")
      << what;
  EXPECT_EQ(float_mismatch(from_device<float>(gpu.rows.reshape({gpu.rows.size()})),
                           to_vector<float>(host.rows.reshape({host.rows.size()}))),
            "")
      << what;
}

}  // namespace

using SignalEmbedCuda = cuda_signal_test;

TEST_F(SignalEmbedCuda, MatchesTheHostOnRandomBeats) {
  std::mt19937_64 rng(51);
  std::normal_distribution<float> normal(0, 3);
  for (int trial = 0; trial < 40; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, trial < 30 ? 30000 : 3000000)(rng);
    const auto b = random_beats(rng, n, 300);
    const std::int64_t lo = std::uniform_int_distribution<std::int64_t>(0, 150)(rng);
    const std::int64_t hi = lo + std::uniform_int_distribution<std::int64_t>(0, 150)(rng);
    const std::int64_t width = hi + std::uniform_int_distribution<std::int64_t>(0, 40)(rng);
    const sig::normalization norm{normal(rng), std::uniform_real_distribution<float>(0.1f, 5.0f)(rng)};
    expect_embedding_matches(b, lo, hi, width, norm, "trial " + std::to_string(trial));
  }
}

TEST_F(SignalEmbedCuda, SeedParametersAndEdgeCases) {
  std::mt19937_64 rng(52);
  const auto b = random_beats(rng, 2000000, 320);
  expect_embedding_matches(b, 100, 256, 256, {0.1f, 0.7f}, "seed");
  expect_embedding_matches(b, 0, 320, 512, {}, "everything kept");
  expect_embedding_matches(b, 400, 500, 512, {}, "nothing kept");
  expect_embedding_matches(b, 0, 0, 0, {}, "zero-width rows");

  beats none;  // no candidates at all
  none.x = {1.0f, 2.0f};
  expect_embedding_matches(none, 0, 10, 16, {}, "no candidates");
  none.positions = {1};  // one position, no lengths
  expect_embedding_matches(none, 0, 10, 16, {}, "one position");
}

TEST_F(SignalEmbedCuda, SpansOutsideTheSignalAreRejectedLikeOnTheHost) {
  const std::vector<float> x(100, 1.0f);
  const std::vector<std::int64_t> lengths{10, 20, 20, 30};
  auto message = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const zf::invalid_argument& e) {
      const std::string what = e.what();
      return what.substr(what.find("embed_beats"));  // without the file:line prefix
    }
    return "no exception";
  };
  // Candidates 2 and 3 leave the signal (2 before its start); the lowest one is reported.
  const std::vector<std::int64_t> positions{0, 10, -5, 90};
  const std::string host =
      message([&] { (void)sig::embed_beats(to_array(x), to_array(positions), to_array(lengths), 5, 30, 32, {}, {}); });
  const std::string gpu = message(
      [&] { (void)sig::embed_beats(to_device(x), to_device(positions), to_device(lengths), 5, 30, 32, {}, {}); });
  EXPECT_NE(host, "no exception");
  EXPECT_EQ(gpu, host);
  // Not kept (lengths over 15), not read: no error.
  EXPECT_NO_THROW((void)sig::embed_beats(to_device(x), to_device(positions), to_device(lengths), 5, 15, 32, {}, {}));
}
