// zeroflow's own GPU training of the LightVAE (gpu_light_vae_trainer.hpp) against LibTorch: one
// to three Adam steps on the same batch and noise as LibTorch's autograd and torch::optim::Adam,
// then whole trainings (reproducible, learning, close to LibTorch's own training's losses). GPU tests
// skip without one.
//
// Tolerances: the fused step's gradients agree with autograd's to 1e-3 of each tensor's largest
// (fused_step_cuda_test.cpp); Adam's first update is lr·g/(|g| + ε) ≈ lr·sign(g), so parameters
// are compared where the gradient is clearly away from zero (a sign there cannot flip): to 2 % of
// the learning rate after three steps.
#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/optim/adam.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/adam_oracle.hpp"
#include "model/cpu_light_vae_trainer.hpp"
#include "model/gpu_light_vae_trainer.hpp"
#include "model/light_vae_init.hpp"
#include "model/model_test_util.hpp"
#include "torch_oracle/fused_step_on_tensors.hpp"
#include "torch_oracle/light_vae.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/model/vae.hpp"

namespace zf = zeroflow;
namespace zmd = zeroflow::model::detail;

namespace {

bool have_gpu() { return zmd::fused_step_supported(64) && zf::cuda_available() && torch::cuda::is_available(); }

torch::Tensor packed(zmd::light_vae& net) {
  auto named = net->named_parameters();
  std::vector<torch::Tensor> parts;
  for (const char* name : zmd::light_vae_slot_names) parts.push_back(named[name].detach().reshape({-1}));
  return torch::cat(parts).contiguous();
}

}  // namespace

TEST(GpuLightVaeTrainer, StepsMatchAutogradAndLibTorchsAdam) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const std::int64_t width = 64, batch = 300, n = 500;
  const auto cuda = torch::TensorOptions().device(torch::kCUDA, 0);
  const zf::array host = zf::model_test::make_rows(static_cast<int>(n), static_cast<int>(width), 3, {1, 7, 20});
  const torch::Tensor data = torch::from_blob(host.data(), {n, width}, torch::kFloat).to(cuda.dtype(torch::kFloat));
  torch::manual_seed(4);
  const torch::Tensor rows = torch::randint(0, n, {batch}, cuda.dtype(torch::kLong));
  const torch::Tensor eps = torch::randn({batch, 2}, cuda.dtype(torch::kFloat));

  torch::manual_seed(11);
  zmd::light_vae net(width);
  net->to(torch::Device(torch::kCUDA, 0));
  torch::Tensor own = packed(net);
  zmd::gpu_light_vae_trainer trainer(own.data_ptr<float>(), width, data.data_ptr<float>(), n, 1e-3, zf::stream_view{});

  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
  torch::Tensor first_grads;
  for (int step = 0; step < 3; ++step) {
    adam.zero_grad();
    const torch::Tensor x = data.index_select(0, rows);
    const zmd::encoding e = net->encode(x);
    const torch::Tensor recon = net->decode(e.mu + eps * torch::exp(0.5 * e.logvar));
    const torch::Tensor loss = zmd::vae_loss(recon, x, e.mu, e.logvar);
    loss.backward();
    if (step == 0) {
      std::vector<torch::Tensor> g;
      auto named = net->named_parameters();
      for (const char* name : zmd::light_vae_slot_names) g.push_back(named[name].grad().detach().reshape({-1}).clone());
      first_grads = torch::cat(g);
    }
    adam.step();
    const double got = trainer.step(rows.data_ptr<std::int64_t>(), eps.data_ptr<float>(), batch);
    EXPECT_NEAR(got, loss.item<double>(), 1e-4 * std::abs(loss.item<double>())) << "step " << step;
  }
  zf::model_test::expect_weights_follow_adam(own, packed(net), first_grads, width, 1e-3);
}

TEST(GpuLightVaeTrainer, TrainingIsReproducibleAndLearns) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const std::int64_t width = 64, n = 2000;
  const auto cuda = torch::TensorOptions().device(torch::kCUDA, 0);
  const zf::array host = zf::model_test::make_rows(static_cast<int>(n), static_cast<int>(width), 8, {1, 7, 20});
  const torch::Tensor data = torch::from_blob(host.data(), {n, width}, torch::kFloat).to(cuda.dtype(torch::kFloat));
  const torch::Tensor train = torch::arange(0, 1500, cuda.dtype(torch::kLong));
  const auto init = zmd::light_vae_initial_parameters(width, 42);
  auto run = [&](std::vector<double>* seen) {
    torch::Tensor p = torch::tensor(init, cuda.dtype(torch::kFloat));
    zmd::gpu_light_vae_trainer trainer(p.data_ptr<float>(), width, data.data_ptr<float>(), n, 1e-3, zf::stream_view{});
    zmd::trainer_options o;
    o.epochs = 6;
    o.batch = 256;  // 1500 = 5 · 256 + 220: a full and a tail graph
    o.seed = 5;
    if (seen != nullptr) o.on_epoch = [seen](int, double loss) { seen->push_back(loss); };
    const auto report = trainer.train(train.data_ptr<std::int64_t>(), 1500, o);
    EXPECT_EQ(report.graphs, 2);
    EXPECT_EQ(report.replays, 6 * 6);
    const double test = trainer.mean_loss(train.data_ptr<std::int64_t>(), 100, 5);
    return std::make_tuple(report, p.cpu(), test);
  };
  std::vector<double> seen;
  const auto [a, pa, ta] = run(&seen);
  const auto [b, pb, tb] = run(nullptr);
  EXPECT_EQ(a.epoch_loss, b.epoch_loss);
  EXPECT_EQ(seen, a.epoch_loss);
  EXPECT_EQ(b.host_syncs, 1);
  EXPECT_TRUE(torch::equal(pa, pb));
  EXPECT_EQ(ta, tb);
  EXPECT_LT(a.epoch_loss.back(), 0.8 * a.epoch_loss.front());
  EXPECT_TRUE(std::isfinite(ta));
}

