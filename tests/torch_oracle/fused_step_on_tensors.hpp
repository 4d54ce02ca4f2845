#pragma once
// The model tests' glue between zeroflow's fused LightVAE kernels (src/model/fused_vae_step.hpp)
// and the LibTorch oracle module (torch_oracle/light_vae.hpp): the kernels run on the module's parameter
// tensors, so that their gradients, scores, losses and decodings are compared with autograd's and
// LibTorch's forward passes on the same weights (fused_step_cuda_test.cpp). The parameters stay
// LibTorch tensors; a step writes every parameter's .grad().
#include <torch/types.h>

#include <cstdint>
#include <map>
#include <vector>

#include "torch_oracle/light_vae.hpp"

namespace zeroflow::model::detail {

/// True when this build and `width` allow the fused step.
[[nodiscard]] bool fused_step_supported(std::int64_t width);

/// Per-row results of fused_score.
struct scored_rows {
  torch::Tensor score;  ///< float32 [n]: mean_t (x̂ − x)², x̂ decoded from z = μ
  torch::Tensor mu;     ///< float32 [n, 2]
};

/// @brief vae::score's forward pass as one fused kernel (one block per few beats, every
/// activation in shared memory): the same numbers as LibTorch's eager forward up to float
/// rounding (tests/model/fused_step_cuda_test.cpp), ~100× fewer kernels and bytes moved.
/// Queues work on the current CUDA stream. @param data contiguous float32 N × width on the
/// network's GPU. @throws invalid_argument when the network is not on a GPU or its width is unsupported.
[[nodiscard]] scored_rows fused_score(light_vae& net, const torch::Tensor& data);

/// @brief The seed's loss of rows `rows` (int64 indices) of `data`, one value per row (its
/// reconstruction MSE plus its KL term; their sum is the seed's loss over those rows), with
/// reparameterisation noise `eps` (float32 rows × 2): the training step's forward pass in one
/// kernel, no gradients. Queues work on the current CUDA stream.
/// @throws invalid_argument for inputs of the wrong kind or place, or an unsupported width.
[[nodiscard]] torch::Tensor fused_row_losses(light_vae& net, const torch::Tensor& data, const torch::Tensor& rows,
                                             const torch::Tensor& eps);

/// @brief The decoder alone in one kernel: float32 N × width for latent points `latents`
/// (float32 N × 2 on the network's GPU). Queues work on the current CUDA stream.
/// @throws invalid_argument for inputs of the wrong kind or place, or an unsupported width.
[[nodiscard]] torch::Tensor fused_decode(light_vae& net, const torch::Tensor& latents);

/// The fused step for one network, prepared for the given batch sizes. Construct it outside any
/// CUDA stream capture (it queries the device); run() may be captured.
class fused_step {
 public:
  /// @throws invalid_argument when the network is not on a GPU or its width is unsupported.
  fused_step(light_vae& net, const std::vector<std::int64_t>& batch_sizes);
  ~fused_step();
  fused_step(const fused_step&) = delete;
  fused_step& operator=(const fused_step&) = delete;

  /// Gradients of the seed's loss Σ_batch (mean_t (x̂ − x)² − 0.1·mean_c(1 + logvar − mu² − e^logvar))
  /// for rows `rows` (int64, one of the prepared batch sizes) of `data` (float32 N × width, on the
  /// network's GPU), with reparameterisation noise `eps` (float32 batch × 2): written into every
  /// parameter's grad (created when missing); the batch's loss is added to `loss_total` (0-d
  /// float64). Queues work on the current CUDA stream only.
  void run(const torch::Tensor& data, const torch::Tensor& rows, const torch::Tensor& eps, torch::Tensor& loss_total);

 private:
  struct impl;
  impl* impl_;
};

}  // namespace zeroflow::model::detail
