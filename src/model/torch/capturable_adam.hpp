#pragma once
/// @file capturable_adam.hpp
/// Internal: Adam whose whole step runs on the parameters' device, so that it can be captured in
/// a CUDA graph and replayed. torch::optim::Adam keeps its step count on the host and computes
/// the bias corrections there, so a captured step would replay the first step's corrections
/// forever. Here the step count is a device tensor that the step increments itself, and the
/// update is LibTorch's fused Adam kernel (at::_fused_adam_, one multi-tensor launch on CUDA; a
/// CPU kernel exists too, which the tests compare with torch::optim::Adam). Pulls in LibTorch;
/// include it only from src/model/*.cpp and tests/model.
#include <torch/types.h>

#include <vector>

namespace zeroflow::model::detail {

/// Adam's hyper-parameters (torch::optim::Adam's defaults; no AMSGrad).
struct adam_settings {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;  ///< L2 penalty added to the gradients, as torch.optim.Adam's
};

/// Adam over a fixed list of float32 parameters that share one device. Every tensor it touches
/// while stepping (moments, step count) is allocated once, in the constructor, so a step queues
/// kernels and nothing else: no allocation, no host read, no synchronisation.
class capturable_adam {
 public:
  /// @param params the tensors to update (leaf tensors that will have gradients), all float32 on
  ///        one device; the optimiser keeps references to them.
  /// @throws invalid_argument for an empty list, mixed devices or a non-float32 parameter, or
  ///         bad settings (learning rate ≤ 0, betas outside [0, 1), eps < 0, weight decay < 0).
  capturable_adam(std::vector<torch::Tensor> params, const adam_settings& settings);

  /// One Adam step with each parameter's current .grad(): the step count goes up by one (on the
  /// device), then params, first and second moments are updated by one fused kernel.
  /// @throws invalid_argument when a parameter has no gradient.
  void step();

  /// Zeroes the moments and the step count (queued on the current stream): the optimiser is as
  /// new, and the tensors keep their addresses (a captured step stays valid).
  void reset();

  /// The step count, a float32 0-d tensor on the parameters' device (the fused kernel reads the
  /// count as float, as torch.optim.Adam(fused=True) stores it).
  [[nodiscard]] torch::Tensor step_count() const;

  [[nodiscard]] const std::vector<torch::Tensor>& params() const { return params_; }
  [[nodiscard]] const std::vector<torch::Tensor>& exp_avg() const { return exp_avg_; }
  [[nodiscard]] const std::vector<torch::Tensor>& exp_avg_sq() const { return exp_avg_sq_; }

 private:
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> exp_avg_;
  std::vector<torch::Tensor> exp_avg_sq_;
  // One float per parameter in a single buffer, and a 0-d view of each for the fused kernel:
  // incrementing the buffer is one launch for all counts.
  torch::Tensor steps_;
  std::vector<torch::Tensor> step_views_;
  adam_settings settings_;
};

}  // namespace zeroflow::model::detail
