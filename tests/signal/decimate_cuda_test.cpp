// GPU minmax_decimate and absmax_decimate against the host implementation, bit for bit, with
// poisoned outputs: every team width (buckets of 1 to 32 samples and beyond), the block path
// (buckets of thousands), short last buckets, ties and signed zeros (the order must make the
// GPU's merge order irrelevant), strided views, a non-default stream, and a 20 M-sample
// recording at the report's bucket of 32.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "zeroflow/signal/decimate.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

std::vector<float> random_signal(std::mt19937_64& rng, std::int64_t n, bool ties) {
  std::normal_distribution<float> normal(0, 2);
  std::uniform_int_distribution<int> small(-3, 3);
  std::bernoulli_distribution negative_zero(0.3);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (auto& v : x) {
    v = ties ? static_cast<float>(small(rng)) : normal(rng);
    if (v == 0 && negative_zero(rng)) v = -0.0f;
  }
  return x;
}

std::vector<float> flat(const zf::array& a, zf::stream_view stream = {}) {
  return from_device<float>(a.reshape({a.size()}), stream);
}

void expect_gpu_matches_host(const zf::array& host_signal, const zf::array& gpu_signal, std::int64_t bucket,
                             const std::string& what, zf::stream_view stream = {}) {
  const auto mm_host = sig::minmax_decimate(host_signal, bucket, {});
  const auto peak_host = sig::absmax_decimate(host_signal, bucket, {});
  const auto mm_gpu = sig::minmax_decimate(gpu_signal, bucket, stream);
  const auto peak_gpu = sig::absmax_decimate(gpu_signal, bucket, stream);
  ASSERT_EQ(mm_gpu.where(), gpu0);
  ASSERT_EQ(mm_gpu.shape(), mm_host.shape()) << what;
  ASSERT_EQ(peak_gpu.shape(), peak_host.shape()) << what;
  EXPECT_EQ(float_mismatch(flat(mm_gpu, stream), to_vector<float>(mm_host.reshape({mm_host.size()}))), "")
      << what << " (minmax)";
  EXPECT_EQ(float_mismatch(flat(peak_gpu, stream), to_vector<float>(peak_host)), "") << what << " (absmax)";
}

void expect_gpu_matches_host(const std::vector<float>& x, std::int64_t bucket, const std::string& what) {
  expect_gpu_matches_host(to_array(x), to_device(x), bucket, what);
}

}  // namespace

using SignalDecimateCuda = cuda_signal_test;

TEST_F(SignalDecimateCuda, EveryTeamWidthAndTheBlockPath) {
  std::mt19937_64 rng(71);
  for (std::int64_t n : {1, 2, 33, 1000, 100003}) {
    for (std::int64_t bucket : {1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 32, 33, 64, 255, 4095, 4096, 4097, 50000, 1 << 22}) {
      for (bool ties : {false, true}) {
        expect_gpu_matches_host(
            random_signal(rng, n, ties), bucket,
            "n " + std::to_string(n) + ", bucket " + std::to_string(bucket) + (ties ? ", ties" : ""));
      }
    }
  }
}

TEST_F(SignalDecimateCuda, RandomSizes) {
  std::mt19937_64 rng(72);
  for (int trial = 0; trial < 40; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, trial < 30 ? 20000 : 3000000)(rng);
    const std::int64_t bucket = std::uniform_int_distribution<std::int64_t>(1, trial % 2 ? 70 : n + 10)(rng);
    expect_gpu_matches_host(random_signal(rng, n, trial % 3 == 0), bucket, "trial " + std::to_string(trial));
  }
}

TEST_F(SignalDecimateCuda, EmptySignal) {
  const auto mm = sig::minmax_decimate(to_device(std::vector<float>{}), 4, {});
  EXPECT_EQ(mm.shape(), (zf::shape_t{0, 2}));
  EXPECT_EQ(sig::absmax_decimate(to_device(std::vector<float>{}), 4, {}).shape(), (zf::shape_t{0}));
}

TEST_F(SignalDecimateCuda, StridedViews) {
  std::mt19937_64 rng(73);
  for (int trial = 0; trial < 8; ++trial) {
    const auto x = random_signal(rng, 50000 + trial, trial % 2 == 1);
    const auto host = to_array(x);
    const auto gpu = to_device(x);
    for (std::int64_t bucket : {1, 7, 32, 5000}) {
      const std::string what = "trial " + std::to_string(trial) + ", bucket " + std::to_string(bucket);
      expect_gpu_matches_host(host.slice(0, 3, 49000, 4), gpu.slice(0, 3, 49000, 4), bucket, what + ", step 4");
      expect_gpu_matches_host(host.slice(0, 49999, 0, -3), gpu.slice(0, 49999, 0, -3), bucket, what + ", step -3");
    }
  }
}

#if ZEROFLOW_HAS_CUDA
TEST_F(SignalDecimateCuda, NonDefaultStream) {
  owned_stream stream;
  std::mt19937_64 rng(74);
  const auto x = random_signal(rng, 300001, false);
  expect_gpu_matches_host(to_array(x), to_device(x, stream.view()), 32, "own stream", stream.view());
}
#endif

TEST_F(SignalDecimateCuda, TwentyMillionSamplesAtTheOverviewBucket) {
  std::mt19937_64 rng(75);
  const auto x = random_signal(rng, 20'000'000, false);
  expect_gpu_matches_host(x, 32, "20 M samples, bucket 32");
  expect_gpu_matches_host(x, 16, "20 M samples, bucket 16");
}
