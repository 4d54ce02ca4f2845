// Inputs the fuzz targets (fuzz/) found wrong handling for, each reduced to what triggers it and
// kept here so that the bug stays fixed in the ordinary test runs (and under ASan/UBSan in the
// asan preset, which is where the overflows among them showed).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "io/csv/csv_cells.hpp"
#include "io/csv/csv_cuda_number.hpp"
#include "io/io_test_util.hpp"
#include "io/signal_file_writers.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/io/edf.hpp"
#include "zeroflow/io/wfdb.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;
namespace num = zeroflow::io::detail::csv_number;
using ::testing::HasSubstr;
using namespace std::string_literals;

namespace {

/// What `f` throws as a parse error (any other exception fails the test).
template <class F>
std::string parse_error_of(F&& f) {
  try {
    f();
  } catch (const zf::parse_error& e) {
    return e.what();
  }
  return "(no parse_error)";
}

/// Whether strtod reads the whole of `cell` as a number (the reference for what a cell is).
bool strtod_takes_whole(const std::string& cell, double& value) {
  char* end = nullptr;
  value = std::strtod(cell.c_str(), &end);
  return !cell.empty() && *end == '\0';
}

}  // namespace

// fuzz_csv_number: "+-1" read as -1 (the '+' was dropped, then fast_float took "-1"), in the host
// reader and the GPU core alike, although csv.hpp allows one sign and strtod reads no number there.
TEST(FuzzRegressions, CsvCellWithTwoSignsIsNoNumber) {
  for (const std::string cell : {"+-1", "+-.5", "+-1e3", "+-0"}) {
    double reference = 0;
    ASSERT_FALSE(strtod_takes_whole(cell, reference)) << cell;
    io::csv_options options;
    options.header = io::header_mode::yes;
    for (const zf::dtype type : {zf::float32, zf::float64}) {
      options.default_type = type;
      EXPECT_THAT(parse_error_of([&] { (void)io::read_csv_buffer("x\n" + cell + "\n", "t.csv", options); }),
                  HasSubstr("t.csv:2: column 1 (\"x\"): cannot parse \"" + cell + "\""));
    }
    double host = 0;
    EXPECT_EQ(io::detail::parse_float_cell(std::string_view(cell), host), io::detail::cell_status::bad) << cell;
    std::uint64_t bits = 0;
    EXPECT_EQ(num::parse_float_cell<double>(cell.data(), cell.data() + cell.size(), num::host_pow5_table(), bits),
              num::cell_result::bad)
        << cell;
  }
  // One sign, either one, still reads as strtod reads it.
  for (const std::string cell : {"+1", "-1", "+.5", "-2.5e-3"}) {
    double reference = 0;
    ASSERT_TRUE(strtod_takes_whole(cell, reference)) << cell;
    io::csv_options options;
    options.header = io::header_mode::yes;
    options.default_type = zf::float64;
    const zf::table t = io::read_csv_buffer("x\n" + cell + "\n", "t.csv", options);
    EXPECT_EQ(t.columns.at(0).data_as<double>()[0], reference) << cell;
  }
}

// fuzz_wfdb_record: a format-8 signal whose initial value is near INT64_MAX overflowed the running
// sum of its differences (signed overflow, UB). WFDB samples are 32-bit: the header is refused.
TEST(FuzzRegressions, WfdbInitialValueBeyond32BitsIsRefused) {
  EXPECT_THAT(
      parse_error_of([] { (void)io::parse_wfdb_header("r 1 250 4\ns.dat 8 200 8 0 9223372036854775807\n", "r.hea"); }),
      HasSubstr("r.hea:2: the initial value 9223372036854775807 does not fit the 32 bits"));
  EXPECT_THAT(parse_error_of([] { (void)io::parse_wfdb_header("r 1 250 4\ns.dat 8 200 8 -4294967296\n", "r.hea"); }),
              HasSubstr("r.hea:2: the ADC zero (the initial value when none is given) -4294967296 does not fit"));

  // The smallest 32-bit initial value still reads: it plus the running sum of the stored bytes.
  zf::test::scratch_dir dir;
  const std::string differences = "\x05\xFF\x7F\x80"s;
  dir.write("s.dat", differences);
  const auto hea = dir.write("r.hea", "r 1 250 4\ns.dat 8 200 8 0 -2147483648\n");
  const auto header = io::read_wfdb_header(hea);
  std::vector<std::int32_t> want;
  std::int64_t value = -2147483648LL;
  for (const char c : differences) want.push_back(static_cast<std::int32_t>(value += static_cast<std::int8_t>(c)));
  EXPECT_EQ(io::read_wfdb_samples(hea, header, 0, 1), want);
}