// The CPU trainer (cpu_light_vae_trainer.hpp) takes the GPU trainer's steps: the same shuffles,
// batches and noise, so every epoch's loss, the test loss and the weights agree to float rounding
// (the two devices sum in other orders; Adam's steps of ≈ lr·sign(g) keep the difference small).
TEST(GpuLightVaeTrainer, TheCpuTrainerTakesTheSameSteps) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const std::int64_t width = 64, n = 2000;
  const auto cuda = torch::TensorOptions().device(torch::kCUDA, 0);
  const zf::array host = zf::model_test::make_rows(static_cast<int>(n), static_cast<int>(width), 8, {1, 7, 20});
  const torch::Tensor data = torch::from_blob(host.data(), {n, width}, torch::kFloat).to(cuda.dtype(torch::kFloat));
  const torch::Tensor train = torch::arange(0, 1500, torch::kLong);
  const torch::Tensor train_gpu = train.to(cuda.dtype(torch::kLong));
  const auto init = zmd::light_vae_initial_parameters(width, 42);
  zmd::trainer_options o;
  o.epochs = 6;
  o.batch = 256;
  o.seed = 5;

  torch::Tensor on_gpu = torch::tensor(init, cuda.dtype(torch::kFloat));
  zmd::gpu_light_vae_trainer gpu(on_gpu.data_ptr<float>(), width, data.data_ptr<float>(), n, 1e-3, zf::stream_view{});
  const auto g = gpu.train(train_gpu.data_ptr<std::int64_t>(), 1500, o).epoch_loss;
  const double g_test = gpu.mean_loss(train_gpu.data_ptr<std::int64_t>(), 100, 5);

  std::vector<float> on_cpu = init;
  zmd::cpu_light_vae_trainer cpu(on_cpu.data(), width, static_cast<const float*>(host.data()), n, 1e-3, 2);
  const auto c = cpu.train(train.data_ptr<std::int64_t>(), 1500, o).epoch_loss;
  const double c_test = cpu.mean_loss(train.data_ptr<std::int64_t>(), 100, 5);

  ASSERT_EQ(g.size(), c.size());
  for (std::size_t e = 0; e < g.size(); ++e) EXPECT_NEAR(c[e], g[e], 1e-4 * g[e]) << "epoch " << e;
  EXPECT_NEAR(c_test, g_test, 1e-3 * g_test);
  const torch::Tensor gw = on_gpu.cpu();
  const torch::Tensor cw = torch::from_blob(on_cpu.data(), {static_cast<std::int64_t>(on_cpu.size())}, torch::kFloat);
  EXPECT_LE((gw - cw).abs().max().item<double>(), 36 * 1e-3 * 0.05);  // 5 % of the largest possible drift
}

// vae::train on the GPU runs on these kernels: its losses are close to LibTorch's own training of
// the oracle on the same training split (other random draws, so not equal), and to the CPU's.
TEST(GpuLightVaeTrainer, VaeTrainLandsWhereLibTorchLands) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const zf::array rows = zf::model_test::make_rows(3000, 64, 21, {1, 7, 20});
  zf::model::train_options o;
  o.epochs = 8;
  o.batch = 256;
  zf::model::vae m = zf::model::vae::create(64, zf::cuda_device(0), 42);
  const auto r = m.train(rows, o);
  EXPECT_EQ(r.path, zf::model::training_path::fused_kernels);
  ASSERT_TRUE(std::isfinite(r.test_loss));
  EXPECT_EQ(m.score(rows).score.shape(0), 3000);
  const torch::Tensor all = torch::from_blob(const_cast<void*>(rows.data()), {3000, 64}, torch::kFloat);
  const zf::array split = zf::copy_to(r.train_index, zf::cpu_device);
  const torch::Tensor index = torch::from_blob(const_cast<void*>(split.data()), {split.shape(0)}, torch::kLong);
  const torch::Tensor train = all.index_select(0, index).to(torch::Device(torch::kCUDA, 0));
  const double libtorch = zmd::train_light_vae(train, 42, o.epochs, o.batch).back();
  zf::model::vae cpu = zf::model::vae::create(64, zf::cpu_device, 42);
  const double on_cpu = cpu.train(rows, o).epoch_loss.back();
  EXPECT_NEAR(r.epoch_loss.back(), libtorch, 0.1 * libtorch);
  EXPECT_NEAR(r.epoch_loss.back(), on_cpu, 1e-3 * on_cpu);  // the same steps on both devices
}

#endif  // ZEROFLOW_HAS_CUDA
