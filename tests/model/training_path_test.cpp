// The training path (training_path.hpp): zeroflow's own kernels on either device, decided in one
// place per model from the device and the model's widths, reported by vae::train and
// mlp_autoencoder::train; what the kernels cannot take is refused before anything happens, saying
// what would work. The choice itself needs no GPU; the GPU cases skip without one.
#include "zeroflow/model/training_path.hpp"

#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "model/model_test_util.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#include "zeroflow/model/vae.hpp"

namespace zf = zeroflow;
using zf::model::choose_mlp_training_path;
using zf::model::choose_training_path;
using zf::model::training_path;
using zf::model::vae;
using namespace zeroflow::model_test;

namespace {

constexpr bool cuda_build = ZEROFLOW_HAS_CUDA != 0;

zf::model::train_options short_training(training_path path = training_path::automatic) {
  zf::model::train_options opt;
  opt.epochs = 2;
  opt.batch = 64;
  opt.path = path;
  return opt;
}

bool have_gpu() { return cuda_build && zf::cuda_available() && torch::cuda::is_available(); }

}  // namespace

// One LibTorch thread, as the other CPU model tests: bit-reproducible and quick on a shared machine.
class TrainingPath : public ::testing::Test {
 protected:
  void SetUp() override {
    threads_ = zf::model::cpu_threads();
    zf::model::set_cpu_threads(1);
  }
  void TearDown() override { zf::model::set_cpu_threads(threads_); }

 private:
  int threads_ = 1;
};

TEST_F(TrainingPath, TheOwnKernelsTakeWhatTheDeviceAndTheWidthAllow) {
  // The CPU takes its own kernels at every width a LightVAE has.
  for (const std::int64_t width : {16, 64, 1024, 2048})
    for (const training_path asked : {training_path::automatic, training_path::fused_kernels})
      EXPECT_EQ(choose_training_path(zf::cpu_device, width, asked), training_path::fused_kernels) << width;
  EXPECT_FALSE(zf::model::training_path_possible(training_path::automatic, zf::cpu_device, 64));
  EXPECT_FALSE(zf::model::training_path_possible(training_path::fused_kernels, zf::cpu_device, 48));
  // A GPU takes widths up to 1024; a wider model is refused, saying to train it on the CPU.
  const std::string wide =
      message_of<zf::invalid_argument>([&] { (void)choose_training_path(zf::cuda_device(0), 2048); });
  if (cuda_build) {
    EXPECT_EQ(choose_training_path(zf::cuda_device(0), 64), training_path::fused_kernels);
    EXPECT_EQ(choose_training_path(zf::cuda_device(0), 1024), training_path::fused_kernels);
    EXPECT_NE(wide.find("not 2048: train a wider model on the CPU"), std::string::npos) << wide;
  } else {
    EXPECT_NE(wide.find("needs a build of zeroflow with CUDA"), std::string::npos) << wide;
  }
}

TEST_F(TrainingPath, NamesAreDistinct) {
  EXPECT_EQ(std::string(zf::model::training_path_name(training_path::automatic)), "automatic");
  EXPECT_EQ(std::string(zf::model::training_path_name(training_path::fused_kernels)), "fused_kernels");
}

TEST_F(TrainingPath, TheHostTrainsOnItsOwnKernelsAndSaysSo) {
  const zf::array rows = make_rows(300, 32, 2);
  vae m = vae::create(32, zf::cpu_device, 5);
  EXPECT_EQ(m.train(rows, short_training()).path, training_path::fused_kernels);
  EXPECT_EQ(m.train(rows, short_training(training_path::fused_kernels)).path, training_path::fused_kernels);
}

// A refused call is refused before anything happens: the model and later runs are as if it had
// never been made.
TEST_F(TrainingPath, ARefusedCallLeavesNothingBehind) {
  const zf::array rows = make_rows(300, 32, 4);
  vae reference = vae::create(32, zf::cpu_device, 9);
  const auto want = reference.train(rows, short_training());
  vae m = vae::create(32, zf::cpu_device, 9);
  zf::model::train_options bad = short_training();
  bad.learning_rate = -1;
  EXPECT_THROW((void)m.train(rows, bad), zf::invalid_argument);
  EXPECT_THROW((void)m.train(make_rows(300, 64, 4), short_training()), zf::invalid_argument);
  EXPECT_EQ(m.history().epochs, 0);
  const auto got = m.train(rows, short_training());
  EXPECT_EQ(got.epoch_loss, want.epoch_loss);
  EXPECT_EQ(got.test_loss, want.test_loss);
}

TEST_F(TrainingPath, TheGpuReportsThePathItTook) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const zf::array narrow = zf::copy_to(make_rows(300, 64, 5), zf::cuda_device(0));
  vae m = vae::create(64, zf::cuda_device(0), 3);
  EXPECT_EQ(m.train(narrow, short_training()).path, training_path::fused_kernels);
}

// The MLP's GPU step takes widths whose activations for 32 rows fit its shared memory (a 256-sample
// beat row's included); the CPU every width.
TEST_F(TrainingPath, TheMlpsPathFollowsTheDeviceAndTheWidths) {
  const zf::model::mlp_shape seed{}, beat{256, 32, 32}, wide{1024, 64, 64};
  EXPECT_EQ(choose_mlp_training_path(zf::cpu_device, seed), training_path::fused_kernels);
  EXPECT_EQ(choose_mlp_training_path(zf::cpu_device, wide, training_path::fused_kernels), training_path::fused_kernels);
  const std::string widths =
      message_of<zf::invalid_argument>([&] { (void)choose_mlp_training_path(zf::cuda_device(0), wide); });
  if (!cuda_build) {
    EXPECT_NE(widths.find("needs a build of zeroflow with CUDA"), std::string::npos) << widths;
    return;
  }
  EXPECT_EQ(choose_mlp_training_path(zf::cuda_device(0), seed), training_path::fused_kernels);
  EXPECT_EQ(choose_mlp_training_path(zf::cuda_device(0), beat), training_path::fused_kernels);
  EXPECT_NE(widths.find("not 1024, 64 and 64: train a wider model on the CPU"), std::string::npos) << widths;
}

// On the host the MLP trains on its own kernels and says so, the same whatever was asked.
TEST_F(TrainingPath, TheHostMlpTrainsOnItsOwnKernels) {
  std::vector<float> values(200);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 17) / 16.0f;
  const zf::array rows = zf::empty({static_cast<std::int64_t>(values.size()), 1}, zf::float32, zf::cpu_device);
  std::copy(values.begin(), values.end(), rows.span<float>().begin());
  zf::model::mlp_train_options o;
  o.epochs = 3;
  auto asked = zf::model::mlp_autoencoder::create({}, zf::cpu_device, 4);
  auto reference = zf::model::mlp_autoencoder::create({}, zf::cpu_device, 4);
  o.path = training_path::fused_kernels;
  const auto a = asked.train(rows, o);
  o.path = training_path::automatic;
  const auto b = reference.train(rows, o);
  EXPECT_EQ(a.path, training_path::fused_kernels);
  EXPECT_EQ(b.path, training_path::fused_kernels);
  EXPECT_EQ(a.epoch_loss, b.epoch_loss);
}
