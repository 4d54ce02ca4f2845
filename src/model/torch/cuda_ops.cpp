/// @file cuda_ops.cpp
/// Swish and the seed's loss: LibTorch's composite ops on the CPU (and wherever the fused path does
/// not apply), fused CUDA kernels with hand-written backward passes on GPUs (see cuda_ops.hpp).
#include "cuda_ops.hpp"

#include <vector>

#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/autograd/custom_function.h>

#include "cuda_kernels.hpp"
#endif

namespace zeroflow::model::detail {

namespace {

#if ZEROFLOW_HAS_CUDA

bool float_on_gpu(const torch::Tensor& t) { return t.is_cuda() && t.scalar_type() == torch::kFloat; }

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

stream_view current_stream(const torch::Tensor& t) {
  return stream_view{c10::cuda::getCurrentCUDAStream(t.device().index()).stream()};
}

class fused_swish : public torch::autograd::Function<fused_swish> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& alpha) {
    const c10::cuda::CUDAGuard on_device(x.device());
    const torch::Tensor xc = x.contiguous();
    const torch::Tensor ac = alpha.contiguous();
    torch::Tensor y = torch::empty_like(xc);
    cuda_kernels::swish_forward(xc.data_ptr<float>(), ac.data_ptr<float>(), y.data_ptr<float>(), xc.numel(),
                                current_stream(xc));
    ctx->save_for_backward({xc, ac});
    return y;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& alpha = saved[1];
    const c10::cuda::CUDAGuard on_device(x.device());
    const torch::Tensor gy = grads[0].contiguous();
    torch::Tensor gx = torch::empty_like(x);
    torch::Tensor galpha = torch::empty_like(alpha);
    torch::Tensor scratch =
        torch::empty({cuda_kernels::swish_scratch_size(x.numel())}, x.options().dtype(torch::kDouble));
    cuda_kernels::swish_backward(x.data_ptr<float>(), alpha.data_ptr<float>(), gy.data_ptr<float>(),
                                 gx.data_ptr<float>(), galpha.data_ptr<float>(), scratch.data_ptr<double>(), x.numel(),
                                 current_stream(x));
    return {gx, galpha};
  }
};

class fused_seed_loss : public torch::autograd::Function<fused_seed_loss> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& recon, const torch::Tensor& x,
                               const torch::Tensor& mu, const torch::Tensor& logvar) {
    const c10::cuda::CUDAGuard on_device(recon.device());
    const torch::Tensor rc = recon.contiguous();
    const torch::Tensor xc = x.reshape(recon.sizes()).contiguous();
    const torch::Tensor mc = mu.contiguous();
    const torch::Tensor lc = logvar.contiguous();
    const std::int64_t rows = rc.size(0), width = rc.size(1), latent = mc.size(1);
    torch::Tensor loss = torch::empty({}, rc.options());
    torch::Tensor scratch =
        torch::empty({cuda_kernels::vae_loss_scratch_size(rows, width, latent)}, rc.options().dtype(torch::kDouble));
    cuda_kernels::vae_loss_forward(rc.data_ptr<float>(), xc.data_ptr<float>(), mc.data_ptr<float>(),
                                   lc.data_ptr<float>(), rows, width, latent, loss.data_ptr<float>(),
                                   scratch.data_ptr<double>(), current_stream(rc));
    ctx->save_for_backward({rc, xc, mc, lc});
    ctx->saved_data["x_sizes"] = x.sizes().vec();
    return loss;
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& recon = saved[0];
    const torch::Tensor& x = saved[1];
    const torch::Tensor& mu = saved[2];
    const torch::Tensor& logvar = saved[3];
    const c10::cuda::CUDAGuard on_device(recon.device());
    const torch::Tensor g = grads[0].contiguous();
    torch::Tensor grad_recon = torch::empty_like(recon);
    torch::Tensor grad_mu = torch::empty_like(mu);
    torch::Tensor grad_logvar = torch::empty_like(logvar);
    cuda_kernels::vae_loss_backward(g.data_ptr<float>(), recon.data_ptr<float>(), x.data_ptr<float>(),
                                    mu.data_ptr<float>(), logvar.data_ptr<float>(), recon.size(0), recon.size(1),
                                    mu.size(1), grad_recon.data_ptr<float>(), grad_mu.data_ptr<float>(),
                                    grad_logvar.data_ptr<float>(), current_stream(recon));
    torch::Tensor grad_x;
    if (ctx->needs_input_grad(1)) grad_x = grad_recon.neg().reshape(ctx->saved_data["x_sizes"].toIntVector());
    return {grad_recon, grad_x, grad_mu, grad_logvar};
  }
};

#endif

}  // namespace

bool fused_cuda_ops_available() { return ZEROFLOW_HAS_CUDA != 0; }

torch::Tensor apply_swish_reference(const torch::Tensor& x, const torch::Tensor& alpha) {
  return x * torch::sigmoid(alpha * x);
}

torch::Tensor seed_loss_reference(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                                  const torch::Tensor& logvar) {
  const torch::Tensor mse = torch::sum(torch::mean(torch::square(recon - x.reshape(recon.sizes())), 1));
  const torch::Tensor kld = -0.1 * torch::sum(torch::mean(1 + logvar - mu.pow(2) - logvar.exp(), 1));
  return mse + kld;
}

torch::Tensor apply_swish(const torch::Tensor& x, const torch::Tensor& alpha, [[maybe_unused]] op_kernels kernels) {
#if ZEROFLOW_HAS_CUDA
  if (kernels == op_kernels::fused && float_on_gpu(x) && float_on_gpu(alpha) && alpha.device() == x.device() &&
      alpha.numel() == 1)
    return fused_swish::apply(x, alpha);
#endif
  return apply_swish_reference(x, alpha);
}

torch::Tensor seed_loss(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                        const torch::Tensor& logvar, [[maybe_unused]] op_kernels kernels) {
#if ZEROFLOW_HAS_CUDA
  const c10::Device where = recon.device();
  if (kernels == op_kernels::fused && float_on_gpu(recon) && float_on_gpu(x) && float_on_gpu(mu) &&
      float_on_gpu(logvar) && x.device() == where && mu.device() == where && logvar.device() == where &&
      recon.dim() == 2 && mu.dim() == 2 && logvar.sizes() == mu.sizes() && mu.size(0) == recon.size(0) &&
      x.numel() == recon.numel())
    return fused_seed_loss::apply(recon, x, mu, logvar);
#endif
  return seed_loss_reference(recon, x, mu, logvar);
}

}  // namespace zeroflow::model::detail
