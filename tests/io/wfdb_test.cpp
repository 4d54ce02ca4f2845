#include "zeroflow/io/wfdb.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"
#include "io/signal_file_writers.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/io/labels.hpp"
#include "zeroflow/io/recording.hpp"

namespace zf = zeroflow;
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

using zeroflow::test::message_of;

const fs::path& samples_dir = zeroflow::test::wfdb_samples_dir;
const fs::path& shared_data = zeroflow::test::shared_data_dir;

// The WFDB checksum: the 16-bit two's complement sum of a signal's stored samples.
int checksum_of(const std::vector<std::int32_t>& samples) {
  std::uint32_t sum = 0;
  for (auto v : samples) sum += static_cast<std::uint32_t>(v);
  return static_cast<std::int16_t>(static_cast<std::uint16_t>(sum & 0xFFFF));
}

// Values across a format's whole range, its extremes and its invalid value included.
std::vector<std::int32_t> range_values(int bits, int count) {
  const std::int64_t lo = -(std::int64_t{1} << (bits - 1)), hi = (std::int64_t{1} << (bits - 1)) - 1;
  std::vector<std::int32_t> out = {static_cast<std::int32_t>(lo), static_cast<std::int32_t>(hi), 0, -1, 1};
  std::uint64_t state = 12345;
  while (static_cast<int>(out.size()) < count) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto span = static_cast<std::uint64_t>(hi - lo + 1);
    out.push_back(static_cast<std::int32_t>(lo + static_cast<std::int64_t>((state >> 11) % span)));
  }
  return out;
}

int bits_of(int format) {
  switch (format) {
    case 8:
    case 80:
      return 8;
    case 310:
    case 311:
      return 10;
    case 212:
      return 12;
    case 24:
      return 24;
    case 32:
      return 32;
    default:
      return 16;
  }
}

}  // namespace

TEST(WfdbHeader, RecordAndSignalLinesWithEveryField) {
  const auto h = zf::io::parse_wfdb_header(
      "# a comment before the record line\r\n"
      "rec 3 360/1.5(100) 1000 12:30:15 01/02/2003\r\n"
      "rec.dat 16x4:2+512 200.5(-10)/uV 16 5 7 1234 0 ECG lead II\r\n"
      "\n"
      "rec.dat 16 0 11\n"
      "  # indented comment\n"
      "other.dat 212\n"
      "#age: 81\n",
      "rec.hea");
  EXPECT_EQ(h.record_name, "rec");
  EXPECT_DOUBLE_EQ(h.frame_frequency, 360);
  EXPECT_DOUBLE_EQ(h.counter_frequency, 1.5);
  EXPECT_DOUBLE_EQ(h.base_counter, 100);
  EXPECT_EQ(h.frames, 1000);
  EXPECT_EQ(h.base_time, "12:30:15");
  EXPECT_EQ(h.base_date, "01/02/2003");
  ASSERT_EQ(h.signals.size(), 3u);
  const auto& a = h.signals[0];
  EXPECT_EQ(a.file_name, "rec.dat");
  EXPECT_EQ(a.format, 16);
  EXPECT_EQ(a.samples_per_frame, 4);
  EXPECT_EQ(a.skew, 2);
  EXPECT_EQ(a.byte_offset, 512);
  EXPECT_DOUBLE_EQ(a.gain, 200.5);
  EXPECT_EQ(a.baseline, -10);
  EXPECT_EQ(a.units, "uV");
  EXPECT_EQ(a.adc_resolution, 16);
  EXPECT_EQ(a.adc_zero, 5);
  EXPECT_EQ(a.initial_value, 7);
  EXPECT_EQ(a.checksum, 1234);
  EXPECT_EQ(a.block_size, 0);
  EXPECT_EQ(a.description, "ECG lead II");
  EXPECT_DOUBLE_EQ(h.sample_rate(0), 1440);
  // gain 0 is WFDB's default gain 200; baseline and initial value default to the ADC zero
  const auto& b = h.signals[1];
  EXPECT_DOUBLE_EQ(b.gain, 200);
  EXPECT_EQ(b.adc_resolution, 11);
  EXPECT_EQ(b.baseline, 0);
  EXPECT_EQ(b.units, "mV");
  EXPECT_FALSE(b.checksum.has_value());
  const auto& c = h.signals[2];
  EXPECT_EQ(c.format, 212);
  EXPECT_DOUBLE_EQ(c.gain, 200);
  EXPECT_EQ(c.adc_resolution, 12);
  EXPECT_EQ(c.description, "");
  EXPECT_DOUBLE_EQ(h.sample_rate(2), 360);
  EXPECT_EQ(h.comments, (std::vector<std::string>{"a comment before the record line", "indented comment", "age: 81"}));
}

