// The fused LightVAE kernels (model/fused_vae_step.hpp, run on the oracle's tensors through
// torch_oracle/fused_step_on_tensors.hpp) against LibTorch's autograd on the same batch and the
// same noise: every parameter's gradient and the loss. GPU tests skip without one.
//
// Tolerance: both sides compute in float32 with different summation orders (cuDNN's convolutions
// and LibTorch's reductions against per-warp sums); gradients are sums of up to batch × width
// products, so each parameter tensor is compared relative to its largest gradient (1e-3), the
// loss relative to itself (1e-4: autograd's loss is a float32 sum of up to 1024 float32 means;
// measured differences on an H200 were 0.3–3e-5).
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/model_test_util.hpp"
#include "torch_oracle/fused_step_on_tensors.hpp"
#include "torch_oracle/light_vae.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/vae.hpp"

namespace zf = zeroflow;
namespace zmd = zeroflow::model::detail;

namespace {

bool have_gpu() { return zmd::fused_step_supported(64) && zf::cuda_available() && torch::cuda::is_available(); }

struct batch_case {
  torch::Tensor data, rows, eps;
};

// Smooth beats and noise at a few amplitudes, random rows (repeats allowed), standard normal noise.
batch_case make_case(std::int64_t width, std::int64_t batch, std::uint64_t seed) {
  const std::int64_t n = std::max<std::int64_t>(batch, 50);
  const zf::array host = zf::model_test::make_rows(static_cast<int>(n), static_cast<int>(width), seed, {1, 7, 20});
  const auto cuda = torch::TensorOptions().device(torch::kCUDA, 0);
  torch::manual_seed(seed);
  batch_case c;
  c.data = torch::from_blob(host.data(), {n, width}, torch::kFloat).to(cuda.dtype(torch::kFloat)) *
           torch::linspace(0.5, 2.0, n, cuda.dtype(torch::kFloat)).unsqueeze(1);
  c.data = c.data.contiguous();
  c.rows = torch::randint(0, n, {batch}, cuda.dtype(torch::kLong));
  c.eps = torch::randn({batch, 2}, cuda.dtype(torch::kFloat));
  return c;
}

zmd::light_vae make_net(std::int64_t width, std::uint64_t seed) {
  torch::manual_seed(seed);
  zmd::light_vae net(width);
  net->to(torch::Device(torch::kCUDA, 0));
  torch::NoGradGuard no_grad;
  net->named_parameters()["sigma.alpha"].fill_(1.3);  // α ≠ 1, so its gradient terms are exercised
  return net;
}

// Autograd's gradients and loss for the batch with the given noise, using LibTorch's own ops.
std::pair<std::map<std::string, torch::Tensor>, double> autograd_reference(zmd::light_vae& net, const batch_case& c) {
  torch::Tensor loss;
  {
    for (auto& p : net->parameters()) p.mutable_grad().reset();
    const torch::Tensor x = c.data.index_select(0, c.rows);
    const zmd::encoding e = net->encode(x);
    const torch::Tensor z = e.mu + c.eps * torch::exp(0.5 * e.logvar);
    const torch::Tensor recon = net->decode(z);
    loss = zmd::vae_loss(recon, x, e.mu, e.logvar);
    loss.backward();
  }
  std::map<std::string, torch::Tensor> grads;
  for (const auto& item : net->named_parameters()) {
    grads[item.key()] = item.value().grad().detach().clone();
    item.value().mutable_grad().reset();
  }
  return {grads, loss.item<double>()};
}

std::map<std::string, torch::Tensor> fused_gradients(zmd::light_vae& net, const batch_case& c, double& loss) {
  zmd::fused_step step(net, {c.rows.size(0)});
  // Poison: every gradient element must be written.
  for (auto& p : net->parameters()) p.mutable_grad() = torch::full_like(p, std::nan(""));
  torch::Tensor total = torch::full({}, 5.0, c.data.options().dtype(torch::kDouble));
  step.run(c.data, c.rows, c.eps, total);
  loss = total.item<double>() - 5.0;
  std::map<std::string, torch::Tensor> grads;
  for (const auto& item : net->named_parameters()) grads[item.key()] = item.value().grad().detach().clone();
  return grads;
}

}  // namespace

TEST(FusedStep, SupportedWidths) {
  if (!zmd::fused_step_supported(64)) GTEST_SKIP() << "not a CUDA build";
  for (std::int64_t w : {16, 32, 256, 1024}) EXPECT_TRUE(zmd::fused_step_supported(w)) << w;
  for (std::int64_t w : {8, 48, 2048}) EXPECT_FALSE(zmd::fused_step_supported(w)) << w;
}

