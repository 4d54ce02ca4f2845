// `run` under a device memory budget (run_options::max_device_memory) against the same run in
// memory: every column of beats.csv, the training losses and the report's figure inputs are the
// same, and the budget holds (on the host, a limiting adaptor over the host resource fails any
// allocation past it; on a GPU, the peak device bytes are checked), also for a recording whose
// rows are several times the budget (training reads them from mapped host memory). GPU tests skip
// without one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/interop/torch_cuda_allocator.hpp"
#include "zeroflow/pipeline/chunked.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/synth/ecg.hpp"
#include "zeroflow/synth/ecg_io.hpp"

#if ZEROFLOW_HAS_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

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

/// 33 hours at 250 Hz and 150 beats per minute (30 M samples) as a WFDB record (format 16, read
/// without parsing): about 290,000 beats, whose rows (1 KiB each) take 4.4 times the smallest budget.
fs::path long_fast_recording() {
  static const fs::path hea = [] {
    const fs::path dir = fs::temp_directory_path() / ("zf_chunked_run_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    zf::synth::ecg_options o;
    o.hours = 33;
    o.heart_rate_bpm = 150;
    o.seed = 29;
    const std::vector<float> mv = zf::synth::generate_ecg(o).samples;
    std::vector<std::int16_t> stored(mv.size());
    for (std::size_t i = 0; i < mv.size(); ++i) stored[i] = static_cast<std::int16_t>(std::lround(mv[i] * 200.0F));
    std::ofstream(dir / "fast.dat", std::ios::binary)
        .write(reinterpret_cast<const char*>(stored.data()), static_cast<std::streamsize>(stored.size() * 2));
    std::ofstream(dir / "fast.hea") << "fast 1 250 " << stored.size() << "\nfast.dat 16 200(0)/mV 16 0 0 0 0 ECG\n";
    return dir / "fast.hea";
  }();
  return hea;
}

zf::pipeline::run_result run(zf::pipeline::device_choice where, std::int64_t budget, const fs::path& input,
                             int epochs = 2, std::function<void(const std::string&)> progress = {}) {
  zf::pipeline::run_options o;
  o.input = input;
  o.where = where;
  o.epochs = epochs;
  o.max_device_memory = budget;
  o.progress = std::move(progress);
  // Only possible first thing in a process (the CLI does it); other tests have used LibTorch.
  o.route_torch_memory = false;
  return zf::pipeline::run(o);
}

zf::pipeline::run_result run(zf::pipeline::device_choice where, std::int64_t budget) {
  return run(where, budget, recording());
}

/// LibTorch's own CUDA allocator (when zeroflow's pool is not routed to it): its peak from here on.
struct torch_peak {
  torch_peak() {
#if ZEROFLOW_HAS_CUDA
    if (measured) {
      c10::cuda::CUDACachingAllocator::resetPeakStats(0);
      // Tensors that earlier tests of this process still hold are not this run's.
      baseline = allocated().current;
    }
#endif
  }
  [[nodiscard]] std::int64_t bytes() const {
#if ZEROFLOW_HAS_CUDA
    if (measured) return allocated().peak - baseline;
#endif
    return 0;
  }
#if ZEROFLOW_HAS_CUDA
  static c10::CachingAllocator::Stat allocated() {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
    return stats.allocated_bytes[static_cast<std::size_t>(c10::CachingAllocator::StatType::AGGREGATE)];
  }
#endif
  std::int64_t baseline = 0;
  /// Routed, LibTorch's memory comes from a zeroflow resource bound earlier in the process; an
  /// allocator never initialised has allocated nothing (a GPU run does not use LibTorch).
  const bool measured = !zf::interop::torch_allocator_routed() && allocator_in_use();
  static bool allocator_in_use() {
#if ZEROFLOW_HAS_CUDA
    auto* allocator = c10::cuda::CUDACachingAllocator::get();
    return allocator != nullptr && allocator->initialized();
#else
    return false;
#endif
  }
};

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
  o.segmentation.method = zf::signal::segmentation_method::gate_to_gate;
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

TEST(ChunkedRun, RowsFourTimesTheBudgetTrainFromHostMemoryOnGpu) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  // The smallest budget, so that a recording of a few seconds' work has rows 4 times its size.
  const std::int64_t budget = zf::pipeline::min_device_budget;
  const fs::path input = long_fast_recording();
  const auto whole = run(zf::pipeline::device_choice::cuda, 0, input, 1);
  const auto row_bytes = static_cast<std::int64_t>(whole.peak.size()) * whole.sizes.row_width * 4;
  ASSERT_GE(row_bytes, 4 * budget) << whole.peak.size() << " beats";
  bool from_host = false;
  const torch_peak libtorch;  // after the first run: LibTorch's allocator is initialised
  const auto chunked = run(zf::pipeline::device_choice::cuda, budget, input, 1, [&](const std::string& line) {
    from_host |= line.find("rows") != std::string::npos && line.find("from host memory") != std::string::npos;
  });
  EXPECT_TRUE(from_host) << "training did not read the rows from host memory";
  expect_same_results(whole, chunked);
  EXPECT_GT(chunked.peak_device_bytes, 0);
  // zeroflow's peak and LibTorch's own together: a bound on the peak of both at once.
  EXPECT_LE(chunked.peak_device_bytes + libtorch.bytes(), budget)
      << "zeroflow " << chunked.peak_device_bytes << " bytes, LibTorch " << libtorch.bytes()
      << (libtorch.measured ? "" : " (not measured: routed to a resource of an earlier test)");
}
