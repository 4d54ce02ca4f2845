// `run` under a device memory budget (run_options::max_device_memory) against the same run in
// memory: every column of beats.csv, the training losses and the report's figure inputs are the
// same, and the budget holds (on the host, a limiting adaptor over the host resource fails any
// allocation past it; on a GPU, the peak device bytes are checked). GPU tests skip without one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/pipeline/chunked.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/synth/ecg.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zf = zeroflow;
namespace fs = std::filesystem;

namespace {

/// 100 minutes at 250 Hz (1.5 M samples, 6 MB): a 64 MiB budget cuts it in 3 chunks on the host.
fs::path recording() {
  static const fs::path csv = [] {
    const fs::path dir = fs::temp_directory_path() / ("zf_chunked_run_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    zf::synth::ecg_options o;
    o.hours = 100.0 / 60;
    o.seed = 23;
    o.apb_rate = 0.02;
    o.noise_bursts_per_hour = 6;
    const fs::path path = dir / "ecg.csv";
    zf::synth::write_ecg_csv(zf::synth::generate_ecg(o), path);
    return path;
  }();
  return csv;
}

zf::pipeline::run_result run(zf::pipeline::device_choice where, std::int64_t budget) {
  zf::pipeline::run_options o;
  o.input = recording();
  o.where = where;
  o.epochs = 2;
  o.max_device_memory = budget;
  // Only possible first thing in a process (the CLI does it); other tests have used LibTorch.
  o.route_torch_memory = false;
  return zf::pipeline::run(o);
}

template <class T>
void expect_bits(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)), 0);
}

void expect_same_results(const zf::pipeline::run_result& whole, const zf::pipeline::run_result& chunked) {
  EXPECT_EQ(chunked.samples, whole.samples);
  ASSERT_EQ(chunked.peak, whole.peak);
  EXPECT_EQ(chunked.start, whole.start);
  EXPECT_EQ(chunked.length, whole.length);
  EXPECT_EQ(chunked.kept, whole.kept);
  EXPECT_EQ(chunked.split, whole.split);
  EXPECT_EQ(chunked.histogram, whole.histogram);
  EXPECT_EQ(chunked.flags, whole.flags);
  expect_bits(chunked.score, whole.score, "score");
  expect_bits(chunked.mu0, whole.mu0, "mu0");
  expect_bits(chunked.mu1, whole.mu1, "mu1");
  expect_bits(chunked.rr_before, whole.rr_before, "rr_before");
  expect_bits(chunked.rr_after, whole.rr_after, "rr_after");
  expect_bits(chunked.local_rr, whole.local_rr, "local_rr");
  expect_bits(chunked.morphology, whole.morphology, "morphology");
  expect_bits(chunked.rhythm, whole.rhythm, "rhythm");
  EXPECT_EQ(chunked.epoch_loss, whole.epoch_loss);
  EXPECT_EQ(chunked.test_loss, whole.test_loss);
  expect_bits(chunked.decoded_grid, whole.decoded_grid, "decoded grid");
  const auto &f = chunked.figures, &g = whole.figures;
  EXPECT_EQ(f.overview_bucket, g.overview_bucket);
  expect_bits(f.overview_min, g.overview_min, "overview min");
  expect_bits(f.overview_max, g.overview_max, "overview max");
  EXPECT_EQ(f.excerpt_start, g.excerpt_start);
  expect_bits(f.excerpt_signal, g.excerpt_signal, "excerpt");
  expect_bits(f.excerpt_filtered, g.excerpt_filtered, "excerpt band-pass");
  EXPECT_EQ(f.row_beats, g.row_beats);
  expect_bits(f.rows, g.rows, "display rows");
  EXPECT_EQ(f.thumb_width, g.thumb_width);
  expect_bits(f.thumbs, g.thumbs, "thumbnails");
}

}  // namespace

TEST(ChunkedRun, SameResultsAsInMemoryOnHost) {
  const auto whole = run(zf::pipeline::device_choice::cpu, 0);
  ASSERT_GT(whole.peak.size(), 5000U);
  // The smallest budget: the host allocations after loading (chunks, model scratch of zeroflow's)
  // must stay under it, or the limiting adaptor fails the run.
  const auto chunked = run(zf::pipeline::device_choice::cpu, zf::pipeline::min_device_budget);
  expect_same_results(whole, chunked);
  bool chunk_progress = false;
  zf::pipeline::run_options o;
  o.input = recording();
  o.where = zf::pipeline::device_choice::cpu;
  o.epochs = 1;
  o.max_device_memory = zf::pipeline::min_device_budget;
  o.progress = [&](const std::string& line) { chunk_progress |= line.find("chunks of") != std::string::npos; };
  (void)zf::pipeline::run(o);
  EXPECT_TRUE(chunk_progress) << "the recording was not cut in chunks";
}

TEST(ChunkedRun, RefusesABudgetUnderTheMinimumAndTheSeedMethod) {
  zf::pipeline::run_options o;
  o.input = recording();
  o.where = zf::pipeline::device_choice::cpu;
  o.epochs = 1;
  o.max_device_memory = zf::pipeline::min_device_budget - 1;
  EXPECT_THROW((void)zf::pipeline::run(o), zf::invalid_argument);
  o.max_device_memory = zf::pipeline::min_device_budget;
  o.segmentation.method = zf::signal::segmentation_method::seed;
  EXPECT_THROW((void)zf::pipeline::run(o), zf::invalid_argument);
}

TEST(ChunkedRun, SameResultsAsInMemoryOnGpuUnderTheBudget) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  const auto whole = run(zf::pipeline::device_choice::cuda, 0);
  // Two chunks of the recording, and room for LibTorch's batches besides the rows.
  const std::int64_t budget = std::int64_t{96} << 20;
  const auto chunked = run(zf::pipeline::device_choice::cuda, budget);
  expect_same_results(whole, chunked);
  EXPECT_GT(chunked.peak_device_bytes, 0);
  EXPECT_LE(chunked.peak_device_bytes, budget);
}
