// The training path (training_path.hpp): chosen in one place per model from the device, the
// model's widths and the caller's request, reported by vae::train and mlp_autoencoder::train, and
// never left behind by a call that failed. The
// choice itself needs no GPU; the GPU cases skip without one.
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

TEST_F(TrainingPath, AutomaticFollowsTheDeviceAndTheWidth) {
  // The CPU takes its own kernels at every width a LightVAE has.
  for (const std::int64_t width : {16, 64, 1024, 2048})
    EXPECT_EQ(choose_training_path(zf::cpu_device, width), training_path::fused_kernels) << width;
  // A GPU takes the fused kernels where they handle the width, else the graph of LibTorch's ops;
  // a build without CUDA trains eagerly whatever the device.
  EXPECT_EQ(choose_training_path(zf::cuda_device(0), 64),
            cuda_build ? training_path::fused_kernels : training_path::eager);
  EXPECT_EQ(choose_training_path(zf::cuda_device(0), 1024),
            cuda_build ? training_path::fused_kernels : training_path::eager);
  EXPECT_EQ(choose_training_path(zf::cuda_device(0), 2048),
            cuda_build ? training_path::cuda_graph : training_path::eager);
}

TEST_F(TrainingPath, ARequestIsKeptWhenPossibleAndRefusedOtherwise) {
  EXPECT_EQ(choose_training_path(zf::cpu_device, 64, training_path::eager), training_path::eager);
  EXPECT_EQ(choose_training_path(zf::cpu_device, 64, training_path::fused_kernels), training_path::fused_kernels);
  EXPECT_EQ(choose_training_path(zf::cuda_device(0), 64, training_path::eager), training_path::eager);
  const std::string refused = message_of<zf::invalid_argument>(
      [&] { (void)choose_training_path(zf::cpu_device, 64, training_path::cuda_graph); });
  EXPECT_NE(refused.find("cuda_graph"), std::string::npos) << refused;
  EXPECT_NE(refused.find(cuda_build ? "this model is on cpu" : "CUDA"), std::string::npos) << refused;
  if (!cuda_build) return;
  EXPECT_EQ(choose_training_path(zf::cuda_device(0), 64, training_path::cuda_graph), training_path::cuda_graph);
  EXPECT_EQ(choose_training_path(zf::cuda_device(0), 64, training_path::fused_kernels), training_path::fused_kernels);
  const std::string message = message_of<zf::invalid_argument>(
      [&] { (void)choose_training_path(zf::cuda_device(0), 2048, training_path::fused_kernels); });
  EXPECT_NE(message.find("2048"), std::string::npos) << message;
  EXPECT_TRUE(zf::model::training_path_possible(training_path::cuda_graph, zf::cuda_device(0), 2048));
  EXPECT_FALSE(zf::model::training_path_possible(training_path::automatic, zf::cuda_device(0), 64));
}

TEST_F(TrainingPath, NamesAreDistinct) {
  std::set<std::string> names;
  for (const training_path p :
       {training_path::automatic, training_path::fused_kernels, training_path::cuda_graph, training_path::eager})
    names.insert(zf::model::training_path_name(p));
  EXPECT_EQ(names.size(), 4U);
  EXPECT_EQ(std::string(zf::model::training_path_name(training_path::eager)), "eager");
}

TEST_F(TrainingPath, TheHostTrainsOnItsOwnKernelsAndSaysSo) {
  const zf::array rows = make_rows(300, 32, 2);
  vae m = vae::create(32, zf::cpu_device, 5);
  EXPECT_EQ(m.train(rows, short_training()).path, training_path::fused_kernels);
  EXPECT_EQ(m.train(rows, short_training(training_path::eager)).path, training_path::eager);
  EXPECT_THROW((void)m.train(rows, short_training(training_path::cuda_graph)), zf::invalid_argument);
  EXPECT_THROW((void)m.score(rows, 4096, training_path::cuda_graph), zf::invalid_argument);
  EXPECT_THROW((void)m.decode_grid(5, 2.0, training_path::cuda_graph), zf::invalid_argument);
}

// The fused swish and loss kernels are a GPU matter: asking for LibTorch's ops changes nothing on
// the host, bit for bit.
TEST_F(TrainingPath, FusedOpsLeaveTheHostUnchanged) {
  const zf::array rows = make_rows(300, 32, 3);
  zf::model::train_options with = short_training(training_path::eager), without = short_training(training_path::eager);
  without.fused_ops = false;
  vae a = vae::create(32, zf::cpu_device, 7);
  vae b = vae::create(32, zf::cpu_device, 7);
  const auto ra = a.train(rows, with);
  const auto rb = b.train(rows, without);
  EXPECT_EQ(ra.epoch_loss, rb.epoch_loss);
  EXPECT_EQ(ra.test_loss, rb.test_loss);
}