TEST(FusedStep, GradientsAndLossMatchAutograd) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  struct shape {
    std::int64_t width, batch;
  };
  for (const shape s : {shape{16, 1}, shape{64, 37}, shape{256, 1024}, shape{256, 333}, shape{1024, 64}}) {
    SCOPED_TRACE("width " + std::to_string(s.width) + ", batch " + std::to_string(s.batch));
    zmd::light_vae net = make_net(s.width, 11);
    const batch_case c = make_case(s.width, s.batch, 5 + static_cast<std::uint64_t>(s.batch));
    const auto [want, want_loss] = autograd_reference(net, c);
    double got_loss = 0;
    const auto got = fused_gradients(net, c, got_loss);
    EXPECT_NEAR(got_loss, want_loss, 1e-4 * std::abs(want_loss));
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [name, w] : want) {
      const torch::Tensor g = got.at(name);
      ASSERT_EQ(g.sizes(), w.sizes()) << name;
      ASSERT_TRUE(torch::isfinite(g).all().item<bool>()) << name << " has unwritten or non-finite entries";
      const double scale = w.abs().max().item<double>();
      const double diff = (g - w).abs().max().item<double>();
      EXPECT_LE(diff, 1e-3 * scale + 1e-7) << name << ": largest gradient " << scale;
    }
  }
}

TEST(FusedStep, IsDeterministic) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  zmd::light_vae net = make_net(256, 3);
  const batch_case c = make_case(256, 700, 9);
  double l1 = 0, l2 = 0;
  const auto g1 = fused_gradients(net, c, l1);
  const auto g2 = fused_gradients(net, c, l2);
  EXPECT_EQ(l1, l2);
  for (const auto& [name, g] : g1) EXPECT_TRUE(torch::equal(g, g2.at(name))) << name;
}

TEST(FusedStep, RejectsWhatItWasNotPreparedFor) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  zmd::light_vae net = make_net(64, 1);
  const batch_case c = make_case(64, 32, 2);
  zmd::fused_step step(net, {32});
  torch::Tensor total = torch::zeros({}, c.data.options().dtype(torch::kDouble));
  EXPECT_THROW(step.run(c.data, c.rows.narrow(0, 0, 16), c.eps.narrow(0, 0, 16), total), zf::invalid_argument);
  EXPECT_THROW(step.run(c.data.to(torch::kDouble), c.rows, c.eps, total), zf::invalid_argument);
  EXPECT_THROW(step.run(c.data, c.rows.to(torch::kInt), c.eps, total), zf::invalid_argument);
  torch::Tensor float_total = torch::zeros({}, c.data.options());
  EXPECT_THROW(step.run(c.data, c.rows, c.eps, float_total), zf::invalid_argument);
  zmd::light_vae wide = make_net(2048, 1);
  EXPECT_THROW({ zmd::fused_step too_wide(wide, {32}); }, zf::invalid_argument);
}

// Scoring: the fused forward (z = μ) against LibTorch's eager forward of the same network on
// the same rows. cuDNN may run LibTorch's convolutions in TF32 (10-bit mantissa), so μ is compared
// to 1e-3 of its largest magnitude (measured on the H200: 2.2–3e-4) and the scores relative 1e-4.
// Shapes, finiteness and values for several widths.
TEST(FusedScore, MatchesLibTorchsForward) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  struct shape {
    std::int64_t width, rows;
  };
  for (const shape s : {shape{16, 1}, shape{64, 300}, shape{256, 5000}, shape{1024, 77}}) {
    SCOPED_TRACE("width " + std::to_string(s.width) + ", rows " + std::to_string(s.rows));
    zmd::light_vae net = make_net(s.width, 21);
    const batch_case c = make_case(s.width, s.rows, 17);
    const torch::Tensor data = c.data.narrow(0, 0, s.rows).contiguous();
    torch::NoGradGuard no_grad;
    const zmd::encoding e = net->encode(data);
    const torch::Tensor want_score = torch::mean(torch::square(net->decode(e.mu) - data), 1);
    const zmd::scored_rows got = zmd::fused_score(net, data);
    ASSERT_EQ(got.score.sizes(), want_score.sizes());
    ASSERT_EQ(got.mu.sizes(), e.mu.sizes());
    ASSERT_TRUE(torch::isfinite(got.score).all().item<bool>());
    const double score_error =
        ((got.score - want_score).abs() / want_score.abs().clamp_min(1e-12)).max().item<double>();
    EXPECT_LE(score_error, 1e-4);
    const double mu_scale = e.mu.abs().max().item<double>();
    EXPECT_LE((got.mu - e.mu).abs().max().item<double>(), 1e-3 * mu_scale + 1e-7);
  }
}

// vae::score on a GPU runs the fused forward pass; the same model on the CPU (the same initial
// weights for the seed) scores the same rows alike.
TEST(FusedScore, VaeScoreOnTheGpuAgreesWithTheCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const zf::array rows = zf::model_test::make_rows(900, 64, 3, {1, 7, 20});
  auto on_gpu = zf::model::vae::create(64, zf::cuda_device(0), 5);
  const auto on_cpu = zf::model::vae::create(64, zf::cpu_device, 5);
  const auto fused = on_gpu.score(zf::copy_to(rows, zf::cuda_device(0)));
  const auto host = on_cpu.score(rows);
  const zf::array f = zf::copy_to(fused.score, zf::cpu_device);
  ASSERT_EQ(f.size(), 900);
  const auto fs = f.span<const float>(), gs = host.score.span<const float>();
  for (std::size_t i = 0; i < fs.size(); ++i) EXPECT_NEAR(fs[i], gs[i], 1e-4 * std::abs(gs[i]) + 1e-9) << "row " << i;
}

