#include "zeroflow/io/recording.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"
#include "io/signal_file_writers.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/binary.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/io/wfdb.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zf = zeroflow;
namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

using zeroflow::test::message_of;

const fs::path& shared_data = zeroflow::test::shared_data_dir;

std::vector<float> host_values(const zf::array& a) {
  const zf::array host = a.where().host_accessible() ? a : zf::copy_to(a, zf::cpu_device);
  const auto s = host.span<const float>();
  return {s.begin(), s.end()};
}

// Every signal of a WFDB record through read_recording, bit for bit against the host decoder
// (whose values the WFDB tests check against wfdb-python), on the host and on a GPU when there is
// one. Returns how many of its signals the binary fast path reads.
int expect_recording_equals_decoder(const fs::path& hea) {
  const zf::io::wfdb_header header = zf::io::read_wfdb_header(hea);
  int fast = 0;
  for (std::size_t i = 0; i < header.signals.size(); ++i) {
    fast += zf::io::wfdb_binary_layout(header, i).has_value() ? 1 : 0;
    const auto want = host_values(zf::io::read_wfdb_signal(hea, header, i));
    zf::io::recording_options options;
    options.lead = std::to_string(i);
    std::vector<zf::device> places{zf::cpu_device};
    if (zf::cuda_available()) places.push_back(zf::device{zf::device_type::cuda, 0});
    for (const zf::device where : places) {
      options.where = where;
      const auto r = zf::io::read_recording(hea, options);
      EXPECT_EQ(r.signal.where(), where);
      EXPECT_DOUBLE_EQ(r.sample_rate, header.sample_rate(i));
      const auto got = host_values(r.signal);
      EXPECT_EQ(got.size(), want.size()) << hea << " signal " << i;
      if (got.size() != want.size()) continue;
      std::size_t differ = 0;  // the first sample that differs, reported alone
      while (differ < got.size() &&
             std::bit_cast<std::uint32_t>(got[differ]) == std::bit_cast<std::uint32_t>(want[differ]))
        ++differ;
      EXPECT_EQ(differ, got.size()) << hea << " signal " << i << ": sample " << differ << " differs";
    }
  }
  return fast;
}

// A two-signal WFDB record, "V1" then "MLII", interleaved in format 16.
fs::path write_record(const zf::test::scratch_dir& dir) {
  std::vector<std::int32_t> stream;
  for (int i = 0; i < 6; ++i) {
    stream.push_back(10 * i);    // V1
    stream.push_back(-100 * i);  // MLII
  }
  dir.write("rec.dat", zf::test::wfdb_stream(16, stream));
  return dir.write("rec.hea", "rec 2 360 6\nrec.dat 16 10/mV 16 0 0 0 0 V1\nrec.dat 16 200(100)/uV 16 0 0 0 0 MLII\n");
}

}  // namespace

TEST(Recording, WfdbDefaultLeadIsMlii) {
  zf::test::scratch_dir dir;
  const auto hea = write_record(dir);
  for (const fs::path& path : {hea, dir.path() / "rec"}) {  // the record's path without extension too
    const auto r = zf::io::read_recording(path);
    EXPECT_EQ(r.lead, "MLII");
    EXPECT_EQ(r.units, "uV");
    EXPECT_DOUBLE_EQ(r.sample_rate, 360);
    EXPECT_EQ(r.leads, (std::vector<std::string>{"V1", "MLII"}));
    EXPECT_EQ(r.signal.type(), zf::float32);
    EXPECT_EQ(r.signal.ndim(), 1);
    EXPECT_EQ(r.signal.where(), zf::cpu_device);
    const auto v = host_values(r.signal);
    ASSERT_EQ(v.size(), 6u);
    for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(v[i], (-100.0f * i - 100) / 200) << i;
  }
}

