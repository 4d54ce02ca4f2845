// zeroflow's own CPU kernels of the LightVAE (cpu_vae_kernels.hpp, cpu_light_vae_trainer.hpp)
// against LibTorch as the oracle: a step's loss and gradients against autograd, three Adam steps
// against torch::optim::Adam, scores and decoded beats against the LibTorch module, a whole training
// against LibTorch's; then the
// kernels' own promises (the same bits whatever the thread count, reproducible, learning) and
// vae::train on the CPU taking them.
//
// Tolerances: both sides compute in float with other summation orders; the gradients agree to
// 1e-4 of each tensor's largest. Adam's first update is lr·g/(|g| + ε) ≈ lr·sign(g), so weights
// are compared where the gradient is clearly away from zero (a sign there cannot flip).
#include "model/cpu_light_vae_trainer.hpp"

#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/adam_oracle.hpp"
#include "model/cpu_vae_isa.hpp"
#include "model/light_vae_init.hpp"
#include "model/model_test_util.hpp"
#include "torch_oracle/light_vae.hpp"
#include "zeroflow/model/vae.hpp"

namespace zf = zeroflow;
namespace zmd = zeroflow::model::detail;

namespace {

torch::Tensor packed(zmd::light_vae& net, bool grads = false) {
  auto named = net->named_parameters();
  std::vector<torch::Tensor> parts;
  for (const char* name : zmd::light_vae_slot_names) {
    const torch::Tensor& p = named[name];
    parts.push_back((grads ? p.grad() : p).detach().reshape({-1}));
  }
  return torch::cat(parts).contiguous().clone();
}

struct batch_case {
  std::int64_t width = 64, batch = 300, n = 500;
  torch::Tensor data, rows, eps;
  batch_case() {
    const zf::array host = zf::model_test::make_rows(static_cast<int>(n), static_cast<int>(width), 3, {1, 7, 20});
    data = torch::from_blob(host.data(), {n, width}, torch::kFloat).clone();
    torch::manual_seed(4);
    rows = torch::randint(0, n, {batch}, torch::kLong);
    eps = torch::randn({batch, 2}, torch::kFloat);
  }
  /// LibTorch's loss of the batch (the seed's) on `net`, gradients left in its parameters.
  torch::Tensor libtorch_loss(zmd::light_vae& net) const {
    const torch::Tensor x = data.index_select(0, rows);
    const zmd::encoding e = net->encode(x);
    const torch::Tensor recon = net->decode(e.mu + eps * torch::exp(0.5 * e.logvar));
    return zmd::vae_loss(recon, x, e.mu, e.logvar);
  }
  zmd::cpu_vae::step_args step(const torch::Tensor& params, std::vector<float>& grads) const {
    grads.assign(static_cast<std::size_t>(params.numel()), -1.0F);
    return {.params = params.data_ptr<float>(),
            .grads = grads.data(),
            .data = data.data_ptr<float>(),
            .width = width,
            .rows = rows.data_ptr<std::int64_t>(),
            .batch = batch,
            .eps = eps.data_ptr<float>()};
  }
};

}  // namespace

TEST(CpuVaeKernels, StepGradientsMatchAutograd) {
  const batch_case c;
  torch::manual_seed(11);
  zmd::light_vae net(c.width);
  const torch::Tensor params = packed(net);
  const torch::Tensor loss = c.libtorch_loss(net);
  loss.backward();
  const torch::Tensor want = packed(net, true);

  std::vector<float> grads;
  const double got = zmd::cpu_vae::train_step(c.step(params, grads), 2);
  EXPECT_NEAR(got, loss.item<double>(), 1e-5 * std::abs(loss.item<double>()));
  const torch::Tensor own = torch::from_blob(grads.data(), {static_cast<std::int64_t>(grads.size())}, torch::kFloat);
  const auto offsets = zmd::light_vae_slot_offsets(c.width);
  for (int s = 0; s < zmd::slot_count; ++s) {
    const auto b = offsets[static_cast<std::size_t>(s)], e = offsets[static_cast<std::size_t>(s) + 1];
    const double scale = want.slice(0, b, e).abs().max().item<double>();
    const double diff = (own.slice(0, b, e) - want.slice(0, b, e)).abs().max().item<double>();
    EXPECT_LE(diff, 1e-4 * scale + 1e-7) << zmd::light_vae_slot_names[static_cast<std::size_t>(s)];
  }
}

TEST(CpuVaeKernels, AStepIsTheSameBitsWhateverTheThreadCount) {
  const batch_case c;
  const auto init = zmd::light_vae_initial_parameters(c.width, 42);
  const torch::Tensor params = torch::tensor(init, torch::kFloat);
  std::vector<float> one, three;
  const double a = zmd::cpu_vae::train_step(c.step(params, one), 1);
  const double b = zmd::cpu_vae::train_step(c.step(params, three), 3);
  EXPECT_EQ(a, b);
  EXPECT_EQ(one, three);
}

