// The MLP autoencoder's own CPU engine (mlp_engine.hpp, cpu_mlp_step.hpp) beyond the notebook's full-batch loop
// (mlp_autoencoder_test.cpp checks that against LibTorch): batched trainings against LibTorch's
// steps on the same batches, the same bits whatever the thread count, and wider models than the
// GPU's fused step takes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/row_order.hpp"
#include "torch_oracle/mlp_autoencoder.hpp"
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

// A batched training against the notebook's loop in LibTorch (autograd, torch::optim::Adam) on
// the same batches (the engine's epoch_order): the same steps, losses and scores to float rounding.
TEST(CpuMlpEngine, BatchedTrainingTakesLibTorchsStepsOnTheSameBatches) {
  const std::int64_t n = 2000;
  const zf::array rows = series(n, 1);
  zm::mlp_train_options o;
  o.epochs = 6;   // still well above the loss floor, where relative differences stay meaningful
  o.batch = 128;  // 15 full batches and one of 80 rows
  o.seed = 5;
  auto own = zm::mlp_autoencoder::create({}, zf::cpu_device, 5);
  const auto a = own.train(rows, o);
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  const auto order = [&](int epoch) {
    std::vector<std::int64_t> out;
    zm::detail::epoch_order(all.data(), n, o.seed, epoch, 1, out);
    return out;
  };
  const torch::Tensor x = torch::from_blob(const_cast<void*>(rows.data()), {n, 1}, torch::kFloat).clone();
  const auto b = zf::torch_oracle::train_mlp(x, 5, o.epochs, {}, o.weight_decay, o.batch, order);
  ASSERT_EQ(a.epoch_loss.size(), b.epoch_loss.size());
  // 16 steps an epoch, Adam's and the gradients' rounding compounding over the steps.
  for (std::size_t e = 0; e < b.epoch_loss.size(); ++e)
    EXPECT_NEAR(a.epoch_loss[e], b.epoch_loss[e], (e < 2 ? 1e-5 : 1e-3) * b.epoch_loss[e]) << "epoch " << e;
  EXPECT_LT(a.epoch_loss.back(), 0.5 * a.epoch_loss.front());
  torch::NoGradGuard no_grad;
  const torch::Tensor want = (b.net->forward(x) - x).pow(2).mean(1);
  const auto got = values_of(own.score(rows));
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_NEAR(got[static_cast<std::size_t>(i)], want[i].item<float>(), 5e-2 * want[i].item<float>() + 1e-6) << i;
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
