// Segmentation in chunks (pipeline/chunked.hpp) against the in-memory segmentation of the same
// recording: the same peaks, rows (bit for bit), rhythm and histogram at every chunk size, chunk
// edges inside beats included; and the byte sizes --max-device-memory reads. GPU tests skip
// without one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/pipeline/chunked.hpp"
#include "zeroflow/signal/decimate.hpp"
#include "zeroflow/signal/display.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;

namespace {

/// 75 minutes at 250 Hz (more than 2^20 samples, so the overview's buckets hold 2 samples and the
/// normalisation takes a strided subsample), with PVCs, APBs, noise bursts, baseline jumps and a
/// gap of NaN samples.
const zf::array& recording() {
  static const zf::array signal = [] {
    zf::synth::ecg_options o;
    o.hours = 75.0 / 60;
    o.seed = 19;
    o.apb_rate = 0.03;
    o.noise_bursts_per_hour = 20;
    o.baseline_jumps_per_hour = 20;
    auto ecg = zf::synth::generate_ecg(o);
    for (std::size_t i = 400'000; i < 400'300; ++i) ecg.samples[i] = std::numeric_limits<float>::quiet_NaN();
    zf::array a = zf::empty({static_cast<std::int64_t>(ecg.samples.size())}, zf::float32);
    std::memcpy(a.data(), ecg.samples.data(), a.nbytes());
    return a;
  }();
  return signal;
}

/// Short stretches, so that a 75-minute recording has dozens of the detector's stretch edges.
zf::signal::segment_params params() {
  zf::signal::segment_params p;
  p.stretch_seconds = 60;
  p.overlap_seconds = 12;
  return p;
}

template <class T>
std::vector<T> values(const zf::array& a) {
  if (!a.valid() || a.size() == 0) return {};
  const zf::array host = zf::copy_to(a, zf::cpu_device);
  zf::synchronize({});
  const auto s = host.span<const T>();
  return {s.begin(), s.end()};
}

/// Bit patterns, so that NaN == NaN and -0 != +0.
std::vector<std::uint32_t> bits(const zf::array& a) {
  std::vector<std::uint32_t> out;
  for (float v : values<float>(a)) out.push_back(std::bit_cast<std::uint32_t>(v));
  return out;
}

void expect_same(const zf::signal::segmentation& whole, const zf::pipeline::chunked_segmentation& chunked) {
  const auto& c = chunked.seg;
  ASSERT_EQ(values<std::int64_t>(c.peaks), values<std::int64_t>(whole.peaks));
  EXPECT_EQ(values<std::int64_t>(c.lengths), values<std::int64_t>(whole.lengths));
  EXPECT_EQ(values<std::int64_t>(c.histogram), values<std::int64_t>(whole.histogram));
  EXPECT_EQ(c.norm.center, whole.norm.center);
  EXPECT_EQ(c.norm.scale, whole.norm.scale);
  ASSERT_EQ(c.beats.rows.shape(), whole.beats.rows.shape());
  EXPECT_EQ(bits(c.beats.rows.reshape({c.beats.rows.size()})),
            bits(zf::copy_to(whole.beats.rows, whole.beats.rows.where()).reshape({whole.beats.rows.size()})));
  EXPECT_EQ(bits(c.rr.rr_before), bits(whole.rr.rr_before));
  EXPECT_EQ(bits(c.rr.rr_after), bits(whole.rr.rr_after));
  EXPECT_EQ(bits(c.rr.local_rr), bits(whole.rr.local_rr));
  EXPECT_EQ(bits(c.rr.irregularity), bits(whole.rr.irregularity));
}

/// How many chunk edges fall inside a beat's row window (so rows were cut from two chunks).
int edges_inside_beats(const std::vector<std::int64_t>& peaks, std::int64_t chunk, std::int64_t n,
                       const zf::signal::segment_sizes& sizes) {
  int inside = 0;
  for (std::int64_t edge = chunk; edge < n; edge += chunk)
    for (auto p : peaks)
      if (p - sizes.window_before < edge && edge < p + sizes.window_after) {
        ++inside;
        break;
      }
  return inside;
}

void check_sizes(zf::device where) {
  const zf::array& x = recording();
  const auto whole = zf::signal::segment_recording(zf::copy_to(x, where), params(), {});
  const auto peaks = values<std::int64_t>(whole.peaks);
  ASSERT_GT(peaks.size(), 4000U);
  const auto bucket = zf::signal::overview_bucket(x.size(), zf::signal::display_sizes{}.overview_budget);
  ASSERT_EQ(bucket, 2);
  const auto overview = values<float>(zf::signal::minmax_decimate(x, bucket, {}));
  // 4096: the smallest chunk; 10002 and 77778: edges that meet neither the detector's stretches nor
  // round numbers; 15000: exactly the stretch; 0: one chunk.
  for (std::int64_t size :
       {std::int64_t{4096}, std::int64_t{10002}, std::int64_t{15000}, std::int64_t{77778}, std::int64_t{0}}) {
    SCOPED_TRACE("chunk of " + std::to_string(size) + " samples");
    zf::pipeline::chunk_options o;
    o.chunk_samples = size;
    const auto chunked = zf::pipeline::segment_in_chunks(x, params(), where, o, {});
    expect_same(whole, chunked);
    if (size > 0) {
      EXPECT_EQ(chunked.chunk_samples, size);
      EXPECT_EQ(chunked.chunks, (x.size() + size - 1) / size);
      EXPECT_GT(edges_inside_beats(peaks, size, x.size(), whole.sizes), size < 20000 ? 20 : 3);
    } else {
      EXPECT_EQ(chunked.chunks, 1);
    }
    std::vector<float> interleaved;
    for (std::size_t b = 0; b < chunked.overview_min.size(); ++b) {
      interleaved.push_back(chunked.overview_min[b]);
      interleaved.push_back(chunked.overview_max[b]);
    }
    EXPECT_EQ(interleaved.size(), overview.size());
    EXPECT_TRUE(std::equal(
        interleaved.begin(), interleaved.end(), overview.begin(), overview.end(),
        [](float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }));
  }
}

}  // namespace

