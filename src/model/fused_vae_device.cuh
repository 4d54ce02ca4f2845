#pragma once
// Device code shared by the fused LightVAE kernels (fused_vae_step.cu, fused_vae_inference.cu):
// the launch shape, the weights' transposed layout, block reductions, the convolutions' inputs and
// the layout of one beat's activations in shared memory. The passes over one beat are in
// fused_vae_forward.cuh (forward_beat) and fused_vae_backward.cuh (backward_beat).
//
// Notation for one beat of L samples (L = width), channels × length:
//   x 1×L → a0 = conv0(x) 4×L → d0 = down(swish(a0)) 4×L/2 → a1 = conv1(d0) 8×L/2
//   → d1 = down(swish(a1)) 8×L/4 → a2 = conv2(d1) 16×L/4 → d2 = down(swish(a2)) 16×L/8
//   → mu = mean_t convA(d2), logvar = mean_t convB(d2) (2 each) → z = mu + eps·exp(logvar/2)
//   → r = restore(z) viewed 8×L/8 → a3 = conv3(up(r)) 4×L/4 → a4 = conv4(up(swish(a3))) 2×L/2
//   → a5 = conv5(up(swish(a4))) 1×L = the reconstruction.
// conv = Conv1d(k=3, stride 1, padding 1); down = the seed's depthwise [1, 2, 1] filter, stride 2,
// padding 1; up = nearest-neighbour ×2; swish(a) = a·σ(α·a) with one α shared by all layers.
// Loss per beat: mean_t (a5 − x)² − 0.1·mean_c (1 + logvar − mu² − exp(logvar)).
//
// Shared memory per training block: the convolutions' weights transposed (transposed::floats), the
// packed parameters, their gradient sums, the beat's forward activations (beat_floats·L = 25·L
// floats), two backward buffers (4·L and 2·L) and a reduction scratch, i.e. 31·L + 2·P floats and
// change (P = 850 + 3·L parameters): 52 KB at L = 256.
#include <cuda_runtime.h>

#include <cstdint>

#include "fused_vae_step.hpp"

