// The second kernel of both fused training steps (fused_vae_step.cu, fused_mlp_step.cu): the step
// blocks each leave a partial gradient and a partial loss; this adds them in a fixed order, so a
// step's result does not depend on how the blocks were scheduled.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace zeroflow::model::detail {

constexpr int partial_sum_threads = 256;

/// Where each packed parameter's summed gradient goes: slot s holds [offset[s], offset[s + 1]).
template <int Slots>
struct gradient_slots {
  float* grads[Slots];
  int offset[Slots + 1];
};

/// Blocks of sum_partials for `parameters` packed parameters: one per 32, then one for the loss.
inline int partial_sum_blocks(int parameters) { return (parameters + 31) / 32 + 1; }

/// Adds the step blocks' partial gradients, 32 consecutive parameters per block so that every read
/// is coalesced: warp w adds step blocks w, w + 8, ... in order, then one thread per parameter adds
/// the warps' sums in warp order. The grid's last block adds the blocks' losses (lanes over blocks,
/// then a fixed shuffle tree) and hands the sum to `finish`, on one thread.
template <int Slots, class Finish>
__global__ void __launch_bounds__(partial_sum_threads)
    sum_partials(gradient_slots<Slots> to, int blocks, const float* __restrict__ partial_grads,
                 const double* __restrict__ partial_loss, Finish finish) {
  constexpr int warps = partial_sum_threads / 32;
  __shared__ double warp_sums[warps][32];
  const int total = to.offset[Slots];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  if (static_cast<int>(blockIdx.x) == gridDim.x - 1) {
    if (warp == 0) {
      double acc = 0;
      for (int b = lane; b < blocks; b += 32) acc += partial_loss[b];
      for (int d = 16; d > 0; d /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, d);
      if (lane == 0) finish(acc);
    }
    return;
  }
  const int p = static_cast<int>(blockIdx.x) * 32 + lane;
  double acc = 0;
  if (p < total)
    for (int b = warp; b < blocks; b += warps) acc += partial_grads[static_cast<std::int64_t>(b) * total + p];
  warp_sums[warp][lane] = acc;
  __syncthreads();
  if (warp == 0 && p < total) {
    double sum = 0;
    for (int w = 0; w < warps; ++w) sum += warp_sums[w][lane];
    int s = 0;
    while (to.offset[s + 1] <= p) ++s;
    to.grads[s][p - to.offset[s]] = static_cast<float>(sum);
  }
}

}  // namespace zeroflow::model::detail