// The kernels run as the build for the best instruction set this CPU has (cpu_vae_dispatch.cpp);
// the baseline build, which other CPUs run, agrees with it to float rounding.
TEST(CpuVaeKernels, TheBaselineBuildAgreesWithTheOneThisCpuRuns) {
  const batch_case c;
  const auto init = zmd::light_vae_initial_parameters(c.width, 42);
  const torch::Tensor params = torch::tensor(init, torch::kFloat);
  std::vector<float> chosen, baseline;
  const double a = zmd::cpu_vae::train_step(c.step(params, chosen), 2);
  const double b = zmd::cpu_vae::baseline::train_step(c.step(params, baseline), 2);
  EXPECT_NEAR(a, b, 1e-5 * std::abs(b));
  float largest = 0;
  for (const float g : baseline) largest = std::max(largest, std::abs(g));
  for (std::size_t i = 0; i < chosen.size(); ++i) ASSERT_NEAR(chosen[i], baseline[i], 1e-4F * largest) << i;
  std::vector<float> s1(static_cast<std::size_t>(c.n)), s2(s1.size()), m1(2 * s1.size()), m2(m1.size());
  zmd::cpu_vae::score(params.data_ptr<float>(), c.data.data_ptr<float>(), c.width, c.n, s1.data(), m1.data(), 2);
  zmd::cpu_vae::baseline::score(params.data_ptr<float>(), c.data.data_ptr<float>(), c.width, c.n, s2.data(), m2.data(),
                                2);
  for (std::size_t i = 0; i < s1.size(); ++i) ASSERT_NEAR(s1[i], s2[i], 1e-5F * s2[i] + 1e-7F) << i;
  EXPECT_NE(std::string(zmd::cpu_vae::instruction_set()), "");
}

TEST(CpuLightVaeTrainer, StepsMatchLibTorchsAdam) {
  const batch_case c;
  torch::manual_seed(11);
  zmd::light_vae net(c.width);
  torch::Tensor own = packed(net);
  zmd::cpu_light_vae_trainer trainer(own.data_ptr<float>(), c.width, c.data.data_ptr<float>(), c.n, 1e-3, 2);
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
  torch::Tensor first_grads;
  for (int step = 0; step < 3; ++step) {
    adam.zero_grad();
    const torch::Tensor loss = c.libtorch_loss(net);
    loss.backward();
    if (step == 0) first_grads = packed(net, true);
    adam.step();
    const double got = trainer.step(c.rows.data_ptr<std::int64_t>(), c.eps.data_ptr<float>(), c.batch);
    EXPECT_NEAR(got, loss.item<double>(), 1e-4 * std::abs(loss.item<double>())) << "step " << step;
  }
  zf::model_test::expect_weights_follow_adam(own, packed(net), first_grads, c.width, 1e-3);
}

TEST(CpuLightVaeTrainer, TrainingIsReproducibleAndLearns) {
  const std::int64_t width = 64, n = 2000;
  const zf::array host = zf::model_test::make_rows(static_cast<int>(n), static_cast<int>(width), 8, {1, 7, 20});
  std::vector<std::int64_t> train(1500);
  for (std::size_t i = 0; i < train.size(); ++i) train[i] = static_cast<std::int64_t>(i);
  const auto init = zmd::light_vae_initial_parameters(width, 42);
  auto run = [&](int threads, std::vector<double>* seen) {
    std::vector<float> p = init;
    zmd::cpu_light_vae_trainer trainer(p.data(), width, static_cast<const float*>(host.data()), n, 1e-3, threads);
    zmd::trainer_options o;
    o.epochs = 6;
    o.batch = 256;  // 1500 = 5 · 256 + 220: full batches and a smaller last one
    o.seed = 5;
    if (seen != nullptr) o.on_epoch = [seen](int, double loss) { seen->push_back(loss); };
    const auto report = trainer.train(train.data(), 1500, o);
    EXPECT_EQ(report.replays, 6 * 6);
    EXPECT_EQ(trainer.optimiser().adam_step, 36.0F);
    const double test = trainer.mean_loss(train.data(), 100, 5);
    return std::make_tuple(report.epoch_loss, p, test);
  };
  std::vector<double> seen;
  const auto [a, pa, ta] = run(2, &seen);
  const auto [b, pb, tb] = run(1, nullptr);
  EXPECT_EQ(a, b);
  EXPECT_EQ(seen, a);
  EXPECT_EQ(pa, pb);
  EXPECT_EQ(ta, tb);
  EXPECT_LT(a.back(), 0.8 * a.front());
  EXPECT_TRUE(std::isfinite(ta));
}

