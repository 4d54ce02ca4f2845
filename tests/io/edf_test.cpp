#include "zeroflow/io/edf.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"
#include "io/signal_file_writers.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/wfdb.hpp"

namespace zf = zeroflow;
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using namespace std::string_literals;

namespace {

using zeroflow::test::message_of;

const fs::path& samples_dir = zeroflow::test::wfdb_samples_dir;
const fs::path& shared_data = zeroflow::test::shared_data_dir;

// The annotation signal's bytes of one record, zero-padded to `bytes`.
std::string tal_record(const std::string& tals, std::size_t bytes) {
  std::string out = tals;
  out.resize(bytes, '\0');
  return out;
}

// Three records of 0.5 s: "ECG" at 8 Hz (4 per record), "Resp" at 4 Hz, and EDF+ annotations.
std::vector<zf::test::edf_test_signal> three_signals() {
  zf::test::edf_test_signal ecg{"ECG", "uV", -500, 500, -2048, 2047, 4, {}, {}};
  zf::test::edf_test_signal resp{"Resp", "mV", 0, 10, 0, 1000, 2, {}, {}};
  for (int i = 0; i < 12; ++i) ecg.samples.push_back(static_cast<std::int16_t>(i * 300 - 2048));
  for (int i = 0; i < 6; ++i) resp.samples.push_back(static_cast<std::int16_t>(i * 200));
  zf::test::edf_test_signal notes{"EDF Annotations", "", -1, 1, -32768, 32767, 16, {}, {}};
  notes.annotation_bytes = tal_record("+0\x14\x14\0+0.25\x15"s + "1.5\x14"s + "beat\x14note two\x14\0"s, 32) +
                           tal_record("+0.5\x14\x14\0"s, 32) + tal_record("+1\x14\x14\0-0.125\x14\xB5V\x14\0"s, 32);
  return {ecg, resp, notes};
}

}  // namespace

TEST(Edf, HeaderOfAnEdfPlusFile) {
  zf::test::scratch_dir dir;
  const auto path = dir.write("r.edf", zf::test::edf_file(three_signals(), 3, 0.5, "EDF+C"));
  const auto h = zf::io::read_edf_header(path);
  EXPECT_TRUE(h.edf_plus);
  EXPECT_EQ(h.patient, "X X X X");
  EXPECT_EQ(h.start_date, "01.02.03");
  EXPECT_EQ(h.start_time, "04.05.06");
  EXPECT_EQ(h.header_bytes, 1024);
  EXPECT_EQ(h.records, 3);
  EXPECT_DOUBLE_EQ(h.record_duration, 0.5);
  ASSERT_EQ(h.signals.size(), 3u);
  EXPECT_EQ(h.signals[0].label, "ECG");
  EXPECT_EQ(h.signals[0].units, "uV");
  EXPECT_EQ(h.signals[0].transducer, "AgAgCl electrode");
  EXPECT_EQ(h.signals[0].prefiltering, "HP:0.1Hz");
  EXPECT_DOUBLE_EQ(h.signals[0].physical_min, -500);
  EXPECT_EQ(h.signals[0].digital_max, 2047);
  EXPECT_FALSE(h.signals[0].annotations);
  EXPECT_TRUE(h.signals[2].annotations);
  EXPECT_DOUBLE_EQ(h.sample_rate(0), 8);
  EXPECT_DOUBLE_EQ(h.sample_rate(1), 4);
  EXPECT_EQ(h.record_bytes(), 2 * (4 + 2 + 16));
}

