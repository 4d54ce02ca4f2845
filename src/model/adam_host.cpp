/// @file adam_host.cpp
/// torch.optim.Adam's update on the host (adam_update.hpp's apply_adam_on_host): the GPU kernels'
/// formulas (adam_update.cu) in the same roundings, for zeroflow's own CPU trainers.
#include <cmath>

#include "adam_update.hpp"

namespace zeroflow::model::detail {

void apply_adam_on_host(const adam_update& u) {
  const double t = *u.step;
  float* p = u.params;
  const float* g = u.grads;
  float* m = u.exp_avg;
  float* v = u.exp_avg_sq;
  if (u.rounding == adam_rounding::fused_kernel) {
    const auto correction1 = static_cast<float>(1.0 - std::pow(u.beta1, t));
    const auto step_size = static_cast<float>(u.learning_rate / correction1);
    const auto correction2_sqrt = std::sqrt(static_cast<float>(1.0 - std::pow(u.beta2, t)));
    for (std::int64_t i = 0; i < u.count; ++i) {
      const float param = p[i];
      float grad = g[i];
      if (u.weight_decay != 0.0) grad = static_cast<float>(grad + param * u.weight_decay);
      const auto mi = static_cast<float>(u.beta1 * m[i] + (1.0 - u.beta1) * grad);
      const auto vi = static_cast<float>(u.beta2 * v[i] + (1.0 - u.beta2) * grad * grad);
      const auto denom = static_cast<float>(std::sqrt(vi) / correction2_sqrt + u.eps);
      m[i] = mi;
      v[i] = vi;
      p[i] = param - step_size * mi / denom;
    }
    return;
  }
  const auto beta1 = static_cast<float>(u.beta1), beta2 = static_cast<float>(u.beta2);
  const auto eps = static_cast<float>(u.eps), weight_decay = static_cast<float>(u.weight_decay);
  const double correction1 = 1.0 - std::pow(static_cast<double>(beta1), t);
  const auto correction2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(beta2), t)));
  const auto step_size = static_cast<float>(u.learning_rate / correction1);
  for (std::int64_t i = 0; i < u.count; ++i) {
    const float grad = weight_decay != 0.0F ? g[i] + weight_decay * p[i] : g[i];
    const float mi = m[i] + (1.0F - beta1) * (grad - m[i]);
    const float vi = v[i] * beta2 + (1.0F - beta2) * grad * grad;
    m[i] = mi;
    v[i] = vi;
    const float denom = std::sqrt(vi) / correction2_sqrt + eps;
    p[i] -= step_size * (mi / denom);
  }
}

}  // namespace zeroflow::model::detail
