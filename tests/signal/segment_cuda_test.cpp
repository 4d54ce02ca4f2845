// segment_beats on the GPU against the CPU on long synthetic ECGs: every intermediate (filtered
// signal, gate, positions, lengths, histogram, peaks, normalisation, kept flags, indices, rows)
// identical, on the legacy default stream, a created non-blocking stream and the per-thread
// default stream; and the fused band-pass + gate on the same recordings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "signal/detail_cuda/bandpass_gate.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
namespace synth = zeroflow::synth;
using namespace zeroflow::signal::testing;

namespace {

synth::ecg_recording recording(double hours, double rate, std::uint64_t seed) {
  synth::ecg_options o;
  o.hours = hours;
  o.sample_rate = rate;
  o.seed = seed;
  return synth::generate_ecg(o);
}

/// segment_beats on the GPU against the host: the fields both methods fill, then the seed's own
/// (the gate, which candidates are kept and their indices).
void expect_same_segmentation(const sig::segmentation& gpu, const sig::segmentation& cpu, zf::stream_view stream,
                              const std::string& what) {
  EXPECT_EQ(gpu.sizes.ricker_width, cpu.sizes.ricker_width);
  expect_same_segmentation_fields(gpu, cpu, stream, what);
  EXPECT_EQ(int_mismatch(from_device<std::uint8_t>(gpu.gate, stream), to_vector<std::uint8_t>(cpu.gate)), "")
      << what << ": gate";
  EXPECT_EQ(int_mismatch(from_device<std::uint8_t>(gpu.beats.kept, stream), to_vector<std::uint8_t>(cpu.beats.kept)),
            "")
      << what << ": kept";
  EXPECT_EQ(int_mismatch(from_device<std::int64_t>(gpu.beats.kept_index, stream),
                         to_vector<std::int64_t>(cpu.beats.kept_index)),
            "")
      << what << ": kept_index";
}

}  // namespace

using SignalSegmentCuda = cuda_signal_test;

TEST_F(SignalSegmentCuda, LongEcgIsIdenticalOnCpuAndGpu) {
  // Six hours at 250 Hz (5.4 M samples, ~25 000 beats), and shorter recordings at other rates.
  struct variant {
    double hours, rate;
    std::uint64_t seed;
  };
  for (const variant v : {variant{6.0, 250, 42}, variant{0.5, 360, 7}, variant{0.5, 500, 3}, variant{0.01, 250, 5}}) {
    const auto ecg = recording(v.hours, v.rate, v.seed);
    sig::segment_params params;
    params.sample_rate = v.rate;
    const auto cpu = sig::segment_beats(to_array(ecg.samples), params, {});
    const auto gpu = sig::segment_beats(to_device(ecg.samples), params, {});
    ASSERT_GT(cpu.beats.kept_index.size(), 0) << "the recording should have kept beats";
    expect_same_segmentation(gpu, cpu, {}, std::to_string(v.hours) + " h at " + std::to_string(v.rate) + " Hz");
  }
}

TEST_F(SignalSegmentCuda, ShortestSignalsAndFlatSignals) {
  sig::segment_params params;  // 30 taps, window 180: 180 samples is the minimum
  std::vector<float> x(180);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 101) * 0.01f;
  expect_same_segmentation(sig::segment_beats(to_device(x), params, {}), sig::segment_beats(to_array(x), params, {}),
                           {}, "180 samples");
  const std::vector<float> constant(5000, 3.0f);  // MAD 0 and stddev 0: scale 1, no beats
  expect_same_segmentation(sig::segment_beats(to_device(constant), params, {}),
                           sig::segment_beats(to_array(constant), params, {}), {}, "constant");
  // Beats on a flat line: more than half the samples equal, so MAD 0 and the scale is the
  // standard deviation, which the GPU path takes from the host after its read-back (and then
  // fills the rows again).
  std::vector<float> spikes(40000, 1.5f);
  for (std::size_t at = 100; at + 8 < spikes.size(); at += 190 + (at / 190) % 40)
    for (int d = -3; d <= 3; ++d)
      spikes[at + static_cast<std::size_t>(d + 3)] += 2.0f - 0.5f * static_cast<float>(d * d);
  const auto cpu = sig::segment_beats(to_array(spikes), params, {});
  ASSERT_GT(cpu.beats.kept_index.size(), 100);
  ASSERT_NE(cpu.norm.scale, 1.0f) << "the standard deviation, not the last fallback";
  expect_same_segmentation(sig::segment_beats(to_device(spikes), params, {}), cpu, {}, "spikes on a flat line");
}

