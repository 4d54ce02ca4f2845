// read_recording on raw recordings (.f32, .i16, .i32): the sample type by extension, the channel
// by --lead's rules, the layout from recording_options::raw or the process-wide default.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"
#include "io/signal_file_writers.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;
using ::testing::HasSubstr;
using zeroflow::test::message_of;
using zeroflow::test::scratch_dir;

namespace {

std::vector<float> host_values(const zf::array& a) {
  const zf::array host = a.where().host_accessible() ? a : zf::copy_to(a, zf::cpu_device);
  const auto s = host.span<const float>();
  return {s.begin(), s.end()};
}

std::string f32_bytes(const std::vector<float>& v) {
  std::string out;
  for (float x : v) zeroflow::test::put_le(out, std::bit_cast<std::uint32_t>(x), 4);
  return out;
}

std::string i16_bytes(const std::vector<std::int16_t>& v) {
  std::string out;
  for (auto x : v) zeroflow::test::put_le(out, static_cast<std::uint16_t>(x), 2);
  return out;
}

}  // namespace

TEST(RawRecording, SampleTypeByExtension) {
  EXPECT_EQ(io::raw_sample_type("a/b.f32"), io::binary_sample::float32);
  EXPECT_EQ(io::raw_sample_type("b.I16"), io::binary_sample::int16);
  EXPECT_EQ(io::raw_sample_type("b.i32"), io::binary_sample::int32);
  EXPECT_FALSE(io::raw_sample_type("b.csv"));
  EXPECT_FALSE(io::raw_sample_type("b.f64"));
  EXPECT_FALSE(io::raw_sample_type("f32"));
}

TEST(RawRecording, Float32OneChannelAsStored) {
  scratch_dir dir;
  const std::vector<float> samples{0.5f, -1.25f, 3e-8f, 1234.5f, -0.0f};
  const auto path = dir.write("sig.f32", f32_bytes(samples));
  const auto r = io::read_recording(path);
  EXPECT_EQ(r.lead, "channel 0");
  EXPECT_EQ(r.leads, (std::vector<std::string>{"channel 0"}));
  EXPECT_DOUBLE_EQ(r.sample_rate, 0);  // the caller's to say
  EXPECT_EQ(r.units, "");
  EXPECT_EQ(r.signal.type(), zf::float32);
  const auto got = host_values(r.signal);
  ASSERT_EQ(got.size(), samples.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(samples[i])) << i;
}

TEST(RawRecording, Int16ChannelOfInterleavedFramesWithAGain) {
  scratch_dir dir;
  std::vector<std::int16_t> stored;
  for (int f = 0; f < 5; ++f)
    for (int c = 0; c < 3; ++c) stored.push_back(static_cast<std::int16_t>(100 * c - 7 * f));
  const auto path = dir.write("sig.i16", i16_bytes(stored));
  io::recording_options options;
  options.raw = io::raw_layout{3, 200};
  options.lead = "2";
  auto r = io::read_recording(path, options);
  EXPECT_EQ(r.lead, "channel 2");
  EXPECT_EQ(r.leads, (std::vector<std::string>{"channel 0", "channel 1", "channel 2"}));
  auto got = host_values(r.signal);
  ASSERT_EQ(got.size(), 5u);
  for (int f = 0; f < 5; ++f) EXPECT_EQ(got[f], static_cast<float>((200.0 - 7 * f) / 200)) << f;
  options.lead = "Channel 1";  // a name, whatever its case
  EXPECT_EQ(host_values(io::read_recording(path, options).signal)[4], static_cast<float>(72.0 / 200));
  options.lead.clear();  // channel 0
  EXPECT_EQ(io::read_recording(path, options).lead, "channel 0");
  options.lead = "3";
  EXPECT_THAT(message_of([&] { (void)io::read_recording(path, options); }),
              HasSubstr("sig.i16: no lead \"3\"; the signals there are 0 \"channel 0\", 1 \"channel 1\", 2 "
                        "\"channel 2\""));
  EXPECT_THROW((void)io::read_recording(path, options), zf::invalid_argument);
}

TEST(RawRecording, Int32AndTheLayoutsChecks) {
  scratch_dir dir;
  std::string bytes;
  for (std::int32_t v : {-4000000, 5, 4000000, 6}) zeroflow::test::put_le(bytes, static_cast<std::uint32_t>(v), 4);
  const auto path = dir.write("sig.i32", bytes);
  io::recording_options options;
  options.raw = io::raw_layout{2, 1000};
  EXPECT_EQ(host_values(io::read_recording(path, options).signal), (std::vector<float>{-4000, 4000}));
  // The default layout: one channel, taken as stored.
  EXPECT_EQ(host_values(io::read_recording(path).signal), (std::vector<float>{-4000000, 5, 4000000, 6}));
  for (const io::raw_layout bad :
       {io::raw_layout{0, 1}, io::raw_layout{1, 0}, io::raw_layout{1, std::numeric_limits<double>::infinity()}}) {
    options.raw = bad;
    EXPECT_THROW((void)io::read_recording(path, options), zf::invalid_argument);
  }
  options.raw = io::raw_layout{0, 1};
  EXPECT_THAT(message_of([&] { (void)io::read_recording(path, options); }),
              HasSubstr("sig.i32: a raw recording has 1"));
}

TEST(RawRecording, ASizeThatIsNoWholeNumberOfFramesIsRefused) {
  scratch_dir dir;
  const auto cut = dir.write("cut.f32", std::string(4 * 10 + 3, '\0'));
  const auto message = message_of([&] { (void)io::read_recording(cut); });
  EXPECT_THAT(message, HasSubstr("cut.f32: 43 bytes are not a whole number of float32 samples (4 bytes each)"));
  EXPECT_THROW((void)io::read_recording(cut), zf::parse_error);
  const auto odd = dir.write("odd.i16", std::string(2 * 5, '\0'));  // 5 samples: not frames of 2
  io::recording_options options;
  options.raw = io::raw_layout{2, 1};
  EXPECT_THAT(message_of([&] { (void)io::read_recording(odd, options); }),
              HasSubstr("odd.i16: 10 bytes are not a whole number of frames of 2 int16 samples (4 bytes each)"));
  EXPECT_EQ(io::read_recording(dir.write("empty.i16", "")).signal.size(), 0);
}

TEST(RawRecording, StraightToTheGpu) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no CUDA device";
  scratch_dir dir;
  std::vector<std::int16_t> stored{1, -2, 3, -4, 5, -6};
  const auto path = dir.write("sig.i16", i16_bytes(stored));
  io::recording_options options;
  options.raw = io::raw_layout{2, 4};
  options.lead = "1";
  const auto host = io::read_recording(path, options);
  options.where = zf::device{zf::device_type::cuda, 0};
  const auto gpu = io::read_recording(path, options);
  EXPECT_EQ(gpu.signal.where(), options.where);
  EXPECT_EQ(host_values(gpu.signal), host_values(host.signal));
  EXPECT_EQ(host_values(host.signal), (std::vector<float>{-0.5f, -1, -1.5f}));
}
