/// @file adam_update.cu
/// The Adam update kernel (adam_update.hpp).
#include <cuda_runtime.h>

#include <algorithm>

#include "adam_update.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"

namespace zeroflow::model::detail {

namespace {

constexpr int block = 256;

/// adam_rounding::per_tensor_ops: float throughout, the bias corrections in double.
__global__ void adam_per_tensor_ops(float* __restrict__ p, const float* __restrict__ g, float* __restrict__ m,
                                    float* __restrict__ v, const float* __restrict__ step, std::int64_t n, double lr,
                                    float weight_decay, float beta1, float beta2, float eps) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const double t = *step;
  const double correction1 = 1.0 - pow(static_cast<double>(beta1), t);
  const double correction2_sqrt = sqrt(1.0 - pow(static_cast<double>(beta2), t));
  const float grad = weight_decay != 0.0F ? g[i] + weight_decay * p[i] : g[i];
  const float mi = m[i] + (1.0F - beta1) * (grad - m[i]);
  const float vi = v[i] * beta2 + (1.0F - beta2) * grad * grad;
  m[i] = mi;
  v[i] = vi;
  const float denom = sqrtf(vi) / static_cast<float>(correction2_sqrt) + eps;
  p[i] -= static_cast<float>(lr / correction1) * (mi / denom);
}

/// adam_rounding::fused_kernel: the hyper-parameters are doubles, so every expression that meets
/// one is evaluated in double and rounded to float when stored; the rest is float.
__global__ void adam_fused_kernel_rounding(float* __restrict__ p, const float* __restrict__ g, float* __restrict__ m,
                                           float* __restrict__ v, const float* __restrict__ step, std::int64_t n,
                                           double lr, double weight_decay, double beta1, double beta2, double eps) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const double t = *step;
  const float param = p[i];
  float grad = g[i];
  if (weight_decay != 0.0) grad = static_cast<float>(grad + param * weight_decay);
  const auto mi = static_cast<float>(beta1 * m[i] + (1.0 - beta1) * grad);
  const auto vi = static_cast<float>(beta2 * v[i] + (1.0 - beta2) * grad * grad);
  const auto correction1 = static_cast<float>(1.0 - pow(beta1, t));
  const auto step_size = static_cast<float>(lr / correction1);
  const auto correction2 = static_cast<float>(1.0 - pow(beta2, t));
  const float correction2_sqrt = sqrtf(correction2);
  const auto denom = static_cast<float>(sqrtf(vi) / correction2_sqrt + eps);
  m[i] = mi;
  v[i] = vi;
  p[i] = param - step_size * mi / denom;
}

__global__ void count_step(float* step) { *step += 1.0F; }

}  // namespace

void queue_adam_update(const adam_update& u, stream_view stream) {
  if (u.count == 0) return;
  const auto blocks = static_cast<unsigned>(std::max<std::int64_t>(1, (u.count + block - 1) / block));
  if (u.rounding == adam_rounding::fused_kernel) {
    adam_fused_kernel_rounding<<<blocks, block, 0, stream.value()>>>(u.params, u.grads, u.exp_avg, u.exp_avg_sq, u.step,
                                                                     u.count, u.learning_rate, u.weight_decay, u.beta1,
                                                                     u.beta2, u.eps);
  } else {
    adam_per_tensor_ops<<<blocks, block, 0, stream.value()>>>(
        u.params, u.grads, u.exp_avg, u.exp_avg_sq, u.step, u.count, u.learning_rate,
        static_cast<float>(u.weight_decay), static_cast<float>(u.beta1), static_cast<float>(u.beta2),
        static_cast<float>(u.eps));
  }
  ZF_CUDA_TRY(cudaGetLastError());
}

void queue_adam_step_count(float* step, stream_view stream) {
  count_step<<<1, 1, 0, stream.value()>>>(step);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::model::detail