// A training resumed from the optimiser state after epoch 3 ends where an uninterrupted one does.
TEST(CpuLightVaeTrainer, ResumingTakesTheSameSteps) {
  const std::int64_t width = 32, n = 700;
  const zf::array host = zf::model_test::make_rows(static_cast<int>(n), static_cast<int>(width), 9);
  std::vector<std::int64_t> train(600);
  for (std::size_t i = 0; i < train.size(); ++i) train[i] = static_cast<std::int64_t>(i);
  const auto init = zmd::light_vae_initial_parameters(width, 7);
  zmd::trainer_options o;
  o.epochs = 5;
  o.batch = 128;
  o.drop_last = true;
  std::vector<float> whole = init;
  zmd::cpu_light_vae_trainer straight(whole.data(), width, static_cast<const float*>(host.data()), n, 1e-3, 2);
  const auto all = straight.train(train.data(), 600, o).epoch_loss;

  std::vector<float> part = init;
  zmd::cpu_light_vae_trainer first(part.data(), width, static_cast<const float*>(host.data()), n, 1e-3, 2);
  o.epochs = 3;
  (void)first.train(train.data(), 600, o);
  const zmd::optimiser_state saved = first.optimiser();
  zmd::cpu_light_vae_trainer second(part.data(), width, static_cast<const float*>(host.data()), n, 1e-3, 1);
  o.epochs = 5;
  o.first_epoch = 3;
  o.resume_from = &saved;
  const auto rest = second.train(train.data(), 600, o).epoch_loss;
  ASSERT_EQ(rest.size(), 2U);
  EXPECT_EQ(rest[0], all[3]);
  EXPECT_EQ(rest[1], all[4]);
  EXPECT_EQ(part, whole);
}

// Scoring and decoding on the own kernels against the LibTorch module's forward passes on the
// same weights.
TEST(CpuVaeKernels, ScoresAndDecodedBeatsMatchTheLibTorchModule) {
  const std::int64_t n = 700, width = 128;
  const zf::array rows = zf::model_test::make_rows(static_cast<int>(n), static_cast<int>(width), 12, {3, 50});
  torch::manual_seed(3);
  zmd::light_vae net(width);
  {
    // Weights away from the initial ones, so that no layer is near its default.
    torch::NoGradGuard no_grad;
    for (auto& p : net->parameters()) p.add_(0.05 * torch::randn_like(p));
  }
  const torch::Tensor params = packed(net);
  std::vector<float> score(static_cast<std::size_t>(n)), mu(static_cast<std::size_t>(2 * n));
  zmd::cpu_vae::score(params.data_ptr<float>(), static_cast<const float*>(rows.data()), width, n, score.data(),
                      mu.data(), 2);
  torch::NoGradGuard no_grad;
  const torch::Tensor x = torch::from_blob(const_cast<void*>(rows.data()), {n, width}, torch::kFloat);
  const zmd::encoding e = net->encode(x);
  const torch::Tensor want = (net->decode(e.mu) - x).pow(2).mean(1);
  for (std::int64_t i = 0; i < n; ++i) {
    const float w = want[i].item<float>();
    EXPECT_NEAR(score[static_cast<std::size_t>(i)], w, 1e-5F * std::abs(w) + 1e-7F) << i;
    for (int d = 0; d < 2; ++d) EXPECT_NEAR(mu[static_cast<std::size_t>(2 * i + d)], e.mu[i][d].item<float>(), 1e-5F);
  }
  const torch::Tensor latents = torch::randn({25, 2});
  std::vector<float> decoded(static_cast<std::size_t>(25 * width));
  zmd::cpu_vae::decode(params.data_ptr<float>(), latents.data_ptr<float>(), width, 25, decoded.data(), 2);
  const torch::Tensor d = net->decode(latents).contiguous();
  for (std::int64_t i = 0; i < 25 * width; ++i)
    EXPECT_NEAR(decoded[static_cast<std::size_t>(i)], d.view({-1})[i].item<float>(), 1e-5F) << i;
}

// vae::train on the CPU takes the own kernels by default: the same bits with 1 and 2 threads,
// and a loss close to LibTorch's own training's on the same rows and split (other random draws).
TEST(CpuLightVaeTrainer, VaeTrainOnTheCpuTakesTheOwnKernels) {
  const zf::array rows = zf::model_test::make_rows(3000, 64, 21, {1, 7, 20});
  zf::model::train_options o;
  o.epochs = 8;
  o.batch = 256;
  const int threads = zf::model::cpu_threads();
  std::vector<zf::model::train_result> results;
  std::vector<std::vector<float>> scores;
  for (const int t : {1, 2}) {
    zf::model::set_cpu_threads(t);
    zf::model::vae m = zf::model::vae::create(64, zf::cpu_device, 42);
    results.push_back(m.train(rows, o));
    const zf::array s = m.score(rows).score;
    scores.emplace_back(s.span<float>().begin(), s.span<float>().end());
  }
  zf::model::set_cpu_threads(threads);
  EXPECT_EQ(results[0].path, zf::model::training_path::fused_kernels);
  EXPECT_EQ(results[0].epoch_loss, results[1].epoch_loss);
  EXPECT_EQ(results[0].test_loss, results[1].test_loss);
  EXPECT_EQ(scores[0], scores[1]);

  // LibTorch's own training of the oracle on the same training split (other random draws).
  const torch::Tensor all = torch::from_blob(const_cast<void*>(rows.data()), {3000, 64}, torch::kFloat);
  const torch::Tensor index = torch::from_blob(const_cast<void*>(results[0].train_index.data()),
                                               {results[0].train_index.shape(0)}, torch::kLong);
  const auto reference = zmd::train_light_vae(all.index_select(0, index), 42, o.epochs, o.batch);
  EXPECT_NEAR(results[0].epoch_loss.back(), reference.back(), 0.1 * reference.back());
}