TEST(Edf, SignalsOfDifferentRatesInPhysicalUnits) {
  zf::test::scratch_dir dir;
  const auto signals = three_signals();
  const auto path = dir.write("r.edf", zf::test::edf_file(signals, 3, 0.5, "EDF+C"));
  const auto h = zf::io::read_edf_header(path);
  EXPECT_EQ(zf::io::read_edf_samples(path, h, 0), signals[0].samples);
  EXPECT_EQ(zf::io::read_edf_samples(path, h, 1), signals[1].samples);
  for (std::size_t index : {0u, 1u}) {
    const auto& s = signals[index];
    const auto physical = zf::io::read_edf_signal(path, h, index);
    ASSERT_EQ(physical.size(), static_cast<std::int64_t>(s.samples.size()));
    const auto values = physical.span<const float>();
    for (std::size_t i = 0; i < s.samples.size(); ++i) {
      // EDF: the digital range maps linearly onto the physical range, end points onto end points
      const double expected = s.physical_min + (s.samples[i] - s.digital_min) * (s.physical_max - s.physical_min) /
                                                   (s.digital_max - s.digital_min);
      EXPECT_FLOAT_EQ(values[i], static_cast<float>(expected)) << index << ":" << i;
    }
  }
  const auto ecg = zf::io::read_edf_signal(path, h, 0);
  EXPECT_FLOAT_EQ(ecg.span<const float>()[0], -500.0f);
  EXPECT_THROW((void)zf::io::read_edf_signal(path, h, 2), zf::invalid_argument);
  EXPECT_THROW((void)zf::io::read_edf_signal(path, h, 3), zf::invalid_argument);
}

TEST(Edf, AnnotationListsOfEveryRecord) {
  zf::test::scratch_dir dir;
  const auto path = dir.write("r.edf", zf::test::edf_file(three_signals(), 3, 0.5, "EDF+C"));
  const auto notes = zf::io::read_edf_annotations(path);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_DOUBLE_EQ(notes[0].onset, 0.25);
  EXPECT_DOUBLE_EQ(notes[0].duration, 1.5);
  EXPECT_EQ(notes[0].text, "beat");
  EXPECT_DOUBLE_EQ(notes[1].onset, 0.25);
  EXPECT_EQ(notes[1].text, "note two");
  EXPECT_DOUBLE_EQ(notes[2].onset, -0.125);
  EXPECT_DOUBLE_EQ(notes[2].duration, -1);
  EXPECT_EQ(notes[2].text, "\xC2\xB5V");  // Latin-1 in the file, UTF-8 out
}

TEST(Edf, PlainEdfAndUnknownRecordCount) {
  auto signals = three_signals();
  signals.pop_back();
  zf::test::scratch_dir dir;
  const auto path = dir.write("plain.edf", zf::test::edf_file(signals, 3, 0.5, "", "-1"));
  const auto h = zf::io::read_edf_header(path);
  EXPECT_FALSE(h.edf_plus);
  EXPECT_EQ(h.records, 3);
  EXPECT_EQ(zf::io::read_edf_samples(path, h, 1), signals[1].samples);
  EXPECT_TRUE(zf::io::read_edf_annotations(path).empty());
}

TEST(Edf, ErrorsNameFileByteAndField) {
  zf::test::scratch_dir dir;
  const auto good = zf::test::edf_file(three_signals(), 3, 0.5, "EDF+C");

  const auto truncated = dir.write("t.edf", good.substr(0, good.size() - 10));
  EXPECT_THAT(
      message_of([&] { (void)zf::io::read_edf_header(truncated); }),
      HasSubstr("t.edf: the file is truncated: the header announces 3 data records of 44 bytes, the file holds 2"));

  const auto plus_d = dir.write("d.edf", zf::test::edf_file(three_signals(), 3, 0.5, "EDF+D"));
  EXPECT_THAT(message_of([&] { (void)zf::io::read_edf_header(plus_d); }), HasSubstr("EDF+D"));

  std::string bdf = good;
  bdf[0] = '\xFF';
  EXPECT_THAT(message_of([&] { (void)zf::io::read_edf_header(dir.write("b.edf", bdf)); }), HasSubstr("BDF"));

  std::string bad_min = good;
  bad_min.replace(256 + 3 * 16 + 3 * 80 + 3 * 8, 8, "abc     ");  // the first physical minimum
  EXPECT_THAT(message_of([&] { (void)zf::io::read_edf_header(dir.write("m.edf", bad_min)); }),
              HasSubstr("m.edf: byte 568: physical minimum: cannot read \"abc\" as a number"));

  std::string bad_bytes = good;
  bad_bytes.replace(184, 8, "768     ");
  EXPECT_THAT(message_of([&] { (void)zf::io::read_edf_header(dir.write("h.edf", bad_bytes)); }),
              HasSubstr("number of header bytes: the header says 768 but 3 signals need 1024"));

  EXPECT_THAT(message_of([&] { (void)zf::io::read_edf_header(dir.write("e.edf", "")); }), HasSubstr("empty"));
  EXPECT_THAT(message_of([&] { (void)zf::io::read_edf_header(dir.write("s.edf", good.substr(0, 700))); }),
              HasSubstr("s.edf: the file is truncated"));
  EXPECT_THROW((void)zf::io::read_edf_header(dir.path() / "absent.edf"), zf::error);

  auto flat = three_signals();
  flat[1].digital_max = flat[1].digital_min;
  const auto flat_path = dir.write("f.edf", zf::test::edf_file(flat, 3, 0.5, "EDF+C"));
  EXPECT_THAT(message_of([&] { (void)zf::io::read_edf_signal(flat_path, zf::io::read_edf_header(flat_path), 1); }),
              HasSubstr("digital range [0, 0] is empty"));

  auto bad_tal = three_signals();
  bad_tal[2].annotation_bytes[5] = 'x';  // the second TAL's onset lacks its sign
  EXPECT_THAT(message_of([&] {
                (void)zf::io::read_edf_annotations(dir.write("a.edf", zf::test::edf_file(bad_tal, 3, 0.5, "EDF+C")));
              }),
              HasSubstr("a.edf: byte 1041: an EDF+ annotation onset must start with '+' or '-'"));
}

