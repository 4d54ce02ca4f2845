// The LightVAE's training step in two kernels (see fused_vae_step.hpp): one block per few beats
// runs forward_beat, the seed's loss and backward_beat on each (fused_vae_forward.cuh,
// fused_vae_backward.cuh), then sum_partials (partial_sums.cuh) adds the blocks' partial gradients.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "fused_vae_backward.cuh"
#include "fused_vae_device.cuh"
#include "fused_vae_forward.cuh"
#include "fused_vae_step.hpp"
#include "light_vae_init.hpp"
#include "partial_sums.cuh"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::model::detail::fused_vae {

namespace {

std::int64_t forward_floats(std::int64_t width) { return beat_floats * width; }
std::int64_t backward_floats(std::int64_t width) { return 6 * width; }

std::int64_t shared_floats(std::int64_t width) {
  return transposed::floats + forward_floats(width) + backward_floats(width) +
         2 * packing(static_cast<int>(width)).total() + small_floats + weight_grad_scratch_floats;
}

struct pointers {
  const float* params[slot_count];
};

// At most 64 registers a thread, so that four blocks share an SM at the default width: a block's
// beat is a chain of short, barrier-separated phases, and more resident blocks hide more of
// their latency than the registers the compiler would otherwise use save.
constexpr int step_blocks_per_sm = 4;

__global__ void __launch_bounds__(threads, step_blocks_per_sm)
    step_kernel(pointers ptr, const float* __restrict__ data, int L, const std::int64_t* __restrict__ rows,
                std::int64_t batch, int rows_per_block, const float* __restrict__ eps,
                float* __restrict__ partial_grads, double* __restrict__ partial_loss) {
  extern __shared__ float shared[];
  const packing pk(L);
  const int P = pk.total();
  float* kw = shared;                       // transposed::floats
  float* prm = kw + transposed::floats;     // P
  float* grd = prm + P;                     // P
  float* gbig = grd + P + beat_floats * L;  // 4·L after the activations: gradients of pre-activations
  float* gsmall = gbig + 4 * L;             // 2·L: gradients of layer inputs (and the heads, forward)
  float* small = gsmall + 2 * L;            // small_floats
  float* lat = small;                       // mu0 mu1 lv0 lv1 z0 z1 e0 e1, then g_mu0 g_mu1 g_lv0 g_lv1
  float* slots = small + 32;                // block_sum
  float* scratch = small + small_floats;    // weight_grad_scratch_floats
  const beat_buffers beat = carve_beat(grd + P, L, gsmall, gbig, lat);  // gbig is free until the loss
  float* x = beat.x;

  const int tid = static_cast<int>(threadIdx.x);
  // The copy stays in the kernel, not in a helper shared with the inference kernel: the register
  // allocation of the whole step follows this loop's shape, and a helper measured 2-10 % slower.
  for (int s = 0; s < slot_count; ++s) {
    const int n = pk.offset[s + 1] - pk.offset[s];
    for (int i = tid; i < n; i += threads) {
      prm[pk.offset[s] + i] = ptr.params[s][i];
      grd[pk.offset[s] + i] = 0.0F;
    }
  }
  transpose_weights(ptr.params, kw);
  __syncthreads();
  const float al = prm[pk.offset[alpha]];
  float galpha = 0;       // this thread's share of α's gradient
  double block_loss = 0;  // thread 0 only

  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block;
  const std::int64_t last = std::min<std::int64_t>(batch, first + rows_per_block);
  for (std::int64_t b = first; b < last; ++b) {
    // ---- forward
    const float* src = data + rows[b] * static_cast<std::int64_t>(L);
    for (int t = tid; t < L; t += threads) x[t] = src[t];
    if (tid < 2) lat[6 + tid] = eps[2 * b + tid];
    __syncthreads();
    forward_beat(beat, L, prm, kw, pk, al, true);

    // ---- loss, and its gradient for the reconstruction (into gbig)
    const float mse = reconstruction_mse(beat, L, gbig, slots);
    if (tid == 0) block_loss += static_cast<double>(mse) + static_cast<double>(kl_term(lat));
    __syncthreads();

    // ---- backward, adding the beat's gradients to the block's sums
    backward_beat(beat, L, prm, kw, grd, pk, al, gbig, gsmall, slots, scratch, galpha);
  }
  const float ga = block_sum(galpha, slots);
  if (tid == 0) grd[pk.offset[alpha]] += ga;
  __syncthreads();
  float* out = partial_grads + static_cast<std::int64_t>(blockIdx.x) * P;
  for (int i = tid; i < P; i += threads) out[i] = grd[i];
  if (tid == 0) partial_loss[blockIdx.x] = block_loss;
}

/// The step's loss joins the running total of the epoch.
struct add_loss {
  double* total;
  __device__ void operator()(double sum) const { *total += sum; }
};

}  // namespace

bool supported_width(std::int64_t width) { return is_light_vae_width(width) && width <= 1024; }

std::int64_t launch_plan::partial_floats(std::int64_t width) const {
  return static_cast<std::int64_t>(blocks) * packing(static_cast<int>(width)).total();
}

launch_plan plan(std::int64_t batch, std::int64_t width) {
  ZF_EXPECTS(supported_width(width), "fused VAE step: width must be a power of two in [16, 1024], got ", width);
  ZF_EXPECTS(batch >= 1, "fused VAE step: batch must be >= 1, got ", batch);
  launch_plan p;
  p.shared_bytes = shared_floats(width) * static_cast<std::int64_t>(sizeof(float));
  int device = 0, sms = 0, per_sm = 0;
  ZF_CUDA_TRY(cudaGetDevice(&device));
  ZF_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  ZF_CUDA_TRY(
      cudaFuncSetAttribute(step_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(p.shared_bytes)));
  ZF_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, step_kernel, threads,
                                                            static_cast<std::size_t>(p.shared_bytes)));
  ZF_EXPECTS(per_sm >= 1, "fused VAE step: width ", width, " needs ", p.shared_bytes,
             " bytes of shared memory per block, more than this GPU has");
  const std::int64_t resident = static_cast<std::int64_t>(sms) * per_sm;
  p.rows_per_block = static_cast<int>((batch + resident - 1) / resident);
  p.blocks = static_cast<int>((batch + p.rows_per_block - 1) / p.rows_per_block);
  return p;
}

void train_step(const step_args& a, const launch_plan& p, stream_view stream) {
  ZF_EXPECTS(
      supported_width(a.width) && p.blocks >= 1 && static_cast<std::int64_t>(p.blocks) * p.rows_per_block >= a.batch,
      "fused VAE step: the launch plan does not fit batch ", a.batch, " and width ", a.width);
  pointers ptr{};
  gradient_slots<slot_count> to{};
  for (int s = 0; s < slot_count; ++s) {
    ptr.params[s] = a.params[s];
    to.grads[s] = a.grads[s];
  }
  const int L = static_cast<int>(a.width);
  step_kernel<<<p.blocks, threads, static_cast<std::size_t>(p.shared_bytes), stream.value()>>>(
      ptr, a.data, L, a.rows, a.batch, p.rows_per_block, a.eps, a.partial_grads, a.partial_loss);
  ZF_CUDA_TRY(cudaGetLastError());
  const packing pk(L);
  for (int s = 0; s <= slot_count; ++s) to.offset[s] = pk.offset[s];
  sum_partials<<<partial_sum_blocks(pk.total()), partial_sum_threads, 0, stream.value()>>>(
      to, p.blocks, a.partial_grads, a.partial_loss, add_loss{a.loss_total});
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::model::detail::fused_vae