// A refused request is refused before anything happens: the model and later runs are as if it
// had never been made (no setting survives a failed call).
TEST_F(TrainingPath, ARefusedRequestLeavesNothingBehind) {
  const zf::array rows = make_rows(300, 32, 4);
  vae reference = vae::create(32, zf::cpu_device, 9);
  const auto want = reference.train(rows, short_training());
  vae m = vae::create(32, zf::cpu_device, 9);
  EXPECT_THROW((void)m.train(rows, short_training(training_path::cuda_graph)), zf::invalid_argument);
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
  EXPECT_EQ(m.train(narrow, short_training(training_path::cuda_graph)).path, training_path::cuda_graph);
  EXPECT_EQ(m.train(narrow, short_training(training_path::eager)).path, training_path::eager);
  const zf::array wide = zf::copy_to(make_rows(80, 2048, 6), zf::cuda_device(0));
  vae w = vae::create(2048, zf::cuda_device(0), 3);
  EXPECT_EQ(w.train(wide, short_training()).path, training_path::cuda_graph);
  EXPECT_THROW((void)w.train(wide, short_training(training_path::fused_kernels)), zf::invalid_argument);
}

// The MLP's fused step takes at most 16 features and 64 hidden and code units, and only trainings
// whose every epoch is one step on all rows run on a GPU path.
TEST_F(TrainingPath, TheMlpsAutomaticFollowsTheDeviceTheWidthsAndTheBatch) {
  const zf::model::mlp_shape seed{}, wide{1, 128, 32};
  // The CPU's own engine trains every MLP, full-batch or batched.
  EXPECT_EQ(choose_mlp_training_path(zf::cpu_device, seed, true), training_path::fused_kernels);
  EXPECT_EQ(choose_mlp_training_path(zf::cpu_device, wide, false), training_path::fused_kernels);
  EXPECT_EQ(choose_mlp_training_path(zf::cuda_device(0), seed, true),
            cuda_build ? training_path::fused_kernels : training_path::eager);
  EXPECT_EQ(choose_mlp_training_path(zf::cuda_device(0), wide, true),
            cuda_build ? training_path::cuda_graph : training_path::eager);
  EXPECT_EQ(choose_mlp_training_path(zf::cuda_device(0), seed, false), training_path::eager);
}

TEST_F(TrainingPath, TheMlpTakesARequestOnlyWhereItIsPossible) {
  const zf::model::mlp_shape seed{}, wide{1, 128, 32};
  for (const auto where : {zf::cpu_device, zf::cuda_device(0)})
    EXPECT_EQ(choose_mlp_training_path(where, seed, false, training_path::eager), training_path::eager);
  EXPECT_EQ(choose_mlp_training_path(zf::cpu_device, wide, false, training_path::fused_kernels),
            training_path::fused_kernels);
  const std::string message = message_of<zf::invalid_argument>(
      [&] { (void)choose_mlp_training_path(zf::cpu_device, seed, true, training_path::cuda_graph); });
  EXPECT_NE(message.find("cuda_graph"), std::string::npos) << message;
  if (!cuda_build) return;
  EXPECT_EQ(choose_mlp_training_path(zf::cuda_device(0), seed, true, training_path::cuda_graph),
            training_path::cuda_graph);
  const std::string batched = message_of<zf::invalid_argument>(
      [&] { (void)choose_mlp_training_path(zf::cuda_device(0), seed, false, training_path::cuda_graph); });
  EXPECT_NE(batched.find("one step on all rows"), std::string::npos) << batched;
  const std::string widths = message_of<zf::invalid_argument>(
      [&] { (void)choose_mlp_training_path(zf::cuda_device(0), wide, true, training_path::fused_kernels); });
  EXPECT_NE(widths.find("at most 16 features"), std::string::npos) << widths;
}

// On the host the MLP trains on its own kernels and says so; a path it cannot take is refused
// before any step, and the weights are those of a model never asked.
TEST_F(TrainingPath, TheHostMlpTrainsOnItsOwnKernelsAndARefusalLeavesNothingBehind) {
  std::vector<float> values(200);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 17) / 16.0f;
  const zf::array rows = zf::empty({static_cast<std::int64_t>(values.size()), 1}, zf::float32, zf::cpu_device);
  std::copy(values.begin(), values.end(), rows.span<float>().begin());
  zf::model::mlp_train_options o;
  o.epochs = 3;
  auto asked = zf::model::mlp_autoencoder::create({}, zf::cpu_device, 4);
  auto reference = zf::model::mlp_autoencoder::create({}, zf::cpu_device, 4);
  o.path = training_path::cuda_graph;
  EXPECT_THROW((void)asked.train(rows, o), zf::invalid_argument);
  o.path = training_path::automatic;
  const auto a = asked.train(rows, o);
  const auto b = reference.train(rows, o);
  EXPECT_EQ(a.path, training_path::fused_kernels);
  EXPECT_EQ(a.epoch_loss, b.epoch_loss);
  o.path = training_path::eager;
  EXPECT_EQ(asked.train(rows, o).path, training_path::eager);
}
