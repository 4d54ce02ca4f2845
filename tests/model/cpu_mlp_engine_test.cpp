// The MLP autoencoder's own CPU engine (cpu_mlp_engine.hpp) beyond the notebook's full-batch loop
// (mlp_autoencoder_test.cpp checks that against LibTorch): batched trainings, the same bits
// whatever the thread count, wider models than the GPU's fused step takes, and the eager LibTorch
// path still reachable and landing where the own engine lands.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#include "zeroflow/model/vae.hpp"

namespace zf = zeroflow;
namespace zm = zeroflow::model;

namespace {

zf::array series(std::int64_t n, std::int64_t features) {
  zf::array a = zf::empty({n, features}, zf::float32);
  auto v = a.span<float>();
  for (std::int64_t i = 0; i < n * features; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<float>(0.5 + 0.3 * std::sin(0.07 * static_cast<double>(i)) +
                                                        0.05 * std::cos(1.3 * static_cast<double>(i)));
  return a;
}

std::vector<float> values_of(const zf::array& a) {
  const auto s = a.span<const float>();
  return {s.begin(), s.end()};
}

}  // namespace

TEST(CpuMlpEngine, BatchedTrainingIsTheSameBitsWhateverTheThreadCountAndLearns) {
  const zf::array rows = series(3000, 2);
  zm::mlp_train_options o;
  o.epochs = 8;
  o.batch = 256;  // 3000 = 11 · 256 + 184
  const int threads = zm::cpu_threads();
  std::vector<std::vector<double>> losses;
  std::vector<std::vector<float>> scores;
  for (const int t : {1, 2}) {
    zm::set_cpu_threads(t);
    auto m = zm::mlp_autoencoder::create({2, 32, 16}, zf::cpu_device, 3);
    const auto r = m.train(rows, o);
    EXPECT_EQ(r.path, zm::training_path::fused_kernels);
    losses.push_back(r.epoch_loss);
    scores.push_back(values_of(m.score(rows)));
  }
  zm::set_cpu_threads(threads);
  EXPECT_EQ(losses[0], losses[1]);
  EXPECT_EQ(scores[0], scores[1]);
  EXPECT_LT(losses[0].back(), 0.5 * losses[0].front());
}

// A batched training visits the rows in another order than LibTorch's randperm, so the losses are
// not equal, but the two land in the same place.
TEST(CpuMlpEngine, BatchedTrainingLandsWhereLibTorchsEagerStepsLand) {
  const zf::array rows = series(2000, 1);
  zm::mlp_train_options o;
  o.epochs = 15;
  o.batch = 128;
  auto own = zm::mlp_autoencoder::create({}, zf::cpu_device, 5);
  auto eager = zm::mlp_autoencoder::create({}, zf::cpu_device, 5);
  const double a = own.train(rows, o).epoch_loss.back();
  o.path = zm::training_path::eager;
  const auto b = eager.train(rows, o);
  EXPECT_EQ(b.path, zm::training_path::eager);
  EXPECT_NEAR(a, b.epoch_loss.back(), 0.25 * b.epoch_loss.back());
}

// Widths beyond the GPU's fused step (hidden 128) train on the CPU's own engine too.
TEST(CpuMlpEngine, WideModelsTrainOnTheOwnEngine) {
  const zf::array rows = series(500, 4);
  auto m = zm::mlp_autoencoder::create({4, 128, 64}, zf::cpu_device, 9);
  zm::mlp_train_options o;
  o.epochs = 20;
  const auto r = m.train(rows, o);
  EXPECT_EQ(r.path, zm::training_path::fused_kernels);
  EXPECT_LT(r.epoch_loss.back(), r.epoch_loss.front());
  const auto back = zm::mlp_autoencoder::from_bytes(m.to_bytes(), zf::cpu_device);
  EXPECT_EQ(values_of(back.score(rows)), values_of(m.score(rows)));
}
