// A rhythm faster than the detector follows (detection.md: a peak within 0.25 s of a beat replaces
// it) is not read silently as half its rate: the same synthetic recording declared at twice its
// sample rate (120 bpm becomes 240 bpm, 144 bpm 288 bpm) has stretches with a second QRS between
// the beats found (classify::classification::fast_rhythm_stretches), and at its own rate none.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;

namespace {

zf::pipeline::run_result run_at(double declared_rate, double bpm) {
  zf::synth::ecg_options o;
  o.hours = 0.03;
  o.heart_rate_bpm = bpm;
  o.anomaly_rate = 0;
  o.apb_rate = 0;
  o.seed = 11;
  const auto x = zf::synth::generate_ecg(o).samples;
  const auto path = std::filesystem::temp_directory_path() / ("zf_fast_" + std::to_string(::getpid()) + ".f32");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(x.data()), static_cast<std::streamsize>(x.size() * sizeof(float)));
  }
  zf::pipeline::run_options options;
  options.input = path;
  options.segmentation.sample_rate = declared_rate;
  options.sample_rate_explicit = true;
  options.where = zf::pipeline::device_choice::cpu;
  options.epochs = 1;
  auto r = zf::pipeline::run(options);
  std::filesystem::remove(path);
  return r;
}

}  // namespace

TEST(FastRhythm, HalfTheBeatsOfA288BpmRhythmAreReportedNotSilent) {
  const auto fast = run_at(500, 144);  // generated at 250 Hz: 288 bpm when read as 500 Hz
  ASSERT_FALSE(fast.fast_rhythm.empty());
  std::int64_t beats = 0;
  for (const auto& s : fast.fast_rhythm) {
    EXPECT_EQ(s.rhythm, "fast");
    EXPECT_GE(s.last_beat - s.first_beat + 1, 8);
    beats += s.last_beat - s.first_beat + 1;
  }
  EXPECT_GE(beats, static_cast<std::int64_t>(fast.peak.size()) / 2);  // most of the recording
}

TEST(FastRhythm, AnOrdinaryRhythmHasNone) {
  EXPECT_TRUE(run_at(250, 144).fast_rhythm.empty());
  EXPECT_TRUE(run_at(250, 60).fast_rhythm.empty());
}
