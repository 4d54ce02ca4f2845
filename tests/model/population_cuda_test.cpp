// Population training on a GPU (population.hpp), one process: the CPU's steps (population_test.cpp
// checks the CPU's own promises), the same steps as vae::train's
// fused path when the training rows make whole batches (whose steps are checked against
// LibTorch's in gpu_light_vae_trainer_cuda_test.cpp), the same result from rows in mapped host
// memory, and a run stopped after some epochs and resumed from its checkpoint equal, bit for bit,
// to one never stopped. Skips without a GPU. Several GPUs: python/tests/test_population_gpus.py.
#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "model/fused_vae_step.hpp"
#include "model/model_test_util.hpp"
#include "model/population_test_util.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/mapped_resource.hpp"
#include "zeroflow/model/population.hpp"
#include "zeroflow/model/vae.hpp"

namespace zf = zeroflow;
namespace zm = zeroflow::model;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t width = 64;
constexpr int n_rows = 2048;  // 1536 training rows: 6 whole batches of 256

bool have_gpu() { return zf::cuda_available(); }

fs::path temp_file(const std::string& name) { return zf::model_test::temp_file("population_cuda", name); }

zf::array gpu_rows() {
  return zf::copy_to(zf::model_test::make_rows(n_rows, static_cast<int>(width), 3, {5, 50, 500}), zf::cuda_device(0));
}

std::string file_of(const zm::vae& m, const std::string& name) {
  return zf::model_test::file_of(m, "population_cuda", name);
}

zm::population_options options(int epochs) { return zf::model_test::short_population_run(epochs, 256); }

}  // namespace

TEST(PopulationTraining, TakesVaeTrainsStepsWhenBatchesAreWhole) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const zf::array rows = gpu_rows();
  zm::vae reference = zm::vae::create(width, zf::cuda_device(0), 11);
  zm::train_options t;
  t.epochs = 4;
  t.batch = 256;
  t.seed = 11;
  t.path = zm::training_path::fused_kernels;
  const zm::train_result expected = reference.train(rows, t);

  zm::vae m = zm::vae::create(width, zf::cuda_device(0), 11);
  const zm::population_result got = zm::train_population(m, rows, options(4));
  EXPECT_EQ(got.epoch_loss, expected.epoch_loss);
  EXPECT_EQ(got.test_loss, expected.test_loss);
  EXPECT_EQ(got.train_rows, 1536);
  EXPECT_EQ(got.steps, 4 * 6);
  EXPECT_EQ(got.host_syncs, 1);  // the losses, read once: no wait per step
  EXPECT_EQ(file_of(m, "population.safetensors"), file_of(reference, "reference.safetensors"));
}

TEST(PopulationTraining, RowsInMappedHostMemoryTrainTheSame) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const zf::array rows = gpu_rows();
  zm::vae a = zm::vae::create(width, zf::cuda_device(0), 11);
  const auto on_device = zm::train_population(a, rows, options(2));
  const zf::array host =
      zf::empty({n_rows, width}, zf::float32, zf::stream_view{}, std::make_shared<zf::memory::mapped_resource>(0));
  const zf::array back = zf::copy_to(rows, zf::cpu_device);
  std::memcpy(host.data(), back.data(), back.nbytes());
  zm::vae b = zm::vae::create(width, zf::cuda_device(0), 11);
  const auto mapped = zm::train_population(b, zf::memory::mapped_device_view(host, zf::cuda_device(0)), options(2));
  EXPECT_EQ(mapped.epoch_loss, on_device.epoch_loss);
  EXPECT_EQ(file_of(a, "device.safetensors"), file_of(b, "mapped.safetensors"));
}

TEST(PopulationTraining, AResumedRunEqualsAnUninterruptedOne) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const zf::array rows = gpu_rows();
  zm::vae whole = zm::vae::create(width, zf::cuda_device(0), 11);
  const auto uninterrupted = zm::train_population(whole, rows, options(5));

  // Stopped after 2 epochs (its checkpoint is what a killed run leaves), resumed to 5.
  const fs::path checkpoint = temp_file("run.checkpoint");
  auto first = options(2);
  first.checkpoint = checkpoint;
  zm::vae stopped = zm::vae::create(width, zf::cuda_device(0), 11);
  (void)zm::train_population(stopped, rows, first);
  ASSERT_TRUE(fs::exists(checkpoint));
  auto rest = options(5);
  rest.checkpoint = checkpoint;
  rest.resume = true;
  std::vector<int> seen;
  rest.on_epoch = [&](int epoch, double) { seen.push_back(epoch); };
  zm::vae resumed = zm::vae::create(width, zf::cuda_device(0), 11);
  const auto r = zm::train_population(resumed, rows, rest);
  EXPECT_EQ(r.first_epoch, 2);
  EXPECT_EQ(seen, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(r.epoch_loss, uninterrupted.epoch_loss);
  EXPECT_EQ(r.test_loss, uninterrupted.test_loss);
  EXPECT_EQ(file_of(resumed, "resumed.safetensors"), file_of(whole, "whole.safetensors"));

  // Another batch is another run: refused, naming it.
  auto other = rest;
  other.batch = 512;
  zm::vae m = zm::vae::create(width, zf::cuda_device(0), 11);
  try {
    (void)zm::train_population(m, rows, other);
    ADD_FAILURE() << "a checkpoint of another batch was resumed";
  } catch (const zf::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the batch was 256, now 512"), std::string::npos) << e.what();
  }
}

// The CPU's trainer takes the GPU's steps: the same split, shuffles, noise and Adam, so the losses
// agree to float rounding.
TEST(PopulationTraining, TheCpuTakesTheGpusSteps) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const zf::array rows = gpu_rows();
  zm::vae on_gpu = zm::vae::create(width, zf::cuda_device(0), 11);
  const auto g = zm::train_population(on_gpu, rows, options(3));
  zm::vae on_cpu = zm::vae::create(width, zf::cpu_device, 11);
  const auto c = zm::train_population(on_cpu, zf::copy_to(rows, zf::cpu_device), options(3));
  ASSERT_EQ(c.epoch_loss.size(), g.epoch_loss.size());
  for (std::size_t e = 0; e < g.epoch_loss.size(); ++e)
    EXPECT_NEAR(c.epoch_loss[e], g.epoch_loss[e], 1e-4 * g.epoch_loss[e]) << "epoch " << e;
  EXPECT_NEAR(c.test_loss, g.test_loss, 1e-3 * g.test_loss);
  EXPECT_EQ(c.steps, g.steps);
}

TEST(PopulationTraining, RefusesBadSettings) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const zf::array rows = gpu_rows();
  zm::vae m = zm::vae::create(width, zf::cuda_device(0), 11);
  auto o = options(1);
  o.batch = 4096;  // more than the 1536 training rows
  EXPECT_THROW((void)zm::train_population(m, rows, o), zf::invalid_argument);
  zm::vae cpu = zm::vae::create(width, zf::cpu_device, 11);
  EXPECT_THROW((void)zm::train_population(cpu, rows, options(1)), zf::invalid_argument);
}

#endif
