#pragma once
/// @file light_vae.hpp
/// Internal: the LightVAE LibTorch module and the seed's loss. This header pulls in LibTorch;
/// include it only from src/model/*.cpp and tests/model (the public API is model/vae.hpp).
///
/// Submodule and parameter names follow the seed's Python class (sigma.alpha, conv0.weight,
/// ..., restore.bias), and modules are created in the same order, so that for one seed the
/// initial weights equal the Python model's.
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <optional>

#include "cuda_ops.hpp"

namespace zeroflow::model::detail {

/// x·sigmoid(α·x) with one learnable α (init 1). The LightVAE owns one instance and applies it
/// after every hidden convolution, so α is shared by all of them.
class swish_impl : public torch::nn::Module {
 public:
  swish_impl();
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor alpha;
  op_kernels kernels = op_kernels::fused;  ///< on a GPU: the fused kernel (cuda_ops.hpp) or LibTorch's ops
};
TORCH_MODULE_IMPL(swish, swish_impl);

/// Fixed [1, 2, 1] depthwise filter with stride 2 and padding 1 (halves the length). The filter
/// is a buffer, not a parameter: it moves with the module and is never trained.
class downsample1d_impl : public torch::nn::Module {
 public:
  downsample1d_impl();
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor filter;  ///< shape (1, 1, 3)
};
TORCH_MODULE_IMPL(downsample1d, downsample1d_impl);

/// μ and log σ² of a batch, each (N, 2).
struct encoding {
  torch::Tensor mu;
  torch::Tensor logvar;
};

/// The reconstruction x̂ (N, W) from a sampled z, and the encoding it came from.
struct reconstruction {
  torch::Tensor recon;
  torch::Tensor mu;
  torch::Tensor logvar;
};

/// The seed's LightVAE for rows of width W (a power of two ≥ 16).
class light_vae_impl : public torch::nn::Module {
 public:
  explicit light_vae_impl(std::int64_t width);

  /// x: (N, W) or anything of N·W elements.
  encoding encode(const torch::Tensor& x);
  /// z: (N, 2) → (N, W).
  torch::Tensor decode(const torch::Tensor& z);
  /// encode, z = μ + ε·exp(½ log σ²) with ε ~ N(0, 1) from the noise generator, decode.
  reconstruction forward(const torch::Tensor& x);

  /// The generator of forward's noise and of the training loop's draws: a training run's own
  /// (run_generators.hpp) while it trains, LibTorch's default one when unset.
  void use_noise(std::optional<at::Generator> generator) { noise_ = std::move(generator); }
  [[nodiscard]] const std::optional<at::Generator>& noise() const { return noise_; }

  [[nodiscard]] std::int64_t width() const { return width_; }

  /// Which kernels compute swish on a GPU in every later forward pass (fused unless changed);
  /// the loss takes the same choice from the caller (vae_loss). The CPU always uses LibTorch's.
  void use_op_kernels(op_kernels kernels);
  [[nodiscard]] op_kernels swish_kernels() const;

 private:
  std::int64_t width_;
  std::optional<at::Generator> noise_;
  downsample1d down{nullptr};
  swish sigma{nullptr};
  torch::nn::Conv1d conv0{nullptr}, conv1{nullptr}, conv2{nullptr}, convA{nullptr}, convB{nullptr};
  torch::nn::Linear restore{nullptr};
  torch::nn::Conv1d conv3{nullptr}, conv4{nullptr}, conv5{nullptr};
};
TORCH_MODULE_IMPL(light_vae, light_vae_impl);

/// Sets a network's op kernels for as long as it lives, then puts back what they were: a
/// training run's choice (train_options::fused_ops) stays with that run.
class op_kernels_scope {
 public:
  op_kernels_scope(light_vae& net, op_kernels kernels);
  ~op_kernels_scope();
  op_kernels_scope(const op_kernels_scope&) = delete;
  op_kernels_scope& operator=(const op_kernels_scope&) = delete;

 private:
  light_vae& net_;
  op_kernels saved_;
};

/// The seed's loss_function: Σ_n mean_t (x̂−x)² − 0.1 Σ_n mean_d (1 + log σ² − μ² − σ²), a 0-d
/// tensor. x is reshaped to x̂'s shape. `kernels` as for seed_loss (cuda_ops.hpp).
torch::Tensor vae_loss(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                       const torch::Tensor& logvar, op_kernels kernels);

/// Learnable scalars of a module.
std::int64_t count_parameters(const torch::nn::Module& module);

}  // namespace zeroflow::model::detail