TEST(WfdbHeader, ShortRecordLineTakesDefaults) {
  const auto h = zf::io::parse_wfdb_header("r 1\nr.dat 80 100(3)\n", "r.hea");
  EXPECT_DOUBLE_EQ(h.frame_frequency, 250);
  EXPECT_EQ(h.frames, 0);
  EXPECT_EQ(h.signals[0].baseline, 3);
  EXPECT_EQ(h.signals[0].adc_zero, 0);
  EXPECT_EQ(h.signals[0].adc_resolution, 8);
  EXPECT_EQ(h.signals[0].units, "mV");
}

TEST(WfdbHeader, Latin1UnitsBecomeUtf8) {
  const auto h = zf::io::parse_wfdb_header("r 1 1 10\nr.dat 16 32.7675/\xB5V 15 0 0 0 0 sine\n", "r.hea");
  EXPECT_EQ(h.signals[0].units, "\xC2\xB5V");
  EXPECT_EQ(h.signals[0].description, "sine");
}

TEST(WfdbHeader, ErrorsNameFileLineAndField) {
  const auto bad_gain = message_of([] { (void)zf::io::parse_wfdb_header("r 1 360\nr.dat 16 abc/mV\n", "r.hea"); });
  EXPECT_THAT(bad_gain, HasSubstr("r.hea:2: "));
  EXPECT_THAT(bad_gain, HasSubstr("ADC gain \"abc\""));
  EXPECT_THAT(bad_gain, Not(HasSubstr(".cpp")));
  EXPECT_THROW((void)zf::io::parse_wfdb_header("r 1 360\nr.dat 16 200(1/mV\n", "r.hea"), zf::parse_error);

  const auto format = message_of([] { (void)zf::io::parse_wfdb_header("r 1\n\nr.dat 999\n", "r.hea"); });
  EXPECT_THAT(format, HasSubstr("r.hea:3: storage format 999 is not supported"));
  EXPECT_THAT(message_of([] { (void)zf::io::parse_wfdb_header("r 1\nr.dat 516\n", "r.hea"); }), HasSubstr("FLAC"));
  EXPECT_THAT(message_of([] { (void)zf::io::parse_wfdb_header("r 1\nr.dat 16y2\n", "r.hea"); }),
              HasSubstr("r.hea:2: cannot read the storage format \"16y2\""));
  EXPECT_THAT(message_of([] { (void)zf::io::parse_wfdb_header("r 1\nr.dat 16x0\n", "r.hea"); }),
              HasSubstr("samples per frame"));
  EXPECT_THAT(message_of([] { (void)zf::io::parse_wfdb_header("r/3 2 360 100\n", "r.hea"); }),
              HasSubstr("multi-segment"));
  EXPECT_THAT(message_of([] { (void)zf::io::parse_wfdb_header("r 2 360\nr.dat 16\n", "r.hea"); }),
              HasSubstr("announces 2 signals but the header describes only 1"));
  EXPECT_THAT(message_of([] { (void)zf::io::parse_wfdb_header("r 1 360\nr.dat 16\nr.dat 16\n", "r.hea"); }),
              HasSubstr("r.hea:3: unexpected line"));
  EXPECT_THAT(message_of([] { (void)zf::io::parse_wfdb_header("r x 360\n", "r.hea"); }),
              HasSubstr("number of signals \"x\""));
  EXPECT_THAT(message_of([] { (void)zf::io::parse_wfdb_header("r 1 -5\nr.dat 16\n", "r.hea"); }),
              HasSubstr("sampling frequency must be positive"));
  EXPECT_THAT(message_of([] { (void)zf::io::parse_wfdb_header("# only comments\n", "r.hea"); }),
              HasSubstr("no record line"));
  EXPECT_THAT(message_of([] { (void)zf::io::parse_wfdb_header("r 1\nr.dat 16 200 12 zero\n", "r.hea"); }),
              HasSubstr("ADC zero \"zero\""));
}