TEST_F(SignalSegmentCuda, TiesBeyondThePositionBufferAreCountedAgain) {
  // The GPU path first writes the gate positions into a buffer sized for a gate without ties
  // (about one position per half window). A stretch that repeats every 20 samples filters to a
  // signal that repeats exactly (the same sums in the same order), so the nine maxima in each
  // window tie and the gate opens once per period: more positions than that buffer holds, so
  // they are counted again exactly. The result must not show it.
  sig::segment_params params;                   // window 180 at 250 Hz: room for ~1 position per 90 samples
  auto ecg = recording(0.25, 250, 11).samples;  // 225 000 samples, ~1 000 beats
  std::vector<float> period(20);
  for (std::size_t k = 0; k < period.size(); ++k) period[k] = 0.8f * static_cast<float>(std::sin(0.1 * M_PI * k));
  for (std::size_t i = 100'000; i < 140'000; ++i) ecg[i] = period[i % period.size()];
  const auto cpu = sig::segment_beats(to_array(ecg), params, {});
  ASSERT_GT(cpu.positions.size(), 225'000 / 90 + 2) << "the ties should overflow the first buffer";
  ASSERT_GT(cpu.beats.kept_index.size(), 500);
  const auto before = zf::device_to_host_transfers();
  const auto gpu = sig::segment_beats(to_device(ecg), params, {});
  EXPECT_EQ(zf::device_to_host_transfers().copies - before.copies, 3) << "the read-back, the exact count, once more";
  expect_same_segmentation(gpu, cpu, {}, "alternating stretch");
}

TEST_F(SignalSegmentCuda, WaitsForTheHostOnce) {
  // Every count and the normalisation come back in one copy at the end.
  const auto ecg = recording(1.0, 250, 21);
  const zf::array x = to_device(ecg.samples);
  (void)sig::segment_beats(x, {}, {});  // first use: kernels load, the pool grows
  const auto before = zf::device_to_host_transfers();
  const auto s = sig::segment_beats(x, {}, {});
  const auto after = zf::device_to_host_transfers();
  EXPECT_EQ(after.copies - before.copies, 1);
  EXPECT_LE(after.bytes - before.bytes, 128);
  EXPECT_GT(s.beats.rows.shape(0), 3000);
}

TEST_F(SignalSegmentCuda, AllocatesFromThePoolAHandfulOfTimes) {
  // One arena chunk for the small buffers; the pool sees only the big ones and the side stream's.
  const auto ecg = recording(1.0, 250, 22);
  const zf::array x = to_device(ecg.samples);
  const auto cpu = sig::segment_beats(to_array(ecg.samples), {}, {});
  const sig::testing::counted_allocations counted(x.where());
  std::int64_t allocations = 0;
  {
    const auto gpu = sig::segment_beats(x, {}, {});
    allocations = counted.numbers().total_count;
    expect_same_segmentation(gpu, cpu, {}, "from the arena");
  }
  // The chunk, filtered signal, gate, rows; the subsample and the median/MAD scratch on the side.
  EXPECT_LE(allocations, 6);
  EXPECT_GE(allocations, 4);
  EXPECT_EQ(counted.numbers().current_count, 0) << "everything went back, the chunk included";
}

TEST_F(SignalSegmentCuda, NonDefaultStream) {
  const auto ecg = recording(1.0, 250, 17);
  const auto cpu = sig::segment_beats(to_array(ecg.samples), {}, {});
  on_created_stream([&](zf::stream_view stream) {
    const zf::array x = to_device(ecg.samples, stream);
    const auto gpu = sig::segment_beats(x, {}, stream);
    expect_same_segmentation(gpu, cpu, stream, "created stream");
  });
}

TEST_F(SignalSegmentCuda, PerThreadDefaultStream) {
  const auto ecg = recording(1.0, 250, 18);
  const auto cpu = sig::segment_beats(to_array(ecg.samples), {}, {});
  const zf::stream_view stream = zf::stream_view::per_thread();
  const zf::array x = to_device(ecg.samples, stream);
  const auto gpu = sig::segment_beats(x, {}, stream);
  expect_same_segmentation(gpu, cpu, stream, "per-thread stream");
}

TEST_F(SignalSegmentCuda, FusedBandpassAndGateOnAnEcg) {
  const auto ecg = recording(2.0, 250, 19);
  const auto cpu = sig::segment_beats(to_array(ecg.samples), {}, {});
  on_created_stream([&](zf::stream_view stream) {
    const auto fused = sig::detail::bandpass_gate_cuda(to_device(ecg.samples, stream), cpu.sizes.ricker_width,
                                                       cpu.sizes.nms_window, stream);
    EXPECT_EQ(float_mismatch(from_device<float>(fused.filtered, stream), to_vector<float>(cpu.filtered)), "");
    EXPECT_EQ(int_mismatch(from_device<std::uint8_t>(fused.gate, stream), to_vector<std::uint8_t>(cpu.gate)), "");
  });
}
