#pragma once
/// @file adam_update.hpp
/// Internal, torch-free: torch.optim.Adam's update over packed float32 parameters on a GPU, as one
/// kernel whose step count lives on the device, so that a CUDA graph can capture and replay it
/// (the LightVAE's and the MLP's own trainers share it).
#include <cstdint>

#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail {

/// What one update touches: device pointers, `count` floats each.
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
  float beta1 = 0.9F;
  float beta2 = 0.999F;
  float eps = 1e-8F;
};

/// Queues g ← g + wd·p, m ← m + (1−β1)(g − m), v ← β2·v + (1−β2)·g²,
/// p ← p − (lr / (1 − β1^t)) · m / (√v / √(1 − β2^t) + ε), the corrections in double.
/// @throws cuda_error when the launch fails.
void queue_adam_update(const adam_update& update, stream_view stream);

/// Queues t ← t + 1 on the device step count.
void queue_adam_step_count(float* step, stream_view stream);

}  // namespace zeroflow::model::detail
