#include "zeroflow/synth/ecg_io.hpp"

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
#include "zeroflow/io/labels.hpp"
#include "zeroflow/synth/ecg.hpp"

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
  o.apb_rate = 0.1;
  o.noise_bursts_per_hour = 200;
  o.baseline_jumps_per_hour = 200;
  return synth::generate_ecg(o);
}

/// The fields of a CSV line (no quoting: the files written here need none).
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
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
  EXPECT_EQ(lines[0], "sample,symbol,aami");
  // The AAMI EC57 classes of the MIT-BIH symbols: N -> N, A -> S (supraventricular), V -> V.
  for (std::size_t i = 0; i < rec.r_peaks.size(); ++i) {
    const auto f = fields(lines[i + 1]);
    ASSERT_EQ(f.size(), 3u) << lines[i + 1];
    EXPECT_EQ(f[0], std::to_string(rec.r_peaks[i]));
    EXPECT_EQ(f[1], std::string(1, rec.labels[i]));
    EXPECT_EQ(f[2], rec.labels[i] == 'A' ? "S" : std::string(1, rec.labels[i])) << i;
  }
  // Read back by the io layer's reader, as evaluation does.
  const auto back = zf::io::read_labels_csv(path);
  EXPECT_EQ(back.samples, rec.r_peaks);
  ASSERT_EQ(back.symbols.size(), rec.labels.size());
  for (std::size_t i = 0; i < rec.labels.size(); ++i) {
    EXPECT_EQ(back.symbols[i], std::string(1, rec.labels[i])) << i;
    EXPECT_EQ(back.classes[i], zf::io::aami_class_of(back.symbols[i])) << i;
  }
  EXPECT_NE(std::count(back.classes.begin(), back.classes.end(), 'V'), 0);
  EXPECT_NE(std::count(back.classes.begin(), back.classes.end(), 'S'), 0);
}

TEST(SynthEcgIo, ArtefactsCsvListsEveryInterval) {
  const fs::path dir = fresh_folder();
  const auto rec = small_recording();
  ASSERT_FALSE(rec.artefacts.empty());
  const fs::path path = synth::artefacts_path_for(dir / "ecg.csv");
  EXPECT_EQ(path, dir / "ecg.artefacts.csv");
  synth::write_artefacts_csv(rec, path);
  const auto lines = read_lines(path);
  ASSERT_EQ(lines.size(), rec.artefacts.size() + 1);
  EXPECT_EQ(lines[0], "start,end,kind");
  for (std::size_t i = 0; i < rec.artefacts.size(); ++i) {
    const auto& a = rec.artefacts[i];
    const std::string kind = a.kind == synth::artefact_kind::noise_burst ? "noise_burst" : "baseline_jump";
    EXPECT_EQ(fields(lines[i + 1]), (std::vector<std::string>{std::to_string(a.start), std::to_string(a.end), kind}));
  }
  // A recording without artefacts gives the header alone.
  synth::write_artefacts_csv(synth::ecg_recording{}, path);
  EXPECT_EQ(read_lines(path), std::vector<std::string>{"start,end,kind"});
}

TEST(SynthEcgIo, LabelsPathConvention) {
  EXPECT_EQ(synth::labels_path_for("data/run1/ecg.csv"), fs::path("data/run1/ecg.labels.csv"));
  EXPECT_EQ(synth::labels_path_for("ecg.csv"), fs::path("ecg.labels.csv"));
  EXPECT_EQ(synth::labels_path_for("/a/b.c/heart.beats.csv"), fs::path("/a/b.c/heart.beats.labels.csv"));
  EXPECT_EQ(synth::artefacts_path_for("data/run1/ecg.csv"), fs::path("data/run1/ecg.artefacts.csv"));
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
  rec.labels = {'N', 'x'};  // no beat symbol of the generator: its AAMI class would be unknown
  EXPECT_THROW(synth::write_labels_csv(rec, dir / "x.labels.csv"), zf::invalid_argument);
  EXPECT_TRUE(folder_entries(dir).empty());
}
