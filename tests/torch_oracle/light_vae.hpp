#pragma once
// The model tests' oracle: the seed's LightVAE (bench/seed_pipeline.py, class LightVAE) and
// loss_function written with LibTorch's own modules and ops, nothing of zeroflow's, so that
// zeroflow's kernels on either device are checked against an independent implementation
// (autograd's gradients, torch::optim::Adam's steps, LibTorch's forward passes).
//
// Submodule and parameter names follow the seed's Python class (sigma.alpha, conv0.weight, ...,
// restore.bias), and modules are created in the same order, so that for one seed the initial
// weights equal the Python model's and zeroflow's (light_vae_init.hpp).
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zeroflow/model/vae.hpp"

namespace zeroflow::model::detail {

/// x·sigmoid(α·x) with one learnable α (init 1), shared by every hidden convolution.
class swish_impl : public torch::nn::Module {
 public:
  swish_impl();
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor alpha;
};
TORCH_MODULE_IMPL(swish, swish_impl);

/// Fixed [1, 2, 1] depthwise filter with stride 2 and padding 1 (halves the length); a buffer.
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
  encoding encode(const torch::Tensor& x);
  torch::Tensor decode(const torch::Tensor& z);
  /// encode, z = μ + ε·exp(½ log σ²) with ε ~ N(0, 1) from `noise` (LibTorch's default generator
  /// when unset), decode.
  reconstruction forward(const torch::Tensor& x);
  void use_noise(std::optional<at::Generator> generator) { noise_ = std::move(generator); }
  [[nodiscard]] std::int64_t width() const { return width_; }

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

/// The seed's loss_function: Σ_n mean_t (x̂−x)² − 0.1 Σ_n mean_d (1 + log σ² − μ² − σ²), a 0-d
/// tensor. x is reshaped to x̂'s shape.
torch::Tensor vae_loss(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                       const torch::Tensor& logvar);

/// Learnable scalars of a module.
std::int64_t count_parameters(const torch::nn::Module& module);

/// The seed's training loop in LibTorch on `train` (N × W rows on any device): the weights drawn
/// after torch::manual_seed(seed), then per epoch a randperm of the rows cut into `batch`-row
/// batches, torch::optim::Adam(lr) on vae_loss. Per epoch Σ batch losses / N (the seed's figure).
std::vector<double> train_light_vae(const torch::Tensor& train, std::uint64_t seed, int epochs, std::int64_t batch,
                                    double learning_rate = 1e-3);

/// What a model file says about its model besides the weights.
struct model_metadata {
  std::int64_t width = 0;
  std::optional<row_provenance> rows;
  training_history history;
};

/// The bytes of a model file (format 3) of `module` with `meta`, sealed but unchecked: the files
/// vae::save would refuse to write (odd metadata, NaN weights), for the tests that load refuses them.
[[nodiscard]] std::string model_file_bytes(const model_metadata& meta, const light_vae& module);

}  // namespace zeroflow::model::detail