TEST(WfdbSignals, EveryStorageFormatDecodesItsWholeRange) {
  for (int format : {8, 16, 24, 32, 61, 80, 160, 212, 310, 311}) {
    SCOPED_TRACE("format " + std::to_string(format));
    // Odd lengths leave partial groups in the packed formats (212: 2 of 3 bytes, 310/311: 1 or 2
    // of 3 samples); format 8 stores differences, so its values must stay within a byte's step.
    for (int count : {200, 201, 202}) {
      std::vector<std::int32_t> values;
      if (format == 8) {
        std::int32_t v = 5;
        for (int i = 0; i < count; ++i) values.push_back(v += (i * 37 % 255) - 127);
      } else {
        values = range_values(bits_of(format), count);
      }
      zf::test::scratch_dir dir;
      dir.write("r.dat", zf::test::wfdb_stream(format, values, 1, {5}));
      const auto hea = dir.write("r.hea", "r 1 500 " + std::to_string(count) + "\nr.dat " + std::to_string(format) +
                                              " 100(-7)/mV 16 0 5 0 0 sig\n");
      const auto header = zf::io::read_wfdb_header(hea);
      EXPECT_EQ(zf::io::read_wfdb_samples(hea, header, 0), values);
      const auto physical = zf::io::read_wfdb_signal(hea, header, 0);
      ASSERT_EQ(physical.size(), count);
      const auto span = physical.span<const float>();
      const std::int32_t invalid = zf::io::wfdb_invalid_sample(format);
      for (int i = 0; i < count; ++i) {
        if (values[i] == invalid && format != 8) {
          EXPECT_TRUE(std::isnan(span[i])) << i;
        } else {
          EXPECT_FLOAT_EQ(span[i], static_cast<float>((values[i] + 7.0) / 100.0)) << i;
        }
      }
    }
  }
}

TEST(WfdbSignals, InvalidValuesOfEachFormat) {
  EXPECT_EQ(zf::io::wfdb_invalid_sample(16), -32768);
  EXPECT_EQ(zf::io::wfdb_invalid_sample(61), -32768);
  EXPECT_EQ(zf::io::wfdb_invalid_sample(160), -32768);
  EXPECT_EQ(zf::io::wfdb_invalid_sample(212), -2048);
  EXPECT_EQ(zf::io::wfdb_invalid_sample(310), -512);
  EXPECT_EQ(zf::io::wfdb_invalid_sample(311), -512);
  EXPECT_EQ(zf::io::wfdb_invalid_sample(80), -128);
  EXPECT_EQ(zf::io::wfdb_invalid_sample(24), -(1 << 23));
  EXPECT_EQ(zf::io::wfdb_invalid_sample(32), std::numeric_limits<std::int32_t>::min());
}