// fuzz_wfdb_record: a header announcing INT64_MAX frames of two samples each overflowed the
// "bytes expected" of the truncated-file message (signed overflow, UB).
TEST(FuzzRegressions, WfdbTruncatedFileWithAnAbsurdFrameCount) {
  zf::test::scratch_dir dir;
  dir.write("s.dat", "\x01\x02\x03\x04"s);
  const auto huge = dir.write("h.hea", "h 1 201 9223372036854775807\ns.dat 16x2\n");
  EXPECT_THAT(parse_error_of([&] { (void)io::read_wfdb_samples(huge, io::read_wfdb_header(huge), 0, 1); }),
              HasSubstr("the file is truncated: it holds 1 of the 9223372036854775807 samples per signal that " +
                        huge.string() + " announces (4 bytes, more than 2^64 expected)"));
  // A countable one names the bytes: 10 frames x 2 samples x 2 bytes.
  const auto ten = dir.write("t.hea", "t 1 201 10\ns.dat 16x2\n");
  EXPECT_THAT(parse_error_of([&] { (void)io::read_wfdb_samples(ten, io::read_wfdb_header(ten), 0, 1); }),
              HasSubstr("(4 bytes, " + std::to_string(10 * 2 * 2) + " expected)"));
}

// fuzz_edf: an EDF+ header of 15 signals of 0 samples that announces 99999999 records (a 4 KB
// file) kept read_edf_annotations walking every empty record of every signal: a minute under ASan.
// With 100 such signals that is 10^10 steps, far past the bound below in any build.
TEST(FuzzRegressions, EdfEmptyRecordsAreNotWalkedOneByOne) {
  std::vector<zf::test::edf_test_signal> signals(100, {"EDF Annotations", "", -1, 1, -32768, 32767, 0, {}, {}});
  signals.front().label = "ECG";
  zf::test::scratch_dir dir;
  const auto path = dir.write("e.edf", zf::test::edf_file(signals, 0, 1, "EDF+C", "99999999"));
  const auto started = std::chrono::steady_clock::now();
  const auto header = io::read_edf_header(path);
  EXPECT_EQ(header.records, 99999999);
  EXPECT_TRUE(io::read_edf_annotations(path).empty());
  EXPECT_TRUE(io::read_edf_samples(path, header, 0).empty());
  EXPECT_EQ(io::read_edf_signal(path, header, 0, 1).size(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
}

// Found beside the fuzzer (its inputs stay under 4 KB): 500 signals of 99999999 samples per record
// and 99999999 records overflowed records x record bytes in the header check (signed overflow, UB).
TEST(FuzzRegressions, EdfRecordBytesBeyond63Bits) {
  std::vector<zf::test::edf_test_signal> signals(500, {"ECG", "uV", -1, 1, -32768, 32767, 99999999, {}, {}});
  zf::test::scratch_dir dir;
  const auto path = dir.write("big.edf", zf::test::edf_file(signals, 0, 1, "", "99999999"));
  EXPECT_THAT(parse_error_of([&] { (void)io::read_edf_header(path); }),
              HasSubstr("the file is truncated: the header announces 99999999 data records of " +
                        std::to_string(2LL * 500 * 99999999) + " bytes, the file holds 0 (" +
                        std::to_string(256 * 501) + " bytes, more than 2^63 expected)"));
}

// fuzz_edf's check on durations: from_chars took a sign of its own, so a duration "-0.2" and an
// onset "+-0.5" were read, where EDF+ writes digits after the onset's one sign and none before a
// duration (pyEDFlib refuses such files as "not EDF(+) compliant").
TEST(FuzzRegressions, EdfAnnotationTimesTakeOneSignAtMost) {
  const auto file_with = [](const std::string& tal) {
    zf::test::edf_test_signal ecg{"ECG", "uV", -1, 1, -32768, 32767, 2, {1, 2}, {}};
    zf::test::edf_test_signal notes{"EDF Annotations", "", -1, 1, -32768, 32767, 16, {}, {}};
    notes.annotation_bytes = "+0\x14\x14\0"s + tal;
    notes.annotation_bytes.resize(32, '\0');
    return zf::test::edf_file({ecg, notes}, 1, 1, "EDF+C");
  };
  zf::test::scratch_dir dir;
  const auto good = io::read_edf_annotations(dir.write("g.edf", file_with("+0.5\x15"
                                                                          "0.2\x14N\x14\0"s)));
  ASSERT_EQ(good.size(), 1u);
  EXPECT_EQ(good[0].onset, 0.5);
  EXPECT_EQ(good[0].duration, 0.2);
  EXPECT_EQ(good[0].text, "N");
  EXPECT_THAT(parse_error_of(
                  [&] { (void)io::read_edf_annotations(dir.write("d.edf", file_with("+0.5\x15-0.2\x14N\x14\0"s))); }),
              HasSubstr("cannot read the annotation duration \"-0.2\" as seconds"));
  EXPECT_THAT(
      parse_error_of([&] { (void)io::read_edf_annotations(dir.write("o.edf", file_with("+-0.5\x14N\x14\0"s))); }),
      HasSubstr("cannot read the annotation onset \"+-0.5\" as seconds"));
  EXPECT_THAT(
      parse_error_of([&] { (void)io::read_edf_annotations(dir.write("m.edf", file_with("--0.5\x14N\x14\0"s))); }),
      HasSubstr("cannot read the annotation onset \"--0.5\" as seconds"));
}
