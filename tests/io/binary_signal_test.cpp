// The binary fast path (zeroflow/io/binary.hpp) on the host, checked against values recomputed
// here from the bytes the test writes, and against the WFDB reader's own decoder for formats 16
// and 32 (whose results the WFDB tests check against wfdb-python's sample records).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"
#include "io/signal_file_writers.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/binary.hpp"
#include "zeroflow/io/wfdb.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;
using zeroflow::test::message_of;
using zeroflow::test::scratch_dir;

namespace {

std::vector<float> values_of(const zf::array& a) {
  const auto* p = a.data_as<float>();
  return {p, p + a.size()};
}

// Bitwise equality, so that NaN payloads and -0.0 count too.
void expect_same_bits(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i])) << "sample " << i;
}

std::string le_bytes(const std::vector<std::int16_t>& v) {
  std::string out;
  for (auto x : v) zeroflow::test::put_le(out, static_cast<std::uint16_t>(x), 2);
  return out;
}

}  // namespace

TEST(BinarySignal, Int16ChannelOfInterleavedFramesAfterAHeader) {
  scratch_dir dir;
  constexpr int channels = 3, frames = 1000;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(-32768, 32767);
  std::vector<std::int16_t> stored(channels * frames);
  for (auto& v : stored) v = static_cast<std::int16_t>(dist(rng));
  stored[3 * 17 + 2] = -32768;  // "no sample" in channel 2
  const std::string header(37, 'h');
  const auto path = dir.write("x.i16", header + le_bytes(stored));

  io::binary_options o;
  o.type = io::binary_sample::int16;
  o.frame_samples = channels;
  o.channel = 2;
  o.byte_offset = header.size();
  o.gain = 204.8;
  o.baseline = -12;
  o.invalid = -32768;
  o.threads = 3;
  const auto got = values_of(io::read_binary_signal(path, o));
  std::vector<float> want(frames);
  for (int f = 0; f < frames; ++f) {
    const std::int16_t v = stored[static_cast<std::size_t>(f * channels + 2)];
    want[static_cast<std::size_t>(f)] =
        v == -32768 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>((double(v) + 12.0) / 204.8);
  }
  expect_same_bits(got, want);
  EXPECT_TRUE(std::isnan(got[17]));
}

TEST(BinarySignal, Float32InPhysicalUnitsArrivesBitForBit) {
  scratch_dir dir;
  std::vector<float> v = {0.5f, -0.0f, std::numeric_limits<float>::infinity(), 1e-40f, 3.25f};
  v.push_back(std::bit_cast<float>(0x7fc01234u));  // a NaN with a payload
  for (int i = 0; i < 100000; ++i) v.push_back(static_cast<float>(std::sin(i * 0.01)));
  std::string bytes(v.size() * 4, '\0');
  std::memcpy(bytes.data(), v.data(), bytes.size());
  const auto path = dir.write("x.f32", bytes);
  expect_same_bits(values_of(io::read_binary_signal(path, {})), v);
}

TEST(BinarySignal, Int32AndScaledFloat32Channels) {
  scratch_dir dir;
  std::string bytes;
  std::vector<std::int32_t> a;
  for (int f = 0; f < 500; ++f) {
    a.push_back(f * 100003 - 25000000);
    zeroflow::test::put_le(bytes, static_cast<std::uint32_t>(a.back()), 4);
    zeroflow::test::put_le(bytes, static_cast<std::uint32_t>(-f), 4);
  }
  const auto path = dir.write("x.i32", bytes);
  io::binary_options o;
  o.type = io::binary_sample::int32;
  o.frame_samples = 2;
  o.gain = 1000;
  o.baseline = 5;
  std::vector<float> want;
  for (auto x : a) want.push_back(static_cast<float>((double(x) - 5.0) / 1000.0));
  expect_same_bits(values_of(io::read_binary_signal(path, o)), want);

  o.type = io::binary_sample::float32;  // the same bytes read as float32 with a gain
  o.frames = 10;
  std::vector<float> want_f;
  for (int f = 0; f < 10; ++f) {
    float x;
    const std::uint32_t bits = static_cast<std::uint32_t>(a[static_cast<std::size_t>(f)]);
    std::memcpy(&x, &bits, 4);
    want_f.push_back(static_cast<float>((double(x) - 5.0) / 1000.0));
  }
  expect_same_bits(values_of(io::read_binary_signal(path, o)), want_f);
}