TEST(ChunkedSegment, SameAsInMemoryAtEveryChunkSizeOnHost) { check_sizes(zf::cpu_device); }

TEST(ChunkedSegment, SameAsInMemoryAtEveryChunkSizeOnGpu) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  check_sizes(zf::cuda_device(0));
}

TEST(ChunkedSegment, BudgetSizesTheChunks) {
  zf::pipeline::chunk_options o;
  o.budget_bytes = 4 << 20;  // 4 MiB: chunks of about 87,000 samples
  const auto chunked = zf::pipeline::segment_in_chunks(recording(), params(), zf::cpu_device, o, {});
  EXPECT_GT(chunked.chunks, 10);
  EXPECT_LE(chunked.chunk_samples * 48, std::int64_t{4} << 20);
  EXPECT_EQ(chunked.chunk_samples % chunked.overview_bucket, 0);
}

TEST(ChunkedSegment, RefusesTheSeedMethod) {
  auto p = params();
  p.method = zf::signal::segmentation_method::gate_to_gate;
  EXPECT_THROW((void)zf::pipeline::segment_in_chunks(recording(), p, zf::cpu_device, {}, {}), zf::invalid_argument);
}

TEST(ChunkedSegment, ChunkMarginCoversTheDetectorsWindows) {
  const auto sizes = zf::signal::sizes_for(params());
  EXPECT_GE(zf::pipeline::chunk_margin(sizes), sizes.ricker_width + sizes.refractory + sizes.slope_half_window + 2);
}

TEST(ParseByteSize, ReadsSuffixesAsPowersOf1024) {
  using zf::pipeline::parse_byte_size;
  EXPECT_EQ(parse_byte_size("2G"), std::int64_t{2} << 30);
  EXPECT_EQ(parse_byte_size("512M"), std::int64_t{512} << 20);
  EXPECT_EQ(parse_byte_size("512m"), std::int64_t{512} << 20);
  EXPECT_EQ(parse_byte_size("1.5G"), std::int64_t{3} << 29);
  EXPECT_EQ(parse_byte_size("64MiB"), std::int64_t{64} << 20);
  EXPECT_EQ(parse_byte_size("64MB"), std::int64_t{64} << 20);
  EXPECT_EQ(parse_byte_size("100K"), 102400);
  EXPECT_EQ(parse_byte_size("2T"), std::int64_t{2} << 40);
  EXPECT_EQ(parse_byte_size("100000000"), 100000000);
  EXPECT_EQ(parse_byte_size("123B"), 123);
}

TEST(ParseByteSize, RefusesWhatIsNotASize) {
  using zf::pipeline::parse_byte_size;
  for (const char* bad : {"", "G", "-1G", "2X", "2GG", "1.2.3M", "two", "1e3", "2 G", "99999999T"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW((void)parse_byte_size(bad), zf::invalid_argument);
  }
}
