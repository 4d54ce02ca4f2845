/// @file vae_score.cpp
/// zeroflow::model::vae's forward passes without autograd: score and decode_grid, on the fused
/// kernels or LibTorch's modules as the training path says (training_path.hpp).
#include <cmath>

#include "fused_step.hpp"
#include "light_vae.hpp"
#include "tensor_bridge.hpp"
#include "vae_impl.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model {

scores vae::score(const array& rows, std::int64_t batch, training_path path) const {
  ZF_EXPECTS(batch >= 1, "batch must be >= 1, got ", batch);
  const bool fused = choose_training_path(where(), width(), path) == training_path::fused_kernels;
  detail::configure_torch_threads();
  detail::light_vae& net = impl_->module;
  const torch::Tensor data = detail::rows_on(rows, width(), impl_->tdevice);
  const std::int64_t n = data.size(0);
  torch::NoGradGuard no_grad;
  detail::check_finite_rows(data);
  net->eval();
  if (fused) {
    // One kernel for every row instead of ~40 LibTorch kernels per batch (fused_step.hpp).
    const detail::scored_rows out = detail::fused_score(net, data.contiguous());
    return {detail::export_to(out.score, rows.where()), detail::export_to(out.mu, rows.where())};
  }
  const auto float_on_dev = torch::TensorOptions().dtype(torch::kFloat).device(impl_->tdevice);
  torch::Tensor score = torch::empty({n}, float_on_dev);
  torch::Tensor mu = torch::empty({n, 2}, float_on_dev);
  for (std::int64_t begin = 0; begin < n; begin += batch) {
    const std::int64_t end = std::min(n, begin + batch);
    const torch::Tensor x = data.slice(0, begin, end);
    const detail::encoding e = net->encode(x);
    // z = μ: no sampling, so a row's score depends only on the row and the weights.
    const torch::Tensor recon = net->decode(e.mu);
    score.slice(0, begin, end).copy_(torch::mean(torch::square(recon - x), 1));
    mu.slice(0, begin, end).copy_(e.mu);
  }
  return {detail::export_to(score, rows.where()), detail::export_to(mu, rows.where())};
}

array vae::decode_grid(int n, double extent, training_path path) const {
  ZF_EXPECTS(n >= 1, "decode_grid needs n >= 1, got ", n);
  ZF_EXPECTS(std::isfinite(extent) && extent >= 0.0, "decode_grid needs a finite extent >= 0, got ", extent);
  const bool fused = choose_training_path(where(), width(), path) == training_path::fused_kernels;
  torch::NoGradGuard no_grad;
  // Made on the host and copied: a run on the fused kernels launches no LibTorch kernel.
  const auto on_host = torch::TensorOptions().dtype(torch::kFloat);
  const torch::Tensor g = torch::linspace(-extent, extent, n, on_host);
  // meshgrid(g, g, indexing='ij') flattened: row i·n + j is (g[i], g[j]).
  const torch::Tensor latents = torch::stack({g.repeat_interleave(n), g.repeat({n})}, 1).to(impl_->tdevice);
  if (fused)  // no cuDNN in a run on the fused kernels
    return detail::to_array(detail::fused_decode(impl_->module, latents.contiguous()));
  return detail::to_array(impl_->module->decode(latents));
}

}  // namespace zeroflow::model