TEST(WfdbSignals, InterleavedSignalsWithSamplesPerFrameSkewAndOffset) {
  // One file, three signals: a (1 per frame), b (2 per frame, 2x the rate), c (1 per frame,
  // skew 1: its sample t is stored in frame t + 1). 5 frames, 16-byte preamble.
  const int frames = 5;
  std::vector<std::int32_t> stream;
  for (int f = 0; f < frames + 1; ++f) {  // one extra frame holds c's last sample
    stream.push_back(100 + f);
    stream.push_back(200 + 2 * f);
    stream.push_back(201 + 2 * f);
    stream.push_back(f == 0 ? 0 : 300 + f - 1);
  }
  zf::test::scratch_dir dir;
  dir.write("m.dat", std::string(16, '\x55') + zf::test::wfdb_stream(16, stream));
  const auto hea = dir.write("m.hea",
                             "m 3 100 5\n"
                             "m.dat 16+16 10/mV 16 0 0 0 0 a\n"
                             "m.dat 16x2 20/mV 16 0 0 0 0 b\n"
                             "m.dat 16:1 1(300)/uV 16 0 0 0 0 c\n");
  const auto h = zf::io::read_wfdb_header(hea);
  EXPECT_EQ(zf::io::read_wfdb_samples(hea, h, 0), (std::vector<std::int32_t>{100, 101, 102, 103, 104}));
  EXPECT_EQ(zf::io::read_wfdb_samples(hea, h, 1),
            (std::vector<std::int32_t>{200, 201, 202, 203, 204, 205, 206, 207, 208, 209}));
  EXPECT_EQ(zf::io::read_wfdb_samples(hea, h, 2), (std::vector<std::int32_t>{300, 301, 302, 303, 304}));
  EXPECT_DOUBLE_EQ(h.sample_rate(1), 200);
  const auto b = zf::io::read_wfdb_signal(hea, h, 1);
  EXPECT_FLOAT_EQ(b.span<const float>()[3], 203.0f / 20);
  const auto c = zf::io::read_wfdb_signal(hea, h, 2);
  EXPECT_FLOAT_EQ(c.span<const float>()[4], 4.0f);

  // Without the extra frame, c's last sample lies past the end of the file: missing, NaN.
  dir.write("m.dat", std::string(16, '\x55') +
                         zf::test::wfdb_stream(16, std::vector<std::int32_t>(stream.begin(), stream.end() - 4)));
  EXPECT_EQ(zf::io::read_wfdb_samples(hea, h, 2), (std::vector<std::int32_t>{300, 301, 302, 303, -32768}));
  const auto c_short = zf::io::read_wfdb_signal(hea, h, 2);
  EXPECT_TRUE(std::isnan(c_short.span<const float>()[4]));
}

TEST(WfdbSignals, FirstDifferencesPerSignal) {
  // Format 8 with two interleaved signals: each accumulates its own differences from its
  // initial value (WFDB: sample i = initial value + the differences up to and including i).
  const std::vector<std::int32_t> a = {10, 20, 5, -100, -90}, b = {-3, 100, 227, 300, 173};
  std::vector<std::int32_t> stream;
  for (std::size_t i = 0; i < a.size(); ++i) {
    stream.push_back(a[i]);
    stream.push_back(b[i]);
  }
  zf::test::scratch_dir dir;
  dir.write("d.dat", zf::test::wfdb_stream(8, stream, 2, {0, 1}));
  const auto hea = dir.write("d.hea", "d 2 250 5\nd.dat 8 200 8 0 0\nd.dat 8 200 8 0 1\n");
  const auto h = zf::io::read_wfdb_header(hea);
  EXPECT_EQ(zf::io::read_wfdb_samples(hea, h, 0), a);
  EXPECT_EQ(zf::io::read_wfdb_samples(hea, h, 1), b);
}

