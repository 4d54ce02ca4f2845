// The tests' LibTorch LightVAE (torch_oracle/light_vae.hpp).
#include "torch_oracle/light_vae.hpp"

#include <torch/nn/functional/conv.h>
#include <torch/nn/functional/upsampling.h>
#include <torch/nn/options/conv.h>
#include <torch/optim/adam.h>

#include "zeroflow/core/error.hpp"
#include "zeroflow/model/model_file.hpp"

namespace zeroflow::model::detail {

namespace {

torch::nn::Conv1d make_conv(std::int64_t in, std::int64_t out) {
  return torch::nn::Conv1d(torch::nn::Conv1dOptions(in, out, 3).stride(1).padding(1));
}

// torch.nn.Upsample(scale_factor=2) of the seed: nearest neighbour, twice the length.
torch::Tensor upsample2(const torch::Tensor& x) {
  namespace F = torch::nn::functional;
  return F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0}).mode(torch::kNearest));
}

}  // namespace

swish_impl::swish_impl() { alpha = register_parameter("alpha", torch::ones({1})); }

torch::Tensor swish_impl::forward(const torch::Tensor& x) { return x * torch::sigmoid(alpha * x); }

downsample1d_impl::downsample1d_impl() {
  filter = register_buffer("filter", torch::tensor({1.0F, 2.0F, 1.0F}).view({1, 1, 3}));
}

// One copy of the filter per channel (groups = channels), as the seed's torch.cat does.
torch::Tensor downsample1d_impl::forward(const torch::Tensor& x) {
  namespace F = torch::nn::functional;
  const std::int64_t channels = x.size(1);
  return F::conv1d(x, filter.expand({channels, 1, 3}), F::Conv1dFuncOptions().stride(2).padding(1).groups(channels));
}

light_vae_impl::light_vae_impl(std::int64_t width) : width_{width} {
  ZF_EXPECTS(width >= 16 && (width & (width - 1)) == 0, "LightVAE width must be a power of two >= 16, got ", width);
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
  h = down(sigma(conv0(h)));
  h = down(sigma(conv1(h)));
  h = down(sigma(conv2(h)));
  return {convA(h).mean(2), convB(h).mean(2)};
}

torch::Tensor light_vae_impl::decode(const torch::Tensor& z) {
  torch::Tensor h = restore(z).view({-1, 8, width_ / 8});
  h = sigma(conv3(upsample2(h)));
  h = sigma(conv4(upsample2(h)));
  return conv5(upsample2(h)).view({-1, width_});
}

reconstruction light_vae_impl::forward(const torch::Tensor& x) {
  encoding e = encode(x);
  const torch::Tensor std_dev = torch::exp(0.5 * e.logvar);
  const torch::Tensor z = e.mu + torch::randn(std_dev.sizes(), noise_, std_dev.options()) * std_dev;
  return {decode(z), std::move(e.mu), std::move(e.logvar)};
}

torch::Tensor vae_loss(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                       const torch::Tensor& logvar) {
  const torch::Tensor mse = (recon - x.reshape(recon.sizes())).pow(2).mean(1).sum();
  const torch::Tensor kl = (1 + logvar - mu.pow(2) - logvar.exp()).mean(1).sum();
  return mse - 0.1 * kl;
}

std::int64_t count_parameters(const torch::nn::Module& module) {
  std::int64_t n = 0;
  for (const auto& p : module.parameters()) n += p.numel();
  return n;
}

std::vector<double> train_light_vae(const torch::Tensor& train, std::uint64_t seed, int epochs, std::int64_t batch,
                                    double learning_rate) {
  torch::manual_seed(seed);
  const std::int64_t n = train.size(0);
  light_vae net(train.size(1));
  net->to(train.device());
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(learning_rate));
  std::vector<double> losses;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    const torch::Tensor order = torch::randperm(n, torch::TensorOptions().dtype(torch::kLong)).to(train.device());
    double sum = 0;
    for (std::int64_t first = 0; first < n; first += batch) {
      const torch::Tensor x = train.index_select(0, order.slice(0, first, std::min(first + batch, n)));
      const reconstruction r = net->forward(x);
      const torch::Tensor loss = vae_loss(r.recon, x, r.mu, r.logvar);
      opt.zero_grad();
      loss.backward();
      opt.step();
      sum += loss.item<double>();
    }
    losses.push_back(sum / static_cast<double>(n));
  }
  return losses;
}

std::string model_file_bytes(const model_metadata& meta, const light_vae& module) {
  io::safetensors_content content;
  content.metadata = model_file_metadata({"lightvae", meta.width, meta.rows, meta.history});
  const auto add = [&](const std::string& name, const torch::Tensor& value) {
    const torch::Tensor t = value.detach().to(torch::kCPU, torch::kFloat).contiguous();
    content.tensors.push_back(io::make_safetensor(name, t.sizes().vec(), t.data_ptr<float>()));
  };
  for (const auto& p : module->named_parameters(true)) add(p.key(), p.value());
  for (const auto& b : module->named_buffers(true)) add(b.key(), b.value());
  return io::sealed_safetensors(std::move(content));
}

}  // namespace zeroflow::model::detail