TEST(Recording, LeadByNameOrIndex) {
  zf::test::scratch_dir dir;
  const auto hea = write_record(dir);
  zf::io::recording_options options;
  options.lead = "v1";  // names match whatever their case
  auto r = zf::io::read_recording(hea, options);
  EXPECT_EQ(r.lead, "V1");
  EXPECT_FLOAT_EQ(host_values(r.signal)[5], 5.0f);
  options.lead = "1";
  EXPECT_EQ(zf::io::read_recording(hea, options).lead, "MLII");
  options.lead = "V5";
  const auto unknown = message_of([&] { (void)zf::io::read_recording(hea, options); });
  EXPECT_THAT(unknown, HasSubstr("rec.hea: no lead \"V5\"; the signals there are 0 \"V1\", 1 \"MLII\""));
  EXPECT_THROW((void)zf::io::read_recording(hea, options), zf::invalid_argument);
  options.lead = "2";
  EXPECT_THROW((void)zf::io::read_recording(hea, options), zf::invalid_argument);
  options.lead = "99999999999999999999999";
  EXPECT_THROW((void)zf::io::read_recording(hea, options), zf::invalid_argument);
}

TEST(Recording, DefaultLeadChoice) {
  using zf::io::default_lead;
  EXPECT_EQ(default_lead({"V1", "II", "ECG II", "MLII"}, {}), 3u);
  EXPECT_EQ(default_lead({"Resp", "II", "ECG II"}, {}), 2u);
  EXPECT_EQ(default_lead({"Pleth", "i", "ii"}, {}), 2u);
  EXPECT_EQ(default_lead({"Resp", "ABP", "v5"}, {}), 2u);
  EXPECT_EQ(default_lead({"Resp", "EKG lead"}, {}), 1u);
  EXPECT_EQ(default_lead({"Resp", "chan 2"}, {"", "mV"}), 1u);
  EXPECT_EQ(default_lead({"Resp", "chan 2", "chan 3"}, {"l/min", "\xC2\xB5V", "mV"}), 1u);
  EXPECT_EQ(default_lead({"Resp", "Pleth"}, {"", ""}), 0u);
  EXPECT_EQ(default_lead({"aVF", "MLIII"}, {}), 0u);
  EXPECT_EQ(default_lead({"Resp", "MLIII"}, {}), 1u);
  EXPECT_EQ(default_lead({"squarewave", "ramp", "ECG"}, {"uV", "uV", "uV"}), 2u);  // a name over units
}

TEST(Recording, EdfSkipsTheAnnotationSignal) {
  zf::test::edf_test_signal resp{"Resp", "l/min", 0, 10, 0, 1000, 2, {0, 100, 200, 300}, {}};
  zf::test::edf_test_signal ecg{"EKG", "mV", -5, 5, -1000, 1000, 4, {-1000, 0, 1000, 500, 1, 2, 3, 4}, {}};
  zf::test::edf_test_signal notes{"EDF Annotations", "", -1, 1, -32768, 32767, 4, {}, {}};
  notes.annotation_bytes =
      std::string("+0\x14\x14", 4) + std::string(4, '\0') + std::string("+1\x14\x14", 4) + std::string(4, '\0');
  zf::test::scratch_dir dir;
  const auto path = dir.write("r.EDF", zf::test::edf_file({resp, notes, ecg}, 2, 0.25, "EDF+C"));
  auto r = zf::io::read_recording(path);
  EXPECT_EQ(r.leads, (std::vector<std::string>{"Resp", "EKG"}));
  EXPECT_EQ(r.lead, "EKG");
  EXPECT_EQ(r.units, "mV");
  EXPECT_DOUBLE_EQ(r.sample_rate, 16);
  const auto v = host_values(r.signal);
  ASSERT_EQ(v.size(), 8u);
  EXPECT_FLOAT_EQ(v[0], -5.0f);
  EXPECT_FLOAT_EQ(v[2], 5.0f);
  EXPECT_FLOAT_EQ(v[4], 0.005f);
  zf::io::recording_options options;
  options.lead = "1";  // indices count the signals, not the annotation signal
  EXPECT_EQ(zf::io::read_recording(path, options).lead, "EKG");
  options.lead = "EDF Annotations";
  EXPECT_THROW((void)zf::io::read_recording(path, options), zf::invalid_argument);

  const auto only = dir.write("only.edf", zf::test::edf_file({notes}, 2, 0.25, "EDF+C"));
  EXPECT_THAT(message_of([&] { (void)zf::io::read_recording(only); }), HasSubstr("only EDF+ annotations"));
}

