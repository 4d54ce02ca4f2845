// signal::warm_up: nothing on the host, parameters checked everywhere, and on the GPU every byte
// it takes from the pool given back (a warm-up must not grow the run's memory).
#include "zeroflow/signal/warm_up.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;

namespace {

using counted = sig::testing::counted_allocations;

}  // namespace

TEST(WarmUp, DoesNothingOnTheHost) {
  counted host(zf::cpu_device);
  sig::warm_up({}, zf::cpu_device, {});
  EXPECT_EQ(host.numbers().total_count, 0);
}

TEST(WarmUp, RefusesParametersSegmentationWouldRefuse) {
  sig::segment_params bad;
  bad.min_beat_seconds = 2.0;  // longer than max_beat_seconds
  EXPECT_THROW(sig::warm_up(bad, zf::cpu_device, {}), zf::invalid_argument);
  bad = {};
  bad.sample_rate = 0;
  EXPECT_THROW(sig::warm_up(bad, zf::cuda_device(0), {}), zf::invalid_argument);
}

using WarmUpCuda = sig::testing::cuda_signal_test;

TEST_F(WarmUpCuda, SegmentsOnTheDeviceAndGivesEveryByteBack) {
  counted device(sig::testing::gpu0);
  for (double rate : {250.0, 360.0, 1000.0}) {
    sig::segment_params params;
    params.sample_rate = rate;
    sig::warm_up(params, sig::testing::gpu0, {});
  }
  const auto numbers = device.numbers();
  EXPECT_GT(numbers.total_count, 10);  // it did segment: signal, filtered, gate, positions, rows...
  EXPECT_EQ(numbers.current_bytes, 0U);
}

TEST(WarmUp, OnAHostRecordingDoesNothing) {
  const zf::array x = sig::testing::to_array(std::vector<float>(5000, 1.0f));
  counted host(zf::cpu_device);
  sig::warm_up(x, {}, {});
  EXPECT_EQ(host.numbers().total_count, 0);
}

TEST_F(WarmUpCuda, OnTheRecordingSegmentsItAndGivesEveryByteBack) {
  std::vector<float> samples(200'000);
  for (std::size_t i = 0; i < samples.size(); ++i)
    samples[i] = (i % 200 < 5) ? 2.0f : 0.01f * static_cast<float>(i % 7);  // a spike every 200 samples
  const zf::array x = sig::testing::to_device(samples);
  counted device(sig::testing::gpu0);
  sig::warm_up(x, {}, {});
  const auto numbers = device.numbers();
  // Segmentation carves its scratch from one arena chunk (segment.cu), so a handful of pool
  // allocations: the chunk, the signal's copies and the outputs. The peak shows the rows were made.
  EXPECT_GE(numbers.total_count, 3);
  EXPECT_GT(numbers.peak_bytes, 200'000U * 256 * 4 / 200);  // at least the rows of ~1000 beats
  EXPECT_EQ(numbers.current_bytes, 0U);
}
