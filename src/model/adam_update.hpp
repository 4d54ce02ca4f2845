#pragma once
/// @file adam_update.hpp
/// Internal: torch::optim::Adam's update over packed float32 parameters, with its roundings (every
/// step in float, m updated by lerp, the bias corrections in double) — on a GPU as one kernel
/// whose step count lives on the device, so that a CUDA graph can capture and replay it, and on
/// the host. Both run adam_element, so the LightVAE's and the MLP's trainers update alike on
/// every device.
#include <cmath>
#include <cstdint>

#include "zeroflow/core/detail/host_device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail {

/// What one update touches: `count` floats each, device pointers (queue_adam_update) or host
/// pointers (apply_adam_on_host).
struct adam_update {
  float* params = nullptr;
  const float* grads = nullptr;
  float* exp_avg = nullptr;
  float* exp_avg_sq = nullptr;
  /// Adam's step count t, already advanced for this update (a float, so that a CUDA graph's
  /// kernels can advance it on the device).
  const float* step = nullptr;
  std::int64_t count = 0;
  double learning_rate = 1e-3;
  double weight_decay = 0.0;  ///< L2 penalty added to the gradients, as torch.optim.Adam's
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
};

/// An update's constants at step t, rounded as torch.optim.Adam rounds them: worked out in
/// double (1 − β as well), then float.
struct adam_constants {
  float beta2, eps, weight_decay;
  float one_minus_beta1, one_minus_beta2;
  float step_size;         ///< lr / (1 − β1^t)
  float correction2_sqrt;  ///< √(1 − β2^t)
};

ZF_HD_INLINE adam_constants adam_constants_at(const adam_update& u, double t) {
  adam_constants c{};
  c.beta2 = static_cast<float>(u.beta2);
  c.one_minus_beta1 = static_cast<float>(1.0 - u.beta1);
  c.one_minus_beta2 = static_cast<float>(1.0 - u.beta2);
  c.eps = static_cast<float>(u.eps);
  c.weight_decay = static_cast<float>(u.weight_decay);
  c.step_size = static_cast<float>(u.learning_rate / (1.0 - std::pow(u.beta1, t)));
  c.correction2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(u.beta2, t)));
  return c;
}

/// g ← g + wd·p, m ← m + (1−β1)·(g − m), v ← β2·v + (1−β2)·g², p ← p − step_size · m / (√v / √(1 − β2^t) + ε).
ZF_HD_INLINE void adam_element(float& p, float g, float& m, float& v, const adam_constants& c) {
  const float grad = c.weight_decay != 0.0F ? g + c.weight_decay * p : g;
  m = m + c.one_minus_beta1 * (grad - m);
  v = v * c.beta2 + c.one_minus_beta2 * grad * grad;
  const float denom = std::sqrt(v) / c.correction2_sqrt + c.eps;
  p -= c.step_size * (m / denom);
}

/// Queues the update of every element at the device step count.
/// @throws cuda_error when the launch fails.
void queue_adam_update(const adam_update& update, stream_view stream);

/// The same update on the host, now (`update.step` a host pointer).
inline void apply_adam_on_host(const adam_update& u) {
  const adam_constants c = adam_constants_at(u, *u.step);
  for (std::int64_t i = 0; i < u.count; ++i) adam_element(u.params[i], u.grads[i], u.exp_avg[i], u.exp_avg_sq[i], c);
}

/// Queues t ← t + 1 on the device step count.
void queue_adam_step_count(float* step, stream_view stream);

}  // namespace zeroflow::model::detail
