#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "zeroflow/core/error.hpp"
#include "zeroflow/synth/ecg.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace fs = std::filesystem;
namespace zf = zeroflow;
namespace synth = zeroflow::synth;

namespace {

/// A fresh, empty folder for one test, under ZEROFLOW_TEST_TMP when ctest sets it.
fs::path fresh_folder() {
  const char* root = std::getenv("ZEROFLOW_TEST_TMP");
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = (root ? fs::path(root) : fs::temp_directory_path() / "zeroflow_tests") /
                       (std::string("synth_") + info->test_suite_name() + "_" + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<fs::path> folder_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename());
  return out;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

synth::ecg_recording small_recording() {
  synth::ecg_options o;
  o.hours = 0.02;  // 18,000 samples
  o.seed = 5;
  o.anomaly_rate = 0.1;
  return synth::generate_ecg(o);
}

/// The parse_error message of reading `text` as a labels file.
std::string labels_error(const fs::path& dir, const std::string& text) {
  const fs::path path = dir / "bad.labels.csv";
  write_text(path, text);
  try {
    synth::read_labels_csv(path);
  } catch (const zf::parse_error& e) {
    return e.what();
  }
  return "no parse_error";
}

}  // namespace

TEST(SynthEcgIo, CsvHoldsEverySampleRoundedToTheDecimals) {
  const fs::path dir = fresh_folder();
  const auto rec = small_recording();
  for (int decimals : {4, 2, 0, 7}) {
    const fs::path csv = dir / "ecg.csv";
    synth::write_ecg_csv(rec, csv, decimals);
    const auto lines = read_lines(csv);
    ASSERT_EQ(lines.size(), rec.samples.size() + 1);
    ASSERT_EQ(lines[0], "heartbeats");
    for (std::size_t i = 0; i < rec.samples.size(); ++i) {
      // Reference: the C library's exactly rounded printf of the same float.
      char expected[64];
      std::snprintf(expected, sizeof expected, "%.*f", decimals, double(rec.samples[i]));
      ASSERT_EQ(lines[i + 1], expected) << "sample " << i << " decimals " << decimals;
      const float parsed = std::strtof(lines[i + 1].c_str(), nullptr);
      ASSERT_NEAR(parsed, rec.samples[i], 0.5 * std::pow(10.0, -decimals) + 1e-6) << i;
    }
  }
  EXPECT_EQ(folder_entries(dir), std::vector<fs::path>{"ecg.csv"});  // no temporary left over
}

TEST(SynthEcgIo, LabelsRoundTrip) {
  const fs::path dir = fresh_folder();
  const auto rec = small_recording();
  const fs::path path = synth::labels_path_for(dir / "ecg.csv");
  EXPECT_EQ(path, dir / "ecg.labels.csv");
  synth::write_labels_csv(rec, path);
  const auto lines = read_lines(path);
  ASSERT_EQ(lines.size(), rec.r_peaks.size() + 1);
  EXPECT_EQ(lines[0], "sample,label");
  EXPECT_EQ(lines[1], std::to_string(rec.r_peaks[0]) + "," + rec.labels[0]);
  const auto back = synth::read_labels_csv(path);
  EXPECT_EQ(back.samples, rec.r_peaks);
  EXPECT_EQ(back.labels, rec.labels);
  EXPECT_NE(std::count(back.labels.begin(), back.labels.end(), 'V'), 0);
}

TEST(SynthEcgIo, LabelsPathConvention) {
  EXPECT_EQ(synth::labels_path_for("data/run1/ecg.csv"), fs::path("data/run1/ecg.labels.csv"));
  EXPECT_EQ(synth::labels_path_for("ecg.csv"), fs::path("ecg.labels.csv"));
  EXPECT_EQ(synth::labels_path_for("/a/b.c/heart.beats.csv"), fs::path("/a/b.c/heart.beats.labels.csv"));
}

TEST(SynthEcgIo, WritingIntoAMissingFolderThrowsAndLeavesNothing) {
  const fs::path dir = fresh_folder();
  const auto rec = small_recording();
  const fs::path missing = dir / "does_not_exist";
  EXPECT_THROW(synth::write_ecg_csv(rec, missing / "ecg.csv"), zf::error);
  EXPECT_THROW(synth::write_labels_csv(rec, missing / "ecg.labels.csv"), zf::error);
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_TRUE(folder_entries(dir).empty());
}

TEST(SynthEcgIo, FailedRenameLeavesNoTemporary) {
  // The destination is a non-empty folder: the data is written, the final rename fails.
  const fs::path dir = fresh_folder();
  const fs::path target = dir / "ecg.csv";
  fs::create_directories(target / "inside");
  EXPECT_THROW(synth::write_ecg_csv(small_recording(), target), zf::error);
  EXPECT_EQ(folder_entries(dir), std::vector<fs::path>{"ecg.csv"});
  EXPECT_TRUE(fs::is_directory(target / "inside"));
}

TEST(SynthEcgIo, ReplacesAnExistingFileWhole) {
  const fs::path dir = fresh_folder();
  const fs::path csv = dir / "ecg.csv";
  write_text(csv, "old content that is longer than the new file will be\n1\n2\n3\n4\n5\n6\n7\n8\n9\n");
  synth::ecg_recording rec;
  rec.samples = {1.5f, -0.25f, 0.0f};
  synth::write_ecg_csv(rec, csv, 3);
  EXPECT_EQ(read_lines(csv), (std::vector<std::string>{"heartbeats", "1.500", "-0.250", "0.000"}));
  EXPECT_THROW(synth::write_ecg_csv(rec, csv, 10), zf::invalid_argument);
  EXPECT_THROW(synth::write_ecg_csv(rec, csv, -1), zf::invalid_argument);
  EXPECT_EQ(read_lines(csv).size(), 4u);  // untouched by the rejected calls
}

TEST(SynthEcgIo, MismatchedLabelsAreRejected) {
  const fs::path dir = fresh_folder();
  synth::ecg_recording rec;
  rec.r_peaks = {1, 2};
  rec.labels = {'N'};
  EXPECT_THROW(synth::write_labels_csv(rec, dir / "x.labels.csv"), zf::invalid_argument);
  EXPECT_TRUE(folder_entries(dir).empty());
}

TEST(SynthEcgIo, ReadLabelsAcceptsCrlfAndBlankLines) {
  const fs::path dir = fresh_folder();
  write_text(dir / "l.csv", "sample,label\r\n3,N\r\n\r\n10,V\r\n12,A\n");
  const auto l = synth::read_labels_csv(dir / "l.csv");
  EXPECT_EQ(l.samples, (std::vector<std::int64_t>{3, 10, 12}));
  EXPECT_EQ(l.labels, (std::vector<char>{'N', 'V', 'A'}));
  write_text(dir / "h.csv", "sample,label\n");
  EXPECT_TRUE(synth::read_labels_csv(dir / "h.csv").samples.empty());
}

TEST(SynthEcgIo, ReadLabelsNamesFileAndLineOfBadInput) {
  const fs::path dir = fresh_folder();
  const std::string name = (dir / "bad.labels.csv").string();
  const auto expect_error = [&](const std::string& text, const std::string& where, const std::string& what) {
    const std::string message = labels_error(dir, text);
    EXPECT_NE(message.find(name + where), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
  };
  expect_error("", ":1:", "empty file");
  expect_error("beat,label\n1,N\n", ":1:", "header");
  expect_error("sample,label\n1,N\nx,N\n", ":3:1:", "sample index");
  expect_error("sample,label\n1,N\n5;N\n", ":3:2:", "','");
  expect_error("sample,label\n1,N\n5\n", ":3:2:", "','");
  expect_error("sample,label\n1,N\n5,NV\n", ":3:3:", "one-letter label");
  expect_error("sample,label\n1,N\n5,\n", ":3:3:", "one-letter label");
  expect_error("sample,label\n1,N\n5,7\n", ":3:3:", "one-letter label");
  expect_error("sample,label\n4,N\n4,V\n", ":3:1:", "increase");
  expect_error("sample,label\n-4,N\n", ":2:1:", "negative");
  expect_error("sample,label\n99999999999999999999,N\n", ":2:1:", "sample index");
  EXPECT_THROW(synth::read_labels_csv(dir / "missing.csv"), zf::error);
}