TEST(BinarySignal, RefusesLayoutsTheFileDoesNotHave) {
  scratch_dir dir;
  const auto path = dir.write("x.i16", std::string(10, '\0'));
  io::binary_options o;
  o.type = io::binary_sample::int16;
  o.frame_samples = 3;  // 10 bytes are not whole frames of 6
  EXPECT_NE(message_of([&] { (void)io::read_binary_signal(path, o); }).find("not a whole number of frames"),
            std::string::npos);
  EXPECT_THROW((void)io::read_binary_signal(path, o), zf::parse_error);
  o.frames = 2;  // 12 bytes needed
  EXPECT_NE(message_of([&] { (void)io::read_binary_signal(path, o); }).find("fewer than the 2 asked for"),
            std::string::npos);
  o.frames = 1;
  EXPECT_EQ(io::read_binary_signal(path, o).size(), 1);
  o.channel = 3;
  EXPECT_THROW((void)io::read_binary_signal(path, o), zf::invalid_argument);
  o.channel = 0;
  o.gain = 0;
  EXPECT_THROW((void)io::read_binary_signal(path, o), zf::invalid_argument);
  o.gain = 1;
  EXPECT_THROW((void)io::read_binary_signal(dir.path() / "missing.i16", o), zf::error);
  o.frames.reset();
  o.frame_samples = 1;
  o.byte_offset = 100;  // past the end: no frames at all
  EXPECT_EQ(io::read_binary_signal(path, o).size(), 0);
}

TEST(BinarySignal, WfdbFormats16And32MatchTheDecoder) {
  const auto hea = zeroflow::test::wfdb_samples_dir / "binformats.hea";
  const io::wfdb_header header = io::read_wfdb_header(hea);
  int fast = 0;
  for (std::size_t i = 0; i < header.signals.size(); ++i) {
    const bool raw = header.signals[i].format == 16 || header.signals[i].format == 32;
    EXPECT_EQ(io::wfdb_binary_layout(header, i).has_value(), raw) << "format " << header.signals[i].format;
    fast += raw ? 1 : 0;
    expect_same_bits(values_of(io::read_wfdb_signal_to(hea, header, i, zf::cpu_device)),
                     values_of(io::read_wfdb_signal(hea, header, i)));
  }
  EXPECT_EQ(fast, 2);
}

TEST(BinarySignal, WfdbSharedFileWithOffsetAndMissingSamples) {
  scratch_dir dir;
  std::vector<std::int32_t> samples;
  for (int f = 0; f < 300; ++f)
    for (int s = 0; s < 3; ++s) samples.push_back(f % 50 == 7 && s == 1 ? -32768 : (f * 37 + s * 1000) % 4000 - 2000);
  dir.write("r.dat", std::string(24, 'x') + zeroflow::test::wfdb_stream(16, samples, 3) + std::string(3, '\0'));
  dir.write("r.hea",
            "r 3 360 0\n"
            "r.dat 16+24 200(-10)/mV 16 0 0 0 0 I\n"
            "r.dat 16+24 100(5)/mV 16 0 0 0 0 MLII\n"
            "r.dat 16+24 50/mV 16 0 0 0 0 V1\n");
  const auto hea = dir.path() / "r.hea";
  const io::wfdb_header header = io::read_wfdb_header(hea);
  const auto layout = io::wfdb_binary_layout(header, 1);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->frame_samples, 3u);
  EXPECT_EQ(layout->channel, 1u);
  EXPECT_EQ(layout->byte_offset, 24u);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto got = values_of(io::read_wfdb_signal_to(hea, header, i, zf::cpu_device));
    ASSERT_EQ(got.size(), 300u);  // the trailing partial frame is no sample
    expect_same_bits(got, values_of(io::read_wfdb_signal(hea, header, i)));
  }
  EXPECT_TRUE(std::isnan(values_of(io::read_wfdb_signal_to(hea, header, 1, zf::cpu_device))[7]));
  EXPECT_FLOAT_EQ(values_of(io::read_wfdb_signal_to(hea, header, 1, zf::cpu_device))[1],
                  (37.0f + 1000 - 2000 - 5) / 100);
}

TEST(BinarySignal, WfdbShortFileIsTheDecodersError) {
  scratch_dir dir;
  dir.write("s.dat", zeroflow::test::wfdb_stream(16, std::vector<std::int32_t>(10, 1)));
  dir.write("s.hea", "s 1 250 20\ns.dat 16 200/mV 16 0 0 0 0 II\n");
  const auto hea = dir.path() / "s.hea";
  const io::wfdb_header header = io::read_wfdb_header(hea);
  const std::string msg = message_of([&] { (void)io::read_wfdb_signal_to(hea, header, 0, zf::cpu_device); });
  EXPECT_EQ(msg, message_of([&] { (void)io::read_wfdb_signal(hea, header, 0); }));
  EXPECT_NE(msg.find("truncated"), std::string::npos);
}