namespace zeroflow::model::detail::fused_vae {

constexpr int threads = 256;
constexpr int warps = threads / 32;

constexpr int small_floats = 64;  // latents, noise, reduction slots

// ---- the convolutions' weights, transposed for the kernels -------------------------------------

/// A thread of a convolution computes a few consecutive channels at one position (conv_forward,
/// and conv_input_grads through it), so that the inputs it reads serve all of them. The weights
/// those channels need at one tap are then one vector load when they lie side by side: the
/// kernels keep a copy of every convolution's weights in shared memory with the channels they
/// compute innermost — forward [i][k][o] for the outputs, backward [o][2−k][i] for the input
/// gradients (the kernel flipped: a convolution of the output's gradient; LibTorch's layout is
/// [o][i][k]). The encoder's two heads, convA and convB, are one forward convolution of
/// four outputs (mu0 mu1 lv0 lv1), with their biases beside it. Offsets in floats, each a multiple
/// of 4 (16-byte vector loads); the region starts the block's shared memory.
namespace transposed {
/// Floats of a convolution's weights, padded to a whole vector.
constexpr int weights(int cin, int cout) { return (cin * cout * 3 + 3) / 4 * 4; }
constexpr int conv0 = 0;                            // forward 1 → 4
constexpr int conv1 = conv0 + weights(1, 4);        // forward 4 → 8
constexpr int conv2 = conv1 + weights(4, 8);        // forward 8 → 16
constexpr int heads = conv2 + weights(8, 16);       // forward 16 → 4
constexpr int heads_bias = heads + weights(16, 4);  // 4
constexpr int conv3 = heads_bias + 4;               // forward 8 → 4
constexpr int conv4 = conv3 + weights(8, 4);        // forward 4 → 2
constexpr int conv5 = conv4 + weights(4, 2);        // forward 2 → 1
constexpr int conv5_back = conv5 + weights(2, 1);   // backward of 2 → 1
constexpr int conv4_back = conv5_back + weights(2, 1);
constexpr int conv3_back = conv4_back + weights(4, 2);
constexpr int conv2_back = conv3_back + weights(8, 4);
constexpr int conv1_back = conv2_back + weights(8, 16);
constexpr int floats = conv1_back + weights(4, 8);
}  // namespace transposed

/// Copies conv weights w [cout, cin, 3] into the forward layout at `forward` (output channel o
/// at position first + o of a row of `stride`) and, when given, the backward layout (the kernel
/// flipped) at `backward`.
template <int cin, int cout>
__device__ void transpose_conv(const float* __restrict__ w, float* forward, int stride, int first, float* backward) {
  for (int idx = static_cast<int>(threadIdx.x); idx < cout * cin * 3; idx += blockDim.x) {
    const int o = idx / (cin * 3), i = idx % (cin * 3) / 3, k = idx % 3;
    const float v = w[idx];
    forward[(i * 3 + k) * stride + first + o] = v;
    if (backward != nullptr) backward[(o * 3 + 2 - k) * cin + i] = v;
  }
}

/// The kernels' copy of every convolution's weights (the layout above) from the parameters in
/// global memory; the caller synchronises.
__device__ inline void transpose_weights(const float* const* params, float* kw) {
  namespace t = transposed;
  transpose_conv<1, 4>(params[conv0_w], kw + t::conv0, 4, 0, nullptr);
  transpose_conv<4, 8>(params[conv1_w], kw + t::conv1, 8, 0, kw + t::conv1_back);
  transpose_conv<8, 16>(params[conv2_w], kw + t::conv2, 16, 0, kw + t::conv2_back);
  transpose_conv<16, 2>(params[convA_w], kw + t::heads, 4, 0, nullptr);
  transpose_conv<16, 2>(params[convB_w], kw + t::heads, 4, 2, nullptr);
  transpose_conv<8, 4>(params[conv3_w], kw + t::conv3, 4, 0, kw + t::conv3_back);
  transpose_conv<4, 2>(params[conv4_w], kw + t::conv4, 2, 0, kw + t::conv4_back);
  transpose_conv<2, 1>(params[conv5_w], kw + t::conv5, 1, 0, kw + t::conv5_back);
  const int tid = static_cast<int>(threadIdx.x);
  if (tid < 4) kw[t::heads_bias + tid] = tid < 2 ? params[convA_b][tid] : params[convB_b][tid - 2];
}

/// The channels a convolution's thread computes together: up to four (one vector load).
template <int channels>
constexpr int channel_group = channels < 4 ? channels : 4;

/// n consecutive floats from shared memory at p, aligned to n floats: one vector load.
template <int n>
__device__ __forceinline__ void load_vector(const float* p, float (&v)[n]) {
  if constexpr (n == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else if constexpr (n == 2) {
    const float2 q = *reinterpret_cast<const float2*>(p);
    v[0] = q.x, v[1] = q.y;
  } else {
    static_assert(n == 1, "vector loads of 1, 2 or 4 floats");
    v[0] = *p;
  }
}

/// Floats of a beat's forward activations per sample of width (carve_beat's layout).
constexpr int beat_floats = 25;

/// Floats of the scratch that conv_weight_grads adds its partial sums through: a warp's sums
/// for one output channel, 3·cin + 1 ≤ 25 of them, for each warp.
constexpr int weight_grad_scratch_floats = warps * 32;

// σ(v) as LibTorch computes it.
__device__ __forceinline__ float sigmoid(float v) { return 1.0F / (1.0F + expf(-v)); }
__device__ __forceinline__ float swish(float a, float alpha_value) { return a * sigmoid(alpha_value * a); }

__device__ __forceinline__ float warp_sum(float v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

/// Σ of every thread's v, returned to all threads (fixed order: warps, then warp 0 over warps).
__device__ inline float block_sum(float v, float* slots) {
  v = warp_sum(v);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  __syncthreads();  // slots may still be read from the previous call
  if (lane == 0) slots[warp] = v;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < warps; ++w) total += slots[w];
  return total;
}

/// Channel and position of element idx of a channels × n buffer. n is a power of two (every width
/// the kernels take, and its halves), so a shift and a mask do what an integer division by a
/// runtime n would do in some twenty instructions, once per element of every layer.
struct element {
  int channel, position;
};
__device__ __forceinline__ element element_at(int idx, int n) {
  const int shift = __ffs(n) - 1;
  return {idx >> shift, idx & (n - 1)};
}

// ---- inputs of the convolutions, zero outside [0, n) -------------------------------------------

/// A kernel-3 convolution's inputs of one channel around a position t: in(c, t−1), in(c, t),
/// in(c, t + 1).
struct taps {
  float before, here, after;
};

/// Channels × n floats. at(t) works out the edges and the offset once for a position (0 ≤ t < n);
/// the taps of each channel are then three loads.
struct plain_input {
  const float* p;
  int n;
  struct around {
    const float* here;
    int n;
    bool before, after;
    __device__ taps operator()(int c) const {
      const float* q = here + c * n;
      return {before ? q[-1] : 0.0F, q[0], after ? q[1] : 0.0F};
    }
  };
  __device__ around at(int t) const { return {p + t, n, t > 0, t + 1 < n}; }
};

/// up(v) of a channels × n/2 buffer, n = twice its length: in(c, j) = v(c, j / 2).
struct upsampled_input {
  const float* p;
  int half;  // length of p's rows
  struct around {
    const float* p;
    int half, before, here, after;  // offsets of the taps in a row
    bool has_before, has_after;
    __device__ taps operator()(int c) const {
      const float* q = p + c * half;
      return {has_before ? q[before] : 0.0F, q[here], has_after ? q[after] : 0.0F};
    }
  };
  __device__ around at(int t) const { return {p, half, (t - 1) >> 1, t >> 1, (t + 1) >> 1, t > 0, t + 1 < 2 * half}; }
};

// ---- one beat's activations ----------------------------------------------------------------

/// One beat's activations in shared memory (laid out by carve_beat).
struct beat_buffers {
  float *x, *a0, *d0, *a1, *d1, *a2, *d2, *r, *a3, *a4, *a5;
  float *s3, *s4;  ///< swish(a3) and swish(a4): the decoder reads each several times, forward and backward
  float* heads;    ///< 4 × L/8: convA's and convB's outputs before their means
  float* swished;  ///< 4·L: swish of one encoder layer (a0, a1 or a2) until its smoothing has read it
  float* lat;      ///< mu0 mu1 lv0 lv1 z0 z1 e0 e1 (e: the noise, read when `sample`)
};

/// Lays one beat's forward activations out from `base` (beat_floats·L floats: x 1·L, a0 4·L,
/// d0 2·L, a1 4·L, d1 2·L, a2 4·L, d2 2·L, r L, a3 L, a4 L, a5 L, s3 L, s4 L); heads and lat
/// are the caller's.
__device__ inline beat_buffers carve_beat(float* base, int L, float* heads, float* swished, float* lat) {
  beat_buffers b{};
  b.x = base;
  b.a0 = b.x + L;
  b.d0 = b.a0 + 4 * L;
  b.a1 = b.d0 + 2 * L;
  b.d1 = b.a1 + 4 * L;
  b.a2 = b.d1 + 2 * L;
  b.d2 = b.a2 + 4 * L;
  b.r = b.d2 + 2 * L;
  b.a3 = b.r + L;
  b.a4 = b.a3 + L;
  b.a5 = b.a4 + L;
  b.s3 = b.a5 + L;
  b.s4 = b.s3 + L;
  b.heads = heads;
  b.swished = swished;
  b.lat = lat;
  return b;
}

}  // namespace zeroflow::model::detail::fused_vae
