#pragma once
/// @file adam_update.hpp
/// Internal, torch-free: torch.optim.Adam's update over packed float32 parameters — on a GPU as one
/// kernel whose step count lives on the device, so that a CUDA graph can capture and replay it, and
/// on the host with the same roundings (the LightVAE's and the MLP's own trainers share both).
#include <cstdint>

#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail {

/// The rounding of an update: the same formula with different intermediates, for the LibTorch
/// optimiser a trainer is checked against.
enum class adam_rounding {
  /// torch::optim::Adam's per-tensor ops: every step in float, m updated by lerp.
  per_tensor_ops,
  /// at::_fused_adam_ (torch.optim.Adam(fused=True) and LibTorch's capturable step): the moments
  /// and the weight decay computed in double from the float values and rounded once.
  fused_kernel,
};

/// What one update touches: `count` floats each, device pointers (queue_adam_update) or host
/// pointers (apply_adam_on_host).
struct adam_update {
  float* params = nullptr;
  const float* grads = nullptr;
  float* exp_avg = nullptr;
  float* exp_avg_sq = nullptr;
  /// Adam's step count t, already advanced for this update (a float, as LibTorch's fused Adam
  /// keeps it), on the device.
  const float* step = nullptr;
  std::int64_t count = 0;
  double learning_rate = 1e-3;
  double weight_decay = 0.0;  ///< L2 penalty added to the gradients, as torch.optim.Adam's
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  adam_rounding rounding = adam_rounding::per_tensor_ops;
};

/// Queues g ← g + wd·p, m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g²,
/// p ← p − (lr / (1 − β1^t)) · m / (√v / √(1 − β2^t) + ε), rounded as `update.rounding` says.
/// @throws cuda_error when the launch fails.
void queue_adam_update(const adam_update& update, stream_view stream);

/// The same update on the host, now (`update.step` a host pointer).
void apply_adam_on_host(const adam_update& update);

/// Queues t ← t + 1 on the device step count.
void queue_adam_step_count(float* step, stream_view stream);

}  // namespace zeroflow::model::detail
