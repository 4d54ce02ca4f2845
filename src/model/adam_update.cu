/// @file adam_update.cu
/// The Adam update kernel (adam_update.hpp).
#include <cuda_runtime.h>

#include <algorithm>

#include "adam_update.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"

namespace zeroflow::model::detail {

namespace {

constexpr int block = 256;

__global__ void adam_kernel(float* __restrict__ p, const float* __restrict__ g, float* __restrict__ m,
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

__global__ void count_step(float* step) { *step += 1.0F; }

}  // namespace

void queue_adam_update(const adam_update& u, stream_view stream) {
  if (u.count == 0) return;
  const auto blocks = static_cast<unsigned>(std::max<std::int64_t>(1, (u.count + block - 1) / block));
  adam_kernel<<<blocks, block, 0, stream.value()>>>(u.params, u.grads, u.exp_avg, u.exp_avg_sq, u.step, u.count,
                                                    u.learning_rate, static_cast<float>(u.weight_decay), u.beta1,
                                                    u.beta2, u.eps);
  ZF_CUDA_TRY(cudaGetLastError());
}

void queue_adam_step_count(float* step, stream_view stream) {
  count_step<<<1, 1, 0, stream.value()>>>(step);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::model::detail