TEST(WfdbSignals, SignalsSpreadOverFilesOfDifferentFormats) {
  const std::vector<std::int32_t> x = {1, -2, 3, -4, 2047, -2047}, y = {-32767, 32767, 0, 5, 6, 7};
  zf::test::scratch_dir dir;
  dir.write("s_x.dat", zf::test::wfdb_stream(212, x));
  dir.write("s_y.dat", zf::test::wfdb_stream(61, y));
  const auto hea =
      dir.write("s.hea", "s 2 360 6\ns_x.dat 212 200 12 0 1 0 0 MLII\ns_y.dat 61 1000 16 0 -32767 0 0 V5\n");
  const auto h = zf::io::read_wfdb_header(hea);
  EXPECT_EQ(zf::io::read_wfdb_samples(hea, h, 0), x);
  EXPECT_EQ(zf::io::read_wfdb_samples(hea, h, 1), y);
}

TEST(WfdbSignals, NumberOfSamplesFromTheFileWhenTheHeaderOmitsIt) {
  const std::vector<std::int32_t> v = {1, 2, 3, 4, 5, 6, 7};
  zf::test::scratch_dir dir;
  dir.write("n.dat", zf::test::wfdb_stream(16, v) + "\x01");  // a stray byte is no sample
  const auto hea = dir.write("n.hea", "n 1 360\nn.dat 16\n");
  EXPECT_EQ(zf::io::read_wfdb_samples(hea, zf::io::read_wfdb_header(hea), 0), v);
}

TEST(WfdbSignals, ErrorsNameTheFiles) {
  zf::test::scratch_dir dir;
  dir.write("t.dat", zf::test::wfdb_stream(16, {1, 2, 3}));
  const auto hea = dir.write("t.hea", "t 1 360 10\nt.dat 16\n");
  const auto h = zf::io::read_wfdb_header(hea);
  const auto truncated = message_of([&] { (void)zf::io::read_wfdb_signal(hea, h, 0); });
  EXPECT_THAT(truncated, HasSubstr((dir.path() / "t.dat").string() + ": the file is truncated"));
  EXPECT_THAT(truncated, HasSubstr("holds 3 of the 10 samples"));
  EXPECT_THAT(truncated, HasSubstr("6 bytes, 20 expected"));
  EXPECT_THROW((void)zf::io::read_wfdb_samples(hea, h, 0), zf::parse_error);

  const auto missing_hea = dir.write("u.hea", "u 1 360 10\nabsent.dat 212 200 12 0 0 0 0 MLII\n");
  const auto missing =
      message_of([&] { (void)zf::io::read_wfdb_signal(missing_hea, zf::io::read_wfdb_header(missing_hea), 0); });
  EXPECT_THAT(missing, HasSubstr("u.hea: signal 0 (\"MLII\") is stored in \"absent.dat\", which is missing"));
  try {  // a file that cannot be opened is zeroflow::error, as for the header itself, not bad data
    (void)zf::io::read_wfdb_samples(missing_hea, zf::io::read_wfdb_header(missing_hea), 0);
    ADD_FAILURE() << "no exception";
  } catch (const zf::parse_error&) {
    ADD_FAILURE() << "a missing signal file is reported as bad data";
  } catch (const zf::error&) {
  }

  dir.write("mix.dat", std::string(40, '\0'));
  const auto mix_hea = dir.write("mix.hea", "mix 2 360 4\nmix.dat 16\nmix.dat 212\n");
  EXPECT_THAT(message_of([&] { (void)zf::io::read_wfdb_signal(mix_hea, zf::io::read_wfdb_header(mix_hea), 1); }),
              HasSubstr("share the file \"mix.dat\" but are stored in formats 16 and 212"));

  const auto null_hea = dir.write("z.hea", "z 1 360 4\nz.dat 0\n");
  EXPECT_THAT(message_of([&] { (void)zf::io::read_wfdb_signal(null_hea, zf::io::read_wfdb_header(null_hea), 0); }),
              HasSubstr("null signal"));
  EXPECT_THROW((void)zf::io::read_wfdb_signal(null_hea, zf::io::read_wfdb_header(null_hea), 1), zf::invalid_argument);
  EXPECT_THROW((void)zf::io::read_wfdb_header(dir.path() / "none.hea"), zf::error);
}

