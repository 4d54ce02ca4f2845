// "No host round trips": between loading and collecting, the GPU stages of the pipeline copy
// nothing to the host but the scalars that size their outputs, as counted by zeroflow's transfer
// ledger (core/transfers.hpp). LibTorch's own transfers are checked in the trainer's tests
// (sync-debug mode). GPU tests skip without one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/synth/ecg.hpp"
#include "zeroflow/synth/ecg_io.hpp"

namespace zf = zeroflow;
namespace fs = std::filesystem;

namespace {

// Five minutes of synthetic ECG at 90 bpm, written once per test program.
fs::path recording() {
  static const fs::path csv = [] {
    const fs::path dir = fs::temp_directory_path() / ("zf_transfers_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    zf::synth::ecg_options o;
    o.hours = 5.0 / 60;
    o.heart_rate_bpm = 90;
    o.seed = 5;
    const fs::path path = dir / "ecg.csv";
    zf::synth::write_ecg_csv(zf::synth::generate_ecg(o), path);
    return path;
  }();
  return csv;
}

std::map<std::string, std::int64_t> copied_per_stage(zf::pipeline::device_choice where) {
  zf::pipeline::run_options o;
  o.input = recording();
  o.where = where;
  o.epochs = 2;
  // Other tests in this process have used LibTorch's CUDA allocator already; routing it is
  // only possible first thing (the CLI does it), and does not change what is copied.
  o.route_torch_memory = false;
  const auto result = zf::pipeline::run(o);
  std::map<std::string, std::int64_t> copied;
  for (const auto& s : result.stages) copied[s.name] = s.device_to_host_bytes;
  return copied;
}

}  // namespace

TEST(TransferLedger, CountsDeviceToHostCopiesOnly) {
  const zf::array host = zf::zeros({1000}, zf::float32);
  const auto before = zf::device_to_host_transfers();
  (void)zf::copy_to(host, zf::cpu_device);
  EXPECT_EQ(zf::device_to_host_transfers().bytes, before.bytes);
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU for the device-to-host half";
  const zf::array dev = zf::copy_to(host, zf::cuda_device(0));
  EXPECT_EQ(zf::device_to_host_transfers().bytes, before.bytes);  // host to device is not counted
  (void)zf::copy_to(dev, zf::cpu_device);
  const auto after = zf::device_to_host_transfers();
  EXPECT_EQ(after.bytes - before.bytes, 4000);
  EXPECT_EQ(after.copies - before.copies, 1);
  EXPECT_GE(after.largest, 4000);
}

TEST(PipelineTransfers, TheHostPipelineCopiesNothingFromADevice) {
  for (const auto& [stage, bytes] : copied_per_stage(zf::pipeline::device_choice::cpu)) EXPECT_EQ(bytes, 0) << stage;
}

TEST(PipelineTransfers, GpuStagesHandOnlyScalarsToTheHost) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no GPU";
  const auto copied = copied_per_stage(zf::pipeline::device_choice::cuda);
  for (const char* stage : {"warm_up", "segment", "train", "score", "decode_grid"}) {
    ASSERT_TRUE(copied.contains(stage)) << stage;
    // A handful of 8-byte counts and the normalisation's three numbers.
    EXPECT_LE(copied.at(stage), 256) << stage;
  }
  // The one real hand-off, and proof that the ledger sees the pipeline's copies.
  EXPECT_GT(copied.at("collect"), 10'000);
}