TEST(Recording, CsvKeepsTheCsvReadersRules) {
  zf::test::scratch_dir dir;
  const auto path = dir.write("r.csv", "time,mlii,note\n0,1.5,a\n1,-2.25,b\n2,3,c\n");
  zf::io::recording_options options;
  int calls = 0;
  options.progress = [&](std::uint64_t done, std::uint64_t total) {
    ++calls;
    EXPECT_LE(done, total);
  };
  // The column named like an ECG lead (MLII first, as in every format); the text column is never parsed.
  auto r = zf::io::read_recording(path, options);
  EXPECT_EQ(r.lead, "mlii");
  EXPECT_EQ(r.leads, (std::vector<std::string>{"time", "mlii", "note"}));
  EXPECT_DOUBLE_EQ(r.sample_rate, 0);
  EXPECT_EQ(r.units, "");
  EXPECT_EQ(host_values(r.signal), (std::vector<float>{1.5f, -2.25f, 3}));
  EXPECT_GE(calls, 1);
  options.lead = "time";
  EXPECT_EQ(host_values(zf::io::read_recording(path, options).signal), (std::vector<float>{0, 1, 2}));
  // Without a column named like a lead, the first.
  const auto plain = dir.write("p.csv", "a,b\n4,5\n6,7\n");
  EXPECT_EQ(zf::io::read_recording(plain).lead, "a");
  options.lead = "1";
  EXPECT_EQ(zf::io::read_recording(path, options).lead, "mlii");
  options.lead = "note";
  EXPECT_THROW((void)zf::io::read_recording(path, options), zf::parse_error);
  options.lead = "absent";
  EXPECT_THROW((void)zf::io::read_recording(path, options), zf::error);
  // A name that is neither a file nor a record is read as CSV and reported as such.
  EXPECT_THAT(message_of([&] { (void)zf::io::read_recording(dir.path() / "nothing"); }), HasSubstr("nothing"));
}

