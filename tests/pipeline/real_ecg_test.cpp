// The pipeline on a real recording (MIT-BIH 119, ventricular bigeminy: tests/data/mitdb): every
// labelled beat found and scored, premature ventricular beats ranked on top; and the GPU finds
// exactly the host's beats and, with the same model, gives the host's scores. GPU tests skip
// without one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"

namespace zf = zeroflow;
namespace fs = std::filesystem;

namespace {

const fs::path record = fs::path(ZEROFLOW_TEST_DATA_DIR) / "mitdb" / "119.hea";
const fs::path labels = fs::path(ZEROFLOW_TEST_DATA_DIR) / "mitdb" / "119.atr";

zf::pipeline::run_options options_for(zf::pipeline::device_choice where) {
  zf::pipeline::run_options o;
  o.input = record;
  o.labels = labels;
  o.where = where;
  o.epochs = 10;
  // Other tests in this process have used LibTorch's CUDA allocator already (see
  // pipeline_transfers_test.cpp); routing does not change the results.
  o.route_torch_memory = false;
  return o;
}

fs::path scratch_dir() {
  const fs::path dir = fs::temp_directory_path() / ("zf_real_ecg_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST(RealEcg, EveryBeatOfRecord119IsFoundScoredAndThePvcsRankFirst) {
  const auto r = zf::pipeline::run(options_for(zf::pipeline::device_choice::cpu));
  EXPECT_EQ(r.sample_rate, 360);  // from the WFDB header, not the CSV default
  EXPECT_EQ(r.lead, "MLII");
  ASSERT_TRUE(r.quality.has_value());
  ASSERT_TRUE(r.quality->not_evaluated.empty()) << r.quality->not_evaluated;
  const auto& q = r.quality->result;
  EXPECT_EQ(q.labelled_beats, 1987);
  EXPECT_GE(q.detection.sensitivity, 0.995);
  EXPECT_GE(q.detection.positive_predictivity, 0.995);
  EXPECT_EQ(q.ventricular.positives, 444);
  EXPECT_EQ(q.ventricular.unscored_positives, 0);  // the seed's length filter dropped 98 % of them
  ASSERT_TRUE(q.ventricular.auroc.has_value());
  EXPECT_GE(*q.ventricular.auroc, 0.97);
  for (std::size_t b = 0; b < r.score.size(); ++b) ASSERT_TRUE(std::isfinite(r.score[b])) << "beat " << b;
}

TEST(RealEcg, TheGpuFindsTheHostsBeatsAndScoresThemAlikeWithTheSameModel) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  const fs::path model = scratch_dir() / "model.pt";
  const auto host = zf::pipeline::run(options_for(zf::pipeline::device_choice::cpu), model);
  auto o = options_for(zf::pipeline::device_choice::cuda);
  o.model = model;
  const auto gpu = zf::pipeline::run(o);
  ASSERT_EQ(gpu.peak, host.peak);  // one decision function on both sides: the very same beats
  ASSERT_EQ(gpu.score.size(), host.score.size());
  for (std::size_t b = 0; b < host.score.size(); ++b) {
    EXPECT_NEAR(gpu.rr_before[b], host.rr_before[b], 1e-6F * host.rr_before[b]) << "beat " << b;
    EXPECT_NEAR(gpu.local_rr[b], host.local_rr[b], 1e-6F * host.local_rr[b]) << "beat " << b;
    EXPECT_NEAR(gpu.rhythm[b], host.rhythm[b], 1e-3F + 1e-4F * std::abs(host.rhythm[b])) << "beat " << b;
    // The VAE's forward pass differs between the fused GPU kernel and LibTorch's CPU ops by float
    // round-off (cuDNN-free, but summation orders differ).
    EXPECT_NEAR(gpu.morphology[b], host.morphology[b], 1e-2F + 1e-3F * std::abs(host.morphology[b])) << "beat " << b;
    EXPECT_NEAR(gpu.score[b], host.score[b], 2e-2F + 1e-3F * std::abs(host.score[b])) << "beat " << b;
  }
  ASSERT_TRUE(gpu.quality && host.quality);
  EXPECT_NEAR(*gpu.quality->result.ventricular.auroc, *host.quality->result.ventricular.auroc, 1e-3);
  // The classes, families and the Holter figures come from the same beat table on the host: equal.
  EXPECT_EQ(gpu.beat_class, host.beat_class);
  EXPECT_EQ(gpu.family, host.family);
  ASSERT_TRUE(gpu.holter && host.holter);
  ASSERT_EQ(gpu.holter->events.size(), host.holter->events.size());
  for (std::size_t e = 0; e < host.holter->events.size(); ++e) {
    EXPECT_EQ(gpu.holter->events[e].kind, host.holter->events[e].kind) << e;
    EXPECT_EQ(gpu.holter->events[e].first_beat, host.holter->events[e].first_beat) << e;
    EXPECT_EQ(gpu.holter->events[e].last_beat, host.holter->events[e].last_beat) << e;
  }
  const auto& gpu_rate = gpu.holter->heart_rate.averaged_bpm;
  const auto& host_rate = host.holter->heart_rate.averaged_bpm;
  ASSERT_EQ(gpu_rate.size(), host_rate.size());
  for (std::size_t b = 0; b < host_rate.size(); ++b)  // NaN where the beat's intervals are not all measurable
    EXPECT_TRUE(gpu_rate[b] == host_rate[b] || (std::isnan(gpu_rate[b]) && std::isnan(host_rate[b]))) << "beat " << b;
  EXPECT_EQ(gpu.holter->hrv.sdnn_ms, host.holter->hrv.sdnn_ms);
  EXPECT_EQ(gpu.holter->hrv.rmssd_ms, host.holter->hrv.rmssd_ms);
  EXPECT_EQ(gpu.holter->totals.ventricular.in_runs, host.holter->totals.ventricular.in_runs);
  EXPECT_EQ(gpu.figures.strips.size(), host.figures.strips.size());
  for (std::size_t s = 0; s < host.figures.strips.size(); ++s)
    EXPECT_EQ(gpu.figures.strips[s].samples, host.figures.strips[s].samples) << "strip " << s;
}
