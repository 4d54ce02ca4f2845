/// @file torch_vae_forward.cpp
/// The LibTorch backend's LightVAE forward passes without autograd (torch_backend.hpp): the
/// scores and latent means of rows, and the decoder on latent points, with LibTorch's modules
/// (the eager and CUDA-graph paths' forward, and the CPU's).
#include <algorithm>

#include "light_vae.hpp"
#include "torch_stream_guard.hpp"
#include "torch_support.hpp"

namespace zeroflow::model::detail {

void torch_score_vae(const packed_vae& weights, const array& rows, std::int64_t batch, float* score, float* mu) {
  configure_torch_threads();
  const torch_stream_guard on_stream(weights);
  light_vae net = module_of(weights);
  net->eval();
  const c10::Device dev = to_torch(weights.where);
  const torch::Tensor data = rows_on(rows, weights.width, dev);
  const std::int64_t n = data.size(0);
  torch::NoGradGuard no_grad;
  const auto floats = torch::TensorOptions().dtype(torch::kFloat).device(dev);
  const torch::Tensor score_out = torch::from_blob(score, {n}, floats);
  const torch::Tensor mu_out = torch::from_blob(mu, {n, 2}, floats);
  for (std::int64_t begin = 0; begin < n; begin += batch) {
    const std::int64_t end = std::min(n, begin + batch);
    const torch::Tensor x = data.slice(0, begin, end);
    const encoding e = net->encode(x);
    // z = μ: no sampling, so a row's score depends only on the row and the weights.
    const torch::Tensor recon = net->decode(e.mu);
    score_out.slice(0, begin, end).copy_(torch::mean(torch::square(recon - x), 1));
    mu_out.slice(0, begin, end).copy_(e.mu);
  }
}

void torch_decode_vae(const packed_vae& weights, const float* latents, std::int64_t n, float* out) {
  configure_torch_threads();
  const torch_stream_guard on_stream(weights);
  light_vae net = module_of(weights);
  net->eval();
  torch::NoGradGuard no_grad;
  const auto floats = torch::TensorOptions().dtype(torch::kFloat).device(to_torch(weights.where));
  const torch::Tensor z = torch::from_blob(const_cast<float*>(latents), {n, 2}, floats);
  torch::from_blob(out, {n, weights.width}, floats).copy_(net->decode(z));
}

}  // namespace zeroflow::model::detail
