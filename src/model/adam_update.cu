/// @file adam_update.cu
/// The Adam update kernel (adam_update.hpp).
#include <cuda_runtime.h>

#include "adam_update.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/detail/cuda_launch.hpp"

namespace zeroflow::model::detail {

namespace {

constexpr int block = 256;

/// Every thread works the constants out from the device step count, so that a replayed graph
/// updates with the step it has reached.
__global__ void adam_kernel(adam_update u) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i >= u.count) return;
  adam_element(u.params[i], u.grads[i], u.exp_avg[i], u.exp_avg_sq[i], adam_constants_at(u, *u.step));
}

__global__ void count_step(float* step) { *step += 1.0F; }

}  // namespace

void queue_adam_update(const adam_update& u, stream_view stream) {
  if (u.count == 0) return;
  adam_kernel<<<zeroflow::detail::launch::tiles_for(u.count, block), block, 0, stream.value()>>>(u);
  ZF_CUDA_TRY(cudaGetLastError());
}

void queue_adam_step_count(float* step, stream_view stream) {
  count_step<<<1, 1, 0, stream.value()>>>(step);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::model::detail