TEST(WfdbSignals, ARecordReadsOnlyFilesInItsOwnFolder) {
  // A header received from elsewhere named "../private/x.dat" or "/etc/shadow", and zeroflow read
  // it; the errors also told whether such a file existed and its size.
  zf::test::scratch_dir dir;
  fs::create_directories(dir.path() / "private");
  fs::create_directories(dir.path() / "rec" / "sub");
  dir.write("private/x.dat", zf::test::wfdb_stream(16, {1, 2, 3}));
  dir.write("rec/sub/y.dat", zf::test::wfdb_stream(16, {4, 5, 6}));
  const auto outside = (dir.path() / "private" / "x.dat").string();
  for (const std::string& name : {std::string("../private/x.dat"), outside, std::string("sub/../../private/x.dat"),
                                  std::string("../private/absent.dat"), std::string("/nonexistent/absent.dat")}) {
    const auto hea = dir.write("rec/r.hea", "r 1 360 3\n" + name + " 16 200 16 0 0 0 0 MLII\n");
    const auto h = zf::io::read_wfdb_header(hea);
    const std::string expected = hea.string() + ": signal 0 (\"MLII\") names the signal file \"" + name +
                                 "\", outside the record's folder; a record reads only files beside its header. Copy "
                                 "the file there and name it without a folder, or pass `allow_outside_record` if you "
                                 "trust this header";
    // The same words whether the file is there or not: nothing is looked at before the name.
    EXPECT_EQ(message_of([&] { (void)zf::io::read_wfdb_signal(hea, h, 0); }), expected);
    EXPECT_EQ(message_of([&] { (void)zf::io::read_wfdb_samples(hea, h, 0); }), expected);
    EXPECT_EQ(message_of([&] { (void)zf::io::read_recording(hea); }), expected);
    EXPECT_THROW((void)zf::io::wfdb_signal_path(hea, h, 0), zf::parse_error);
  }
  // Below its folder is inside it; and the user may allow the rest.
  const auto below = dir.write("rec/b.hea", "b 1 360 3\nsub/y.dat 16 200 16 0 0 0 0 MLII\n");
  EXPECT_EQ(zf::io::read_wfdb_samples(below, zf::io::read_wfdb_header(below), 0), (std::vector<std::int32_t>{4, 5, 6}));
  const auto up = dir.write("rec/u.hea", "u 1 360 3\n../private/x.dat 16 200 16 0 0 0 0 MLII\n");
  const auto h = zf::io::read_wfdb_header(up);
  EXPECT_EQ(zf::io::read_wfdb_samples(up, h, 0, 1, zf::io::record_files::anywhere),
            (std::vector<std::int32_t>{1, 2, 3}));
  zf::io::recording_options trusted;
  trusted.files = zf::io::record_files::anywhere;
  EXPECT_EQ(zf::io::read_recording(up, trusted).signal.size(), 3);
}

TEST(WfdbSignals, LongRecordOnSeveralThreadsEqualsOneThread) {
  std::vector<std::int32_t> stream;
  const int frames = 700000;
  for (int f = 0; f < frames; ++f) {
    stream.push_back((f * 7) % 4096 - 2048);
    stream.push_back((f * 13) % 4000 - 2000);
  }
  zf::test::scratch_dir dir;
  dir.write("l.dat", zf::test::wfdb_stream(212, stream));
  const auto hea = dir.write("l.hea", "l 2 360 " + std::to_string(frames) + "\nl.dat 212\nl.dat 212\n");
  const auto h = zf::io::read_wfdb_header(hea);
  const auto many = zf::io::read_wfdb_samples(hea, h, 1, 4);
  ASSERT_EQ(many.size(), static_cast<std::size_t>(frames));
  for (int f = 0; f < frames; f += 997) ASSERT_EQ(many[f], (f * 13) % 4000 - 2000) << f;
  EXPECT_EQ(many, zf::io::read_wfdb_samples(hea, h, 1, 1));
}

