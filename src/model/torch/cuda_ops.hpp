#pragma once
/// @file cuda_ops.hpp
/// Internal: the LightVAE's swish and loss as fused CUDA kernels with their own autograd
/// (src/model/cuda_kernels.cu), used for float32 tensors on a GPU in a CUDA build when the caller
/// asks for them. Everything else — the CPU above all — computes them with LibTorch's ops exactly
/// as before, so the host's training is unchanged bit for bit. Pulls in LibTorch; include it only
/// from src/model/*.cpp and tests/model.
#include <torch/types.h>

namespace zeroflow::model::detail {

/// Which kernels compute swish and the loss of GPU tensors.
enum class op_kernels {
  libtorch,  ///< LibTorch's composite ops (the seed's kernels)
  fused,     ///< one fused kernel each way, where the tensors allow it (float32 on one GPU, CUDA build)
};

/// True in a CUDA build: op_kernels::fused can take effect.
[[nodiscard]] bool fused_cuda_ops_available();

/// x·σ(α·x) with one learnable α (a 1-element tensor), differentiable in x and α.
torch::Tensor apply_swish(const torch::Tensor& x, const torch::Tensor& alpha, op_kernels kernels);

/// The seed's loss Σ_n mean_t (x̂ − x)² − 0.1 Σ_n mean_d (1 + log σ² − μ² − σ²), a 0-d tensor,
/// differentiable in recon, x, mu and logvar. x is reshaped to recon's shape.
torch::Tensor seed_loss(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                        const torch::Tensor& logvar, op_kernels kernels);

/// LibTorch's composite versions (the reference, and what the CPU uses).
torch::Tensor apply_swish_reference(const torch::Tensor& x, const torch::Tensor& alpha);
torch::Tensor seed_loss_reference(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                                  const torch::Tensor& logvar);

}  // namespace zeroflow::model::detail