TEST(Edf, AnnotationOnlySampleFile) {
  const auto path = samples_dir / "test_edfann.edf";
  const auto h = zf::io::read_edf_header(path);
  ASSERT_EQ(h.signals.size(), 1u);
  EXPECT_TRUE(h.signals[0].annotations);
  const auto notes = zf::io::read_edf_annotations(path);
  ASSERT_GT(notes.size(), 100u);
  EXPECT_EQ(notes[0].text, "Sleep stage W");
  EXPECT_DOUBLE_EQ(notes[0].duration, 30);
  EXPECT_EQ(notes[2].text, "Lights off@@EEG F4-A1");
  EXPECT_DOUBLE_EQ(notes[2].onset, 33.43);
  EXPECT_DOUBLE_EQ(notes[2].duration, 0);
}

TEST(Edf, SameRecordAsWfdbWithinQuantisation) {
  if (!fs::exists(shared_data)) GTEST_SKIP() << "no " << shared_data;
  // test_generator_2 was written both as WFDB (16-bit, 32.7675 units per uV, 200 samples per
  // 1 s frame) and as EDF+ (-1000..1000 uV over the 16-bit range, 1 s records).
  const auto dir = shared_data / "wfdb-samples";
  const auto edf_path = dir / "test_generator_2.edf", hea = dir / "test_generator_2.hea";
  const auto edf = zf::io::read_edf_header(edf_path);
  const auto wfdb = zf::io::read_wfdb_header(hea);
  ASSERT_EQ(edf.signals.size(), 12u);
  for (std::size_t i = 0; i < 11; ++i) {
    SCOPED_TRACE(edf.signals[i].label);
    EXPECT_EQ(edf.signals[i].label, wfdb.signals[i].description);
    EXPECT_EQ(edf.signals[i].units, wfdb.signals[i].units);  // two of them a Latin-1 byte in both files
    EXPECT_DOUBLE_EQ(edf.sample_rate(i), wfdb.sample_rate(i));
    const auto a = zf::io::read_edf_signal(edf_path, edf, i);
    const auto b = zf::io::read_wfdb_signal(hea, wfdb, i);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.size(), 120000);
    const double step = (edf.signals[i].physical_max - edf.signals[i].physical_min) /
                        (edf.signals[i].digital_max - edf.signals[i].digital_min);
    const auto x = a.span<const float>(), y = b.span<const float>();
    double worst = 0;
    for (std::size_t k = 0; k < x.size(); ++k) worst = std::max(worst, std::abs(double(x[k]) - double(y[k])));
    EXPECT_LE(worst, step + 1e-3);
  }
}
