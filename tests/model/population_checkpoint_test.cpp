// The population training's checkpoint file (population_checkpoint.hpp): what is written is read
// back exactly, with safetensors' own reader as the independent check of the layout; a
// checkpoint of other settings, a damaged one or a missing one is refused with what is wrong.
#include "model/population_checkpoint.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/safetensors.hpp"

namespace zmd = zeroflow::model::detail;
namespace fs = std::filesystem;

namespace {

fs::path temp_file(const std::string& name) {
  const char* root = std::getenv("ZEROFLOW_TEST_TMP");
  const fs::path dir = fs::path(root != nullptr ? root : fs::temp_directory_path().string()) / "population_checkpoint";
  fs::create_directories(dir);
  return dir / name;
}

zmd::population_settings settings() {
  return {.width = 64,
          .rows = 5000,
          .rows_identity = "3 recordings, fnv1a64:0123456789abcdef",
          .seed = 7,
          .batch = 512,
          .learning_rate = 1e-3,
          .test_fraction = 0.25};
}

zmd::population_checkpoint sample() {
  zmd::population_checkpoint c;
  c.settings = settings();
  c.epochs_done = 3;
  c.epoch_loss = {1.5, 0.75, 0.1 + 0.2};  // 0.30000000000000004 must come back exactly
  c.weights = {0.25F, -1.0F / 3.0F, 7e-8F};
  c.optimiser.exp_avg = {1e-3F, 2e-3F, -3e-3F};
  c.optimiser.exp_avg_sq = {1e-6F, 4e-6F, 9e-6F};
  c.optimiser.adam_step = 123.0F;
  c.optimiser.noise_step = (std::uint64_t{1} << 40) + 5;
  return c;
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string refusal(const fs::path& p, const zmd::population_settings& s) {
  try {
    (void)zmd::read_population_checkpoint(p, s);
  } catch (const zeroflow::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PopulationCheckpoint, ReadsBackExactlyWhatWasWritten) {
  const fs::path p = temp_file("exact.checkpoint");
  const zmd::population_checkpoint c = sample();
  zmd::write_population_checkpoint(p, c);
  const zmd::population_checkpoint r = zmd::read_population_checkpoint(p, settings());
  EXPECT_EQ(r.epochs_done, 3);
  EXPECT_EQ(r.epoch_loss, c.epoch_loss);
  EXPECT_EQ(r.weights, c.weights);
  EXPECT_EQ(r.optimiser.exp_avg, c.optimiser.exp_avg);
  EXPECT_EQ(r.optimiser.exp_avg_sq, c.optimiser.exp_avg_sq);
  EXPECT_EQ(r.optimiser.adam_step, c.optimiser.adam_step);
  EXPECT_EQ(r.optimiser.noise_step, c.optimiser.noise_step);
  // The layout, by the format's own reader: float32 weights, float64 losses, the settings in the metadata.
  const auto content = zeroflow::io::from_safetensors(bytes_of(p));
  ASSERT_NE(content.find("weights"), nullptr);
  EXPECT_EQ(content.find("weights")->dtype, "F32");
  EXPECT_EQ(content.find("epoch_loss")->dtype, "F64");
  float w1 = 0;
  std::memcpy(&w1, content.find("weights")->bytes.data() + sizeof(float), sizeof w1);
  EXPECT_EQ(w1, -1.0F / 3.0F);
  EXPECT_EQ(content.metadata.at("batch"), "512");
  EXPECT_EQ(content.metadata.at("noise_step"), std::to_string((std::uint64_t{1} << 40) + 5));
}

TEST(PopulationCheckpoint, RefusesAnotherRunsCheckpointNamingTheSetting) {
  const fs::path p = temp_file("other.checkpoint");
  zmd::write_population_checkpoint(p, sample());
  auto s = settings();
  s.batch = 1024;
  EXPECT_NE(refusal(p, s).find("the batch was 512, now 1024"), std::string::npos) << refusal(p, s);
}

TEST(PopulationCheckpoint, RefusesOtherRecordingsAndOtherLearningRates) {
  const fs::path p = temp_file("recordings.checkpoint");
  zmd::write_population_checkpoint(p, sample());
  auto s = settings();
  s.rows_identity = "4 recordings, fnv1a64:fedcba9876543210";
  EXPECT_NE(refusal(p, s).find("the recordings' fingerprint (files, sizes, lead, rate, beats) was 3 recordings"),
            std::string::npos)
      << refusal(p, s);
  s = settings();
  s.learning_rate = 2e-3;
  EXPECT_NE(refusal(p, s).find("the learning rate was 0.001, now 0.002"), std::string::npos) << refusal(p, s);
}

TEST(PopulationCheckpoint, RefusesADamagedOrMissingFile) {
  const fs::path p = temp_file("damaged.checkpoint");
  zmd::write_population_checkpoint(p, sample());
  std::string bytes = bytes_of(p);
  bytes[bytes.size() - 3] ^= 0x40;  // a bit of the last loss flipped
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_NE(refusal(p, settings()).find("checksum does not match"), std::string::npos) << refusal(p, settings());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  EXPECT_NE(refusal(p, settings()).find(p.string() + ": cannot resume"), std::string::npos);
  EXPECT_NE(refusal(temp_file("absent.checkpoint"), settings()).find("no checkpoint to resume from"),
            std::string::npos);
}