// The real sample files carry WFDB's own checksum and initial value of every signal.
void expect_checksums(const fs::path& hea) {
  const auto h = zf::io::read_wfdb_header(hea);
  for (std::size_t i = 0; i < h.signals.size(); ++i) {
    SCOPED_TRACE(hea.filename().string() + " signal " + std::to_string(i));
    const auto samples = zf::io::read_wfdb_samples(hea, h, i);
    ASSERT_EQ(static_cast<std::int64_t>(samples.size()), h.frames * h.signals[i].samples_per_frame);
    ASSERT_TRUE(h.signals[i].checksum.has_value());
    EXPECT_EQ(checksum_of(samples), *h.signals[i].checksum);
    EXPECT_EQ(samples.front(), h.signals[i].initial_value);
  }
}

TEST(WfdbSamples, EveryFormatOfBinformatsMatchesItsChecksum) {
  const auto h = zf::io::read_wfdb_header(samples_dir / "binformats.hea");
  ASSERT_EQ(h.signals.size(), 10u);
  EXPECT_EQ(h.signals[9].format, 32);
  EXPECT_EQ(h.signals[9].description, "sig 9, fmt 32");
  expect_checksums(samples_dir / "binformats.hea");
}

TEST(WfdbSamples, MimicSegmentInFormat80MatchesItsChecksum) { expect_checksums(samples_dir / "3000003_0003.hea"); }

TEST(WfdbSamples, SharedRecordsMatchTheirChecksums) {
  if (!fs::exists(shared_data)) GTEST_SKIP() << "no " << shared_data;
  expect_checksums(shared_data / "wfdb-samples" / "s0010_re.hea");  // 15 signals in two files
  expect_checksums(shared_data / "mitdb-ds1" / "106.hea");
  expect_checksums(shared_data / "mitdb-ds1" / "119.hea");
}

TEST(WfdbSamples, Mitdb106EqualsItsCsvExport) {
  if (!fs::exists(shared_data)) GTEST_SKIP() << "no " << shared_data;
  const auto dir = shared_data / "mitdb-ds1";
  const auto h = zf::io::read_wfdb_header(dir / "106.hea");
  EXPECT_DOUBLE_EQ(h.sample_rate(0), 360);
  EXPECT_EQ(h.signals[0].description, "MLII");
  const auto wfdb = zf::io::read_wfdb_signal(dir / "106.hea", h, 0);
  const auto csv = zf::io::read_csv(dir / "106.csv").column("mlii");
  ASSERT_EQ(wfdb.size(), csv.size());
  ASSERT_EQ(wfdb.size(), 650000);
  const auto a = wfdb.span<const float>(), b = csv.span<const float>();
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 0.0005 + 1e-6) << i;  // the CSV has 3 decimals
}