TEST(FusedScore, RefusesWhatItCannotScore) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  zmd::light_vae net = make_net(64, 1);
  const batch_case c = make_case(64, 32, 2);
  EXPECT_THROW((void)zmd::fused_score(net, c.data.to(torch::kDouble)), zf::invalid_argument);
  EXPECT_THROW((void)zmd::fused_score(net, c.data.narrow(1, 0, 32)), zf::invalid_argument);
  EXPECT_THROW((void)zmd::fused_score(net, c.data.cpu()), zf::invalid_argument);
}

// The test loss's kernel: each row's share of the seed's loss, against LibTorch's eager modules
// fed the same rows and the same noise.
TEST(FusedLosses, MatchLibTorchsForwardWithTheSameNoise) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  for (const std::int64_t width : {16, 256, 1024}) {
    SCOPED_TRACE("width " + std::to_string(width));
    zmd::light_vae net = make_net(width, 23);
    const batch_case c = make_case(width, 700, 29);  // rows drawn with repeats
    torch::NoGradGuard no_grad;
    const torch::Tensor x = c.data.index_select(0, c.rows);
    const zmd::encoding e = net->encode(x);
    const torch::Tensor z = e.mu + c.eps * torch::exp(0.5 * e.logvar);
    const torch::Tensor mse = torch::mean(torch::square(net->decode(z) - x), 1);
    const torch::Tensor kl = -0.1 * torch::mean(1 + e.logvar - e.mu.pow(2) - e.logvar.exp(), 1);
    const torch::Tensor want = mse + kl;
    const torch::Tensor got = zmd::fused_row_losses(net, c.data, c.rows, c.eps);
    ASSERT_EQ(got.sizes(), want.sizes());
    ASSERT_TRUE(torch::isfinite(got).all().item<bool>());
    EXPECT_LE(((got - want).abs() / want.abs().clamp_min(1e-12)).max().item<double>(), 1e-4);
  }
}

TEST(FusedDecode, MatchesLibTorchsDecoder) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  for (const std::int64_t width : {16, 256, 1024}) {
    SCOPED_TRACE("width " + std::to_string(width));
    zmd::light_vae net = make_net(width, 31);
    torch::manual_seed(37);
    const torch::Tensor latents = 2.0 * torch::randn({300, 2}, torch::TensorOptions().device(torch::kCUDA, 0));
    torch::NoGradGuard no_grad;
    const torch::Tensor want = net->decode(latents);
    const torch::Tensor got = zmd::fused_decode(net, latents);
    ASSERT_EQ(got.sizes(), want.sizes());
    ASSERT_TRUE(torch::isfinite(got).all().item<bool>());
    const double scale = want.abs().max().item<double>();
    EXPECT_LE((got - want).abs().max().item<double>(), 1e-4 * scale + 1e-7);
  }
}

TEST(FusedDecode, VaeDecodeGridOnTheGpuAgreesWithTheCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  const auto on_gpu = zf::model::vae::create(64, zf::cuda_device(0), 9);
  const auto on_cpu = zf::model::vae::create(64, zf::cpu_device, 9);
  const zf::array fused = zf::copy_to(on_gpu.decode_grid(5, 2.0), zf::cpu_device);
  const zf::array host = on_cpu.decode_grid(5, 2.0);
  ASSERT_EQ(fused.shape(), host.shape());
  const auto f = fused.span<const float>(), g = host.span<const float>();
  float scale = 0;
  for (float v : g) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < f.size(); ++i) EXPECT_NEAR(f[i], g[i], 1e-4F * scale + 1e-7F) << "value " << i;
}

TEST(FusedLosses, RefuseWhatTheyCannotUse) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  zmd::light_vae net = make_net(64, 1);
  const batch_case c = make_case(64, 32, 2);
  EXPECT_THROW((void)zmd::fused_row_losses(net, c.data.cpu(), c.rows, c.eps), zf::invalid_argument);
  EXPECT_THROW((void)zmd::fused_row_losses(net, c.data, c.rows.to(torch::kInt), c.eps), zf::invalid_argument);
  EXPECT_THROW((void)zmd::fused_row_losses(net, c.data, c.rows, c.eps.narrow(0, 0, 31)), zf::invalid_argument);
  EXPECT_THROW((void)zmd::fused_decode(net, c.eps.to(torch::kDouble)), zf::invalid_argument);
  EXPECT_THROW((void)zmd::fused_decode(net, c.data), zf::invalid_argument);  // not N x 2
}