TEST(Recording, CsvColumnNamesAreReadFromTheHeadOnly) {
  zf::test::scratch_dir dir;
  const auto bom = dir.write("h.csv", "\xEF\xBB\xBF# a comment\n\nI,\"V 1\",x\n1,2,3\n");
  EXPECT_EQ(zf::io::csv_column_names(bom), (std::vector<std::string>{"I", "V 1", "x"}));
  const auto bare = dir.write("n.csv", "1,2\n3,4\n");
  EXPECT_EQ(zf::io::csv_column_names(bare), (std::vector<std::string>{"0", "1"}));
  // A header after more than a MiB of comments is still found; a ragged data row later does not matter.
  const auto late =
      dir.write("l.csv", std::string(300'000, '#') + "\n" + std::string(300'000, '#') + "\n" +
                             std::string(300'000, '#') + "\n" + std::string(300'000, '#') + "\nii,v5\n1,2\n3\n");
  EXPECT_EQ(zf::io::csv_column_names(late), (std::vector<std::string>{"ii", "v5"}));
  EXPECT_THROW((void)zf::io::csv_column_names(dir.write("e.csv", "")), zf::parse_error);
  EXPECT_THROW((void)zf::io::csv_column_names(dir.write("c.csv", "# only\n")), zf::parse_error);
}

TEST(Recording, FormatByExtensionOrHeaderBeside) {
  zf::test::scratch_dir dir;
  const auto record = write_record(dir);
  using zf::io::recording_format;
  EXPECT_EQ(zf::io::format_of(record), recording_format::wfdb);
  EXPECT_EQ(zf::io::format_of(fs::path(record).replace_extension()), recording_format::wfdb);
  EXPECT_EQ(zf::io::format_of(dir.path() / "x.EDF"), recording_format::edf);
  EXPECT_EQ(zf::io::format_of(dir.path() / "x.f32"), recording_format::raw);
  EXPECT_EQ(zf::io::format_of(dir.path() / "x.txt"), recording_format::csv);
  EXPECT_EQ(zf::io::format_of(dir.path() / "nothing"), recording_format::csv);
}

TEST(Recording, ABeatLabelFileIsNoRecording) {
  // `zeroflow generate`'s labels beside its recording, as a glob of *.csv passes both.
  zf::test::scratch_dir dir;
  const auto labels = dir.write("r.labels.csv", "sample,symbol,aami\n156,N,N\n364,N,N\n");
  const std::string message = message_of([&] { (void)zf::io::read_recording(labels); });
  EXPECT_THAT(message, HasSubstr("r.labels.csv: its first column, \"sample\", counts samples"));
  EXPECT_THAT(message, HasSubstr("`lead`"));
  // Named on purpose, the column is read as asked.
  zf::io::recording_options options;
  options.lead = "sample";
  EXPECT_EQ(host_values(zf::io::read_recording(labels, options).signal), (std::vector<float>{156, 364}));
}

TEST(Recording, StraightToTheGpu) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no CUDA device";
  zf::test::scratch_dir dir;
  const auto hea = write_record(dir);
  zf::io::recording_options options;
  options.where = zf::device{zf::device_type::cuda, 0};
  const auto r = zf::io::read_recording(hea, options);
  EXPECT_EQ(r.signal.where(), options.where);
  EXPECT_EQ(host_values(r.signal), host_values(zf::io::read_recording(hea).signal));
  const auto csv = dir.write("r.csv", "x\n1\n2\n");
  EXPECT_EQ(host_values(zf::io::read_recording(csv, options).signal), (std::vector<float>{1, 2}));
}

TEST(Recording, Mitdb106AsWfdbAndAsCsv) {
  if (!fs::exists(shared_data)) GTEST_SKIP() << "no " << shared_data;
  const auto dir = shared_data / "mitdb-ds1";
  const auto wfdb = zf::io::read_recording(dir / "106");
  EXPECT_EQ(wfdb.lead, "MLII");
  EXPECT_EQ(wfdb.units, "mV");
  EXPECT_DOUBLE_EQ(wfdb.sample_rate, 360);
  const auto csv = zf::io::read_recording(dir / "106.csv");
  EXPECT_EQ(csv.lead, "mlii");
  const auto a = host_values(wfdb.signal), b = host_values(csv.signal);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 0.0005 + 1e-6) << i;
}

TEST(Recording, WfdbFormats16And32TakeTheFastPathWithTheDecodersValues) {
  // One signal in each storage format: 16 and 32 by the fast path, the eight others decoded.
  EXPECT_EQ(expect_recording_equals_decoder(zf::test::wfdb_samples_dir / "binformats.hea"), 2);
  // Two interleaved format-16 signals with gain and baseline.
  zf::test::scratch_dir dir;
  EXPECT_EQ(expect_recording_equals_decoder(write_record(dir)), 2);
}

TEST(Recording, WfdbFastPathOnARealTwelveLeadRecord) {
  // PTB s0010_re: the 12 standard leads interleaved in one format-16 file (gain 2000, 1000 Hz),
  // the 3 Frank leads in another.
  const auto hea = shared_data / "wfdb-samples" / "s0010_re.hea";
  for (const char* file : {"s0010_re.hea", "s0010_re.dat", "s0010_re.xyz"}) {
    const auto path = shared_data / "wfdb-samples" / file;
    if (!fs::exists(path) || fs::file_size(path) == 0) GTEST_SKIP() << "no " << path;
  }
  EXPECT_EQ(expect_recording_equals_decoder(hea), 15);
}