TEST(WfdbAnnotations, HandBuiltMitFile) {
  // word = code << 10 | interval; SKIP (59) carries a 32-bit interval, high word first; NUM, SUB,
  // CHN change no time; AUX (63) is followed by its bytes, padded to an even count.
  std::string atr;
  const auto word = [&](unsigned code, unsigned interval) { zf::test::put_le(atr, (code << 10) | interval, 2); };
  word(28, 0);  // '+' rhythm at 0, with an aux string "(N" (2 bytes)
  word(63, 2);
  atr += "(N";
  word(1, 100);  // N at 100
  word(60, 5);   // NUM
  word(5, 300);  // V at 400
  word(61, 1);   // SUB
  word(62, 0);   // CHN
  word(14, 10);  // '~' noise at 410, skipped
  word(59, 0);   // SKIP 70000
  zf::test::put_le(atr, 70000 >> 16, 2);
  zf::test::put_le(atr, 70000 & 0xFFFF, 2);
  word(8, 90);  // A at 410 + 70000 + 90 = 70500
  word(63, 3);
  atr += std::string("abc") + '\0';
  word(12, 1023);               // '/' at 71523
  word(13, 0);                  // Q at the same sample as the beat before: a second channel, kept once
  word(41, 1);                  // 'r' at 71524
  word(0, 0);                   // end of file
  atr += std::string(4, '\0');  // zero padding after the marker is nothing
  zf::test::scratch_dir dir;
  const auto labels = zf::io::read_wfdb_annotations(dir.write("x.atr", atr));
  EXPECT_EQ(labels.samples, (std::vector<std::int64_t>{100, 400, 70500, 71523, 71524}));
  EXPECT_EQ(labels.symbols, (std::vector<std::string>{"N", "V", "A", "/", "r"}));
  ASSERT_EQ(labels.classes.size(), 5u);
  EXPECT_EQ(labels.classes[0], 'N');
  EXPECT_EQ(labels.classes[1], 'V');
  EXPECT_EQ(labels.classes[2], 'S');
  EXPECT_EQ(labels.classes[3], 'Q');
}

TEST(WfdbAnnotations, MalformedFilesNameByteOffsets) {
  zf::test::scratch_dir dir;
  // Data after the end marker: another binary file whose first bytes happened to parse.
  std::string after;
  zf::test::put_le(after, (1u << 10) | 5u, 2);
  zf::test::put_le(after, 0, 2);
  after += "{\"__metadata__\"";
  EXPECT_THAT(message_of([&] { (void)zf::io::read_wfdb_annotations(dir.write("after.atr", after)); }),
              HasSubstr("after.atr: byte 4: data after the end-of-file marker (byte 2)"));
  std::string odd;
  zf::test::put_le(odd, (1u << 10) | 5u, 2);
  odd += '\x01';
  EXPECT_THAT(message_of([&] { (void)zf::io::read_wfdb_annotations(dir.write("odd.atr", odd)); }),
              HasSubstr("odd.atr: byte 2: the file ends inside an annotation"));
  std::string skip;
  zf::test::put_le(skip, 59u << 10, 2);
  zf::test::put_le(skip, 0, 2);
  EXPECT_THROW((void)zf::io::read_wfdb_annotations(dir.write("skip.atr", skip)), zf::parse_error);
  std::string back;
  zf::test::put_le(back, (1u << 10) | 50u, 2);
  zf::test::put_le(back, 59u << 10, 2);
  zf::test::put_le(back, 0xFFFF, 2);  // -20 in two's complement
  zf::test::put_le(back, 0xFFEC, 2);
  zf::test::put_le(back, (1u << 10) | 1u, 2);
  EXPECT_THAT(message_of([&] { (void)zf::io::read_wfdb_annotations(dir.write("back.atr", back)); }),
              HasSubstr("back.atr: byte 8: beat annotations go back in time (sample 31 after sample 50)"));
  EXPECT_THROW((void)zf::io::read_wfdb_annotations(dir.path() / "none.atr"), zf::error);
}

TEST(WfdbAnnotations, Mitdb106AgreesWithItsLabelsCsv) {
  if (!fs::exists(shared_data)) GTEST_SKIP() << "no " << shared_data;
  // The shared labels CSV was exported from the same annotations, symbols reduced to V and N.
  const auto atr = zf::io::read_wfdb_annotations(shared_data / "mitdb-ds1" / "106.atr");
  const auto csv = zf::io::read_labels_csv(shared_data / "mitdb-ds1" / "106.labels.csv");
  ASSERT_EQ(atr.samples, csv.samples);
  int v = 0;
  for (std::size_t i = 0; i < atr.symbols.size(); ++i) {
    EXPECT_EQ(atr.symbols[i] == "V", csv.symbols[i] == "V") << i;
    v += atr.symbols[i] == "V";
  }
  EXPECT_EQ(atr.samples.size(), 2027u);
  EXPECT_EQ(v, 520);
}
