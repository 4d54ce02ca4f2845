/// @file light_vae.cpp
/// The seed's LightVAE module (bench/seed_pipeline.py, class LightVAE) and loss_function.
#include "light_vae.hpp"

#include <torch/nn/functional/upsampling.h>
#include <torch/nn/options/conv.h>

#include "cpu_ops.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::model::detail {

namespace {

// The seed's Conv1d(k=3, stride 1, padding 1) applied through conv1d_k3 (fast CPU kernels).
torch::Tensor run_conv(const torch::nn::Conv1d& conv, const torch::Tensor& x) {
  return conv1d_k3(x, conv->weight, conv->bias);
}

torch::nn::Conv1d make_conv(std::int64_t in, std::int64_t out) {
  return torch::nn::Conv1d(torch::nn::Conv1dOptions(in, out, 3).stride(1).padding(1));
}

// torch.nn.Upsample(scale_factor=2) of the seed: nearest neighbour, twice the length.
torch::Tensor upsample2(const torch::Tensor& x) {
  namespace F = torch::nn::functional;
  return F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0}).mode(torch::kNearest));
}

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

swish_impl::swish_impl() { alpha = register_parameter("alpha", torch::ones({1})); }

// On a GPU one fused kernel each way instead of three forward and ~7 backward launches.
torch::Tensor swish_impl::forward(const torch::Tensor& x) { return apply_swish(x, alpha, kernels); }

downsample1d_impl::downsample1d_impl() {
  filter = register_buffer("filter", torch::tensor({1.0F, 2.0F, 1.0F}).view({1, 1, 3}));
}

// One copy of the filter per channel (groups = channels), as the seed's torch.cat does.
torch::Tensor downsample1d_impl::forward(const torch::Tensor& x) { return downsample3(x, filter); }

light_vae_impl::light_vae_impl(std::int64_t width) : width_{width} {
  ZF_EXPECTS(width >= 16 && is_power_of_two(width), "LightVAE width must be a power of two >= 16, got ", width);
  // Same creation order as the seed's __init__, so one seed draws the same initial weights.
  down = register_module("down", downsample1d());
  sigma = register_module("sigma", swish());
  conv0 = register_module("conv0", make_conv(1, 4));
  conv1 = register_module("conv1", make_conv(4, 8));
  conv2 = register_module("conv2", make_conv(8, 16));
  convA = register_module("convA", make_conv(16, 2));
  convB = register_module("convB", make_conv(16, 2));
  restore = register_module("restore", torch::nn::Linear(2, 16 * width / 16));
  conv3 = register_module("conv3", make_conv(8, 4));
  conv4 = register_module("conv4", make_conv(4, 2));
  conv5 = register_module("conv5", make_conv(2, 1));
}

encoding light_vae_impl::encode(const torch::Tensor& x) {
  torch::Tensor h = x.reshape({-1, 1, width_});
  h = down(sigma(run_conv(conv0, h)));
  h = down(sigma(run_conv(conv1, h)));
  h = down(sigma(run_conv(conv2, h)));
  return {run_conv(convA, h).mean(2), run_conv(convB, h).mean(2)};
}

torch::Tensor light_vae_impl::decode(const torch::Tensor& z) {
  torch::Tensor h = restore(z).view({-1, 8, width_ / 8});
  h = sigma(run_conv(conv3, upsample2(h)));
  h = sigma(run_conv(conv4, upsample2(h)));
  return run_conv(conv5, upsample2(h)).view({-1, width_});
}

void light_vae_impl::use_op_kernels(op_kernels kernels) { sigma->kernels = kernels; }

op_kernels light_vae_impl::swish_kernels() const { return sigma->kernels; }

reconstruction light_vae_impl::forward(const torch::Tensor& x) {
  encoding e = encode(x);
  const torch::Tensor std_dev = torch::exp(0.5 * e.logvar);
  const torch::Tensor z = e.mu + torch::randn(std_dev.sizes(), noise_, std_dev.options()) * std_dev;
  return {decode(z), std::move(e.mu), std::move(e.logvar)};
}

op_kernels_scope::op_kernels_scope(light_vae& net, op_kernels kernels) : net_{net}, saved_{net->swish_kernels()} {
  net_->use_op_kernels(kernels);
}

op_kernels_scope::~op_kernels_scope() { net_->use_op_kernels(saved_); }

torch::Tensor vae_loss(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                       const torch::Tensor& logvar, op_kernels kernels) {
  return seed_loss(recon, x, mu, logvar, kernels);
}

std::int64_t count_parameters(const torch::nn::Module& module) {
  std::int64_t n = 0;
  for (const auto& p : module.parameters()) n += p.numel();
  return n;
}

}  // namespace zeroflow::model::detail
