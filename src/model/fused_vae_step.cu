// The LightVAE's training step in two kernels (see fused_vae_step.hpp).
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
// Shared memory per block: the packed parameters, their gradient sums, the beat's forward
// activations (23·L floats) and two backward buffers (4·L and 2·L), i.e. 29·L + 2·P floats
// (P = 850 + 3·L parameters): 45 KB at L = 256.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "fused_vae_step.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::model::detail::fused_vae {

namespace {

constexpr int threads = 256;
constexpr int warps = threads / 32;
constexpr int reduce_threads = 256;

__host__ __device__ constexpr std::int64_t size_of_slot(int s, std::int64_t width) {
  switch (s) {
    case conv0_w: return 4 * 1 * 3;
    case conv0_b: return 4;
    case conv1_w: return 8 * 4 * 3;
    case conv1_b: return 8;
    case conv2_w: return 16 * 8 * 3;
    case conv2_b: return 16;
    case convA_w:
    case convB_w: return 2 * 16 * 3;
    case convA_b:
    case convB_b: return 2;
    case restore_w: return 2 * width;
    case restore_b: return width;
    case conv3_w: return 4 * 8 * 3;
    case conv3_b: return 4;
    case conv4_w: return 2 * 4 * 3;
    case conv4_b: return 2;
    case conv5_w: return 1 * 2 * 3;
    case conv5_b: return 1;
    case alpha: return 1;
    default: return 0;
  }
}

/// Offsets of the slots in the packed parameter vector; offset[slot_count] = P.
struct packing {
  int offset[slot_count + 1];
  __host__ __device__ explicit packing(int width) {
    offset[0] = 0;
    for (int s = 0; s < slot_count; ++s) offset[s + 1] = offset[s] + static_cast<int>(size_of_slot(s, width));
  }
  __host__ __device__ int total() const { return offset[slot_count]; }
};

std::int64_t forward_floats(std::int64_t width) { return 23 * width; }
std::int64_t backward_floats(std::int64_t width) { return 6 * width; }
constexpr int small_floats = 64;  // latents, noise, reduction slots

std::int64_t shared_floats(std::int64_t width) {
  return forward_floats(width) + backward_floats(width) + 2 * packing(static_cast<int>(width)).total() + small_floats;
}

// σ(v) as LibTorch computes it.
__device__ __forceinline__ float sigmoid(float v) { return 1.0F / (1.0F + expf(-v)); }
__device__ __forceinline__ float swish(float a, float alpha_value) { return a * sigmoid(alpha_value * a); }

__device__ __forceinline__ float warp_sum(float v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

/// Σ of every thread's v, returned to all threads (fixed order: warps, then warp 0 over warps).
__device__ float block_sum(float v, float* slots) {
  v = warp_sum(v);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  __syncthreads();  // slots may still be read from the previous call
  if (lane == 0) slots[warp] = v;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < warps; ++w) total += slots[w];
  return total;
}

// ---- inputs of the convolutions, zero outside [0, n) -------------------------------------------

/// Channels × n floats.
struct plain_input {
  const float* p;
  int n;
  __device__ float operator()(int c, int j) const { return (j < 0 || j >= n) ? 0.0F : p[c * n + j]; }
};

/// up(v) of a channels × n/2 buffer, n = twice its length; `activate` applies swish first.
template <bool activate>
struct upsampled_input {
  const float* p;
  int half;  // length of p's rows
  float alpha_value;
  __device__ float operator()(int c, int j) const {
    if (j < 0 || j >= 2 * half) return 0.0F;
    const float v = p[c * half + j / 2];
    return activate ? swish(v, alpha_value) : v;
  }
};

// ---- forward -----------------------------------------------------------------------------------

/// out (cout × n) = conv(in) with weights w [cout, cin, 3] and bias b.
template <int cin, int cout, class In>
__device__ void conv_forward(const In& in, int n, const float* w, const float* b, float* out) {
  for (int idx = static_cast<int>(threadIdx.x); idx < cout * n; idx += threads) {
    const int o = idx / n, t = idx - o * n;
    float acc = b[o];
#pragma unroll
    for (int i = 0; i < cin; ++i) {
      const float* k = w + (o * cin + i) * 3;
      acc += k[0] * in(i, t - 1) + k[1] * in(i, t) + k[2] * in(i, t + 1);
    }
    out[idx] = acc;
  }
}

/// d (c × n/2) = down(swish(a)) for a (c × n).
template <int c>
__device__ void swish_down(const float* a, int n, float alpha_value, float* d) {
  const int half = n / 2;
  for (int idx = static_cast<int>(threadIdx.x); idx < c * half; idx += threads) {
    const int ch = idx / half, t = idx - ch * half;
    const float* row = a + ch * n;
    const int j = 2 * t;
    const float left = j > 0 ? swish(row[j - 1], alpha_value) : 0.0F;
    d[idx] = left + 2.0F * swish(row[j], alpha_value) + swish(row[j + 1], alpha_value);
  }
}

// ---- backward ----------------------------------------------------------------------------------

/// Weight and bias gradients of a convolution, added to gw/gb (owned by this block):
/// gw[o,i,k] += Σ_t g[o,t]·in(i, t+k−1), gb[o] += Σ_t g[o,t]. One warp per weight, lanes over t.
template <int cin, int cout, class In>
__device__ void conv_weight_grads(const In& in, const float* g, int n, float* gw, float* gb) {
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  constexpr int weights = cout * cin * 3;
  for (int task = warp; task < weights + cout; task += warps) {
    float acc = 0;
    if (task < weights) {
      const int o = task / (cin * 3), i = (task / 3) % cin, k = task % 3;
      for (int t = lane; t < n; t += 32) acc += g[o * n + t] * in(i, t + k - 1);
    } else {
      const int o = task - weights;
      for (int t = lane; t < n; t += 32) acc += g[o * n + t];
    }
    acc = warp_sum(acc);
    if (lane == 0) {
      if (task < weights) {
        gw[task] += acc;
      } else {
        gb[task - weights] += acc;
      }
    }
  }
}

/// gin (cin × n) = the gradient of conv's input: Σ_o Σ_k w[o,i,k]·g[o, j+1−k].
template <int cin, int cout>
__device__ void conv_input_grads(const float* g, int n, const float* w, float* gin) {
  const plain_input go{g, n};
  for (int idx = static_cast<int>(threadIdx.x); idx < cin * n; idx += threads) {
    const int i = idx / n, j = idx - i * n;
    float acc = 0;
#pragma unroll
    for (int o = 0; o < cout; ++o) {
      const float* k = w + (o * cin + i) * 3;
      acc += k[0] * go(o, j + 1) + k[1] * go(o, j) + k[2] * go(o, j - 1);
    }
    gin[idx] = acc;
  }
}

/// Through swish at pre-activation a: ga = gs·(σ + α·a·σ(1−σ)); α's gradient gs·a²·σ(1−σ) is
/// added to the thread's running sum.
__device__ __forceinline__ float swish_backward(float gs, float a, float alpha_value, float& galpha) {
  const float s = sigmoid(alpha_value * a);
  const float ds = s * (1.0F - s);
  galpha += gs * a * a * ds;
  return gs * (s + alpha_value * a * ds);
}

/// ga (c × n) from the gradient gu (c × 2n) of up(swish(a)).
template <int c>
__device__ void up_swish_backward(const float* gu, const float* a, int n, float alpha_value, float* ga, float& galpha) {
  for (int idx = static_cast<int>(threadIdx.x); idx < c * n; idx += threads) {
    const int ch = idx / n, t = idx - ch * n;
    const float gs = gu[ch * 2 * n + 2 * t] + gu[ch * 2 * n + 2 * t + 1];
    ga[idx] = swish_backward(gs, a[idx], alpha_value, galpha);
  }
}

/// ga (c × n) from the gradient gd (c × n/2) of down(swish(a)): sample 2t feeds output t with
/// weight 2, sample 2t+1 feeds outputs t and t+1 with weight 1.
template <int c>
__device__ void down_swish_backward(const float* gd, const float* a, int n, float alpha_value, float* ga,
                                    float& galpha) {
  const int half = n / 2;
  for (int idx = static_cast<int>(threadIdx.x); idx < c * n; idx += threads) {
    const int ch = idx / n, j = idx - ch * n, t = j / 2;
    const float* g = gd + ch * half;
    const float gs = (j % 2 == 0) ? 2.0F * g[t] : g[t] + (t + 1 < half ? g[t + 1] : 0.0F);
    ga[idx] = swish_backward(gs, a[idx], alpha_value, galpha);
  }
}

// ---- the forward pass of one beat ------------------------------------------------------------

/// One beat's activations in shared memory (layout in the kernels below).
struct beat_buffers {
  float *x, *a0, *d0, *a1, *d1, *a2, *d2, *r, *a3, *a4, *a5;
  float* heads;  ///< 4 × L/8: convA's and convB's outputs before their means
  float* lat;    ///< mu0 mu1 lv0 lv1 z0 z1 e0 e1 (e: the noise, read when `sample`)
};

/// Lays one beat's forward activations out from `base` (23·L floats: x 1·L, a0 4·L, d0 2·L, a1 4·L,
/// d1 2·L, a2 4·L, d2 2·L, r L, a3 L, a4 L, a5 L); heads and lat are the caller's.
__device__ beat_buffers carve_beat(float* base, int L, float* heads, float* lat) {
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
  b.heads = heads;
  b.lat = lat;
  return b;
}

/// x (in b.x, loaded and synchronised by the caller) → the encoder's activations and the latents
/// mu0 mu1 lv0 lv1 in lat[0..3].
__device__ void encode_beat(const beat_buffers& b, int L, const float* prm, const packing& pk, float al) {
  const int tid = static_cast<int>(threadIdx.x);
  const int L2 = L / 2, L4 = L / 4, L8 = L / 8;
  auto W = [&](int s) { return prm + pk.offset[s]; };
  conv_forward<1, 4>(plain_input{b.x, L}, L, W(conv0_w), W(conv0_b), b.a0);
  __syncthreads();
  swish_down<4>(b.a0, L, al, b.d0);
  __syncthreads();
  conv_forward<4, 8>(plain_input{b.d0, L2}, L2, W(conv1_w), W(conv1_b), b.a1);
  __syncthreads();
  swish_down<8>(b.a1, L2, al, b.d1);
  __syncthreads();
  conv_forward<8, 16>(plain_input{b.d1, L4}, L4, W(conv2_w), W(conv2_b), b.a2);
  __syncthreads();
  swish_down<16>(b.a2, L4, al, b.d2);
  __syncthreads();
  // convA and convB side by side (4 × L/8), then their means.
  conv_forward<16, 2>(plain_input{b.d2, L8}, L8, W(convA_w), W(convA_b), b.heads);
  conv_forward<16, 2>(plain_input{b.d2, L8}, L8, W(convB_w), W(convB_b), b.heads + 2 * L8);
  __syncthreads();
  const int warp = tid / 32, lane = tid % 32;
  if (warp < 4) {
    float acc = 0;
    for (int t = lane; t < L8; t += 32) acc += b.heads[warp * L8 + t];
    acc = warp_sum(acc);
    if (lane == 0) b.lat[warp] = acc / static_cast<float>(L8);
  }
  __syncthreads();
}

/// z = mu + e·exp(logvar/2) when `sample` (e in lat[6..7]), else z = mu exactly, into lat[4..5].
__device__ void choose_latent(float* lat, bool sample) {
  const int tid = static_cast<int>(threadIdx.x);
  if (tid < 2) lat[4 + tid] = sample ? lat[tid] + lat[6 + tid] * expf(0.5F * lat[2 + tid]) : lat[tid];
  __syncthreads();
}

/// The latent z in lat[4..5] → the decoder's activations and the reconstruction a5.
__device__ void decode_beat(const beat_buffers& b, int L, const float* prm, const packing& pk, float al) {
  const int tid = static_cast<int>(threadIdx.x);
  const int L2 = L / 2, L4 = L / 4, L8 = L / 8;
  auto W = [&](int s) { return prm + pk.offset[s]; };
  {
    const float z0 = b.lat[4], z1 = b.lat[5];
    const float* rw = W(restore_w);
    const float* rb = W(restore_b);
    for (int j = tid; j < L; j += threads) b.r[j] = rb[j] + rw[2 * j] * z0 + rw[2 * j + 1] * z1;
  }
  __syncthreads();
  conv_forward<8, 4>(upsampled_input<false>{b.r, L8, al}, L4, W(conv3_w), W(conv3_b), b.a3);
  __syncthreads();
  conv_forward<4, 2>(upsampled_input<true>{b.a3, L4, al}, L2, W(conv4_w), W(conv4_b), b.a4);
  __syncthreads();
  conv_forward<2, 1>(upsampled_input<true>{b.a4, L2, al}, L, W(conv5_w), W(conv5_b), b.a5);
  __syncthreads();
}

/// x (in b.x, loaded and synchronised by the caller) → every activation, the latents and the
/// reconstruction a5. z = mu + e·exp(logvar/2) when `sample`, else z = mu exactly (scoring).
__device__ void forward_beat(const beat_buffers& b, int L, const float* prm, const packing& pk, float al,
                             bool sample) {
  encode_beat(b, L, prm, pk, al);
  choose_latent(b.lat, sample);
  decode_beat(b, L, prm, pk, al);
}

/// The seed's KL term of one beat, −0.1 · mean_c (1 + logvar − mu² − e^logvar), from lat[0..3].
__device__ float kl_term(const float* lat) {
  float kl = 0;
  for (int c = 0; c < 2; ++c) kl += 1.0F + lat[2 + c] - lat[c] * lat[c] - expf(lat[2 + c]);
  return -0.1F * (kl / 2.0F);
}

/// mean_t (a5 − x)², returned to every thread; with `grad`, also its gradient 2(a5 − x)/L.
__device__ float reconstruction_mse(const beat_buffers& b, int L, float* grad, float* slots) {
  float sq = 0;
  for (int t = static_cast<int>(threadIdx.x); t < L; t += threads) {
    const float e = b.a5[t] - b.x[t];
    sq += e * e;
    if (grad != nullptr) grad[t] = 2.0F * e / static_cast<float>(L);
  }
  return block_sum(sq, slots) / static_cast<float>(L);
}

// ---- the step ----------------------------------------------------------------------------------

struct pointers {
  const float* params[slot_count];
  float* grads[slot_count];
};

__global__ void __launch_bounds__(threads)
    step_kernel(pointers ptr, const float* __restrict__ data, int L, const std::int64_t* __restrict__ rows,
                std::int64_t batch, int rows_per_block, const float* __restrict__ eps,
                float* __restrict__ partial_grads, double* __restrict__ partial_loss) {
  extern __shared__ float shared[];
  const packing pk(L);
  const int P = pk.total();
  float* prm = shared;                    // P
  float* grd = prm + P;                   // P
  float* gbig = grd + P + 23 * L;         // 4·L after the activations: gradients of pre-activations
  float* gsmall = gbig + 4 * L;           // 2·L: gradients of layer inputs (and the heads, forward)
  float* small = gsmall + 2 * L;          // small_floats
  float* lat = small;                     // mu0 mu1 lv0 lv1 z0 z1 e0 e1, then g_mu0 g_mu1 g_lv0 g_lv1
  float* slots = small + 32;              // block_sum
  const beat_buffers beat = carve_beat(grd + P, L, gsmall, lat);
  float *x = beat.x, *a0 = beat.a0, *d0 = beat.d0, *a1 = beat.a1, *d1 = beat.d1, *a2 = beat.a2, *d2 = beat.d2,
        *r = beat.r, *a3 = beat.a3, *a4 = beat.a4;

  const int tid = static_cast<int>(threadIdx.x);
  for (int s = 0; s < slot_count; ++s) {
    const int n = pk.offset[s + 1] - pk.offset[s];
    for (int i = tid; i < n; i += threads) {
      prm[pk.offset[s] + i] = ptr.params[s][i];
      grd[pk.offset[s] + i] = 0.0F;
    }
  }
  __syncthreads();
  const float al = prm[pk.offset[alpha]];
  auto W = [&](int s) { return prm + pk.offset[s]; };
  auto G = [&](int s) { return grd + pk.offset[s]; };
  float galpha = 0;     // this thread's share of α's gradient
  double block_loss = 0;  // thread 0 only

  const int L2 = L / 2, L4 = L / 4, L8 = L / 8;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block;
  const std::int64_t last = std::min<std::int64_t>(batch, first + rows_per_block);
  for (std::int64_t b = first; b < last; ++b) {
    // ---- forward
    const float* src = data + rows[b] * static_cast<std::int64_t>(L);
    for (int t = tid; t < L; t += threads) x[t] = src[t];
    if (tid < 2) lat[6 + tid] = eps[2 * b + tid];
    __syncthreads();
    forward_beat(beat, L, prm, pk, al, true);

    // ---- loss, and its gradient for the reconstruction (into gbig)
    const float mse = reconstruction_mse(beat, L, gbig, slots);
    if (tid == 0) block_loss += static_cast<double>(mse) + static_cast<double>(kl_term(lat));
    __syncthreads();

    // ---- decoder backward
    conv_weight_grads<2, 1>(upsampled_input<true>{a4, L2, al}, gbig, L, G(conv5_w), G(conv5_b));
    conv_input_grads<2, 1>(gbig, L, W(conv5_w), gsmall);  // 2 × L
    __syncthreads();
    up_swish_backward<2>(gsmall, a4, L2, al, gbig, galpha);  // 2 × L/2
    __syncthreads();
    conv_weight_grads<4, 2>(upsampled_input<true>{a3, L4, al}, gbig, L2, G(conv4_w), G(conv4_b));
    conv_input_grads<4, 2>(gbig, L2, W(conv4_w), gsmall);  // 4 × L/2
    __syncthreads();
    up_swish_backward<4>(gsmall, a3, L4, al, gbig, galpha);  // 4 × L/4
    __syncthreads();
    conv_weight_grads<8, 4>(upsampled_input<false>{r, L8, al}, gbig, L4, G(conv3_w), G(conv3_b));
    conv_input_grads<8, 4>(gbig, L4, W(conv3_w), gsmall);  // 8 × L/4
    __syncthreads();
    for (int j = tid; j < L; j += threads) gbig[j] = gsmall[2 * j] + gsmall[2 * j + 1];  // g_r, 8 × L/8 flat
    __syncthreads();
    {
      const float z0 = lat[4], z1 = lat[5];
      float* gw = G(restore_w);
      float* gb = G(restore_b);
      const float* rw = W(restore_w);
      float gz0 = 0, gz1 = 0;
      for (int j = tid; j < L; j += threads) {
        const float g = gbig[j];
        gw[2 * j] += g * z0;
        gw[2 * j + 1] += g * z1;
        gb[j] += g;
        gz0 += g * rw[2 * j];
        gz1 += g * rw[2 * j + 1];
      }
      gz0 = block_sum(gz0, slots);
      gz1 = block_sum(gz1, slots);
      if (tid < 2) {
        const float gz = tid == 0 ? gz0 : gz1;
        const float mu = lat[tid], lv = lat[2 + tid], e = lat[6 + tid];
        // z = mu + e·exp(lv/2); the KL term −0.1·mean_c(1 + lv − mu² − exp(lv)) over 2 latents.
        lat[8 + tid] = gz + 0.1F * mu;
        lat[10 + tid] = gz * 0.5F * e * expf(0.5F * lv) - 0.05F * (1.0F - expf(lv));
      }
    }
    __syncthreads();

    // ---- encoder backward: convA/convB see a constant gradient g_mu/(L/8), g_lv/(L/8) along t
    {
      const float inv = 1.0F / static_cast<float>(L8);
      const float gA[2] = {lat[8] * inv, lat[9] * inv};
      const float gB[2] = {lat[10] * inv, lat[11] * inv};
      const int warp = tid / 32, lane = tid % 32;
      // Window sums S[i][k] = Σ_t d2(i, t+k−1), one warp per (i, k).
      for (int task = warp; task < 16 * 3; task += warps) {
        const int i = task / 3, k = task % 3;
        float acc = 0;
        for (int t = lane; t < L8; t += 32) {
          const int j = t + k - 1;
          acc += (j >= 0 && j < L8) ? d2[i * L8 + j] : 0.0F;
        }
        acc = warp_sum(acc);
        if (lane == 0) {
          for (int c = 0; c < 2; ++c) {
            G(convA_w)[(c * 16 + i) * 3 + k] += gA[c] * acc;
            G(convB_w)[(c * 16 + i) * 3 + k] += gB[c] * acc;
          }
        }
      }
      if (tid < 2) {
        G(convA_b)[tid] += lat[8 + tid];
        G(convB_b)[tid] += lat[10 + tid];
      }
      // g_d2[i][j] = Σ_k cw[i][k]·[0 ≤ j+1−k < L/8], cw[i][k] = Σ_c wA[c,i,k]·gA_c + wB[c,i,k]·gB_c.
      for (int idx = tid; idx < 16 * L8; idx += threads) {
        const int i = idx / L8, j = idx - i * L8;
        float acc = 0;
        for (int k = 0; k < 3; ++k) {
          const int t = j + 1 - k;
          if (t < 0 || t >= L8) continue;
          for (int c = 0; c < 2; ++c)
            acc += W(convA_w)[(c * 16 + i) * 3 + k] * gA[c] + W(convB_w)[(c * 16 + i) * 3 + k] * gB[c];
        }
        gsmall[idx] = acc;
      }
    }
    __syncthreads();
    down_swish_backward<16>(gsmall, a2, L4, al, gbig, galpha);  // 16 × L/4
    __syncthreads();
    conv_weight_grads<8, 16>(plain_input{d1, L4}, gbig, L4, G(conv2_w), G(conv2_b));
    conv_input_grads<8, 16>(gbig, L4, W(conv2_w), gsmall);  // 8 × L/4
    __syncthreads();
    down_swish_backward<8>(gsmall, a1, L2, al, gbig, galpha);  // 8 × L/2
    __syncthreads();
    conv_weight_grads<4, 8>(plain_input{d0, L2}, gbig, L2, G(conv1_w), G(conv1_b));
    conv_input_grads<4, 8>(gbig, L2, W(conv1_w), gsmall);  // 4 × L/2
    __syncthreads();
    down_swish_backward<4>(gsmall, a0, L, al, gbig, galpha);  // 4 × L
    __syncthreads();
    conv_weight_grads<1, 4>(plain_input{x, L}, gbig, L, G(conv0_w), G(conv0_b));
    __syncthreads();
  }
  const float ga = block_sum(galpha, slots);
  if (tid == 0) grd[pk.offset[alpha]] += ga;
  __syncthreads();
  float* out = partial_grads + static_cast<std::int64_t>(blockIdx.x) * P;
  for (int i = tid; i < P; i += threads) out[i] = grd[i];
  if (tid == 0) partial_loss[blockIdx.x] = block_loss;
}

// One warp per packed parameter adds the blocks' partial gradients in block order (lanes over
// blocks, then a fixed shuffle tree); the last warp adds the batch's loss to the running total.
__global__ void __launch_bounds__(reduce_threads)
    reduce_kernel(pointers ptr, int L, int blocks, const float* __restrict__ partial_grads,
                  const double* __restrict__ partial_loss, double* loss_total) {
  const packing pk(L);
  const int P = pk.total();
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (warp < P) {
    double acc = 0;
    for (int b = lane; b < blocks; b += 32) acc += partial_grads[static_cast<std::int64_t>(b) * P + warp];
    for (int d = 16; d > 0; d /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, d);
    if (lane == 0) {
      int s = 0;
      while (pk.offset[s + 1] <= warp) ++s;
      ptr.grads[s][warp - pk.offset[s]] = static_cast<float>(acc);
    }
  } else if (warp == P && lane == 0) {
    double acc = 0;
    for (int b = 0; b < blocks; ++b) acc += partial_loss[b];
    *loss_total += acc;
  }
}


// ---- inference: scoring, per-beat losses and decoding, without gradients -----------------------

struct parameters {
  const float* params[slot_count];
};

/// What one inference kernel computes for each of its rows.
enum class pass {
  score,   ///< x = data[b]; z = mu; score[b] = mean_t (x̂ − x)², mu[b]
  losses,  ///< x = data[rows[b]]; z = mu + eps[b]·σ; losses[b] = mse + the KL term (the seed's loss)
  decode,  ///< z = latents[b]; decoded[b] = x̂
};

struct inference_io {
  const float* data;         ///< score, losses: the rows
  const std::int64_t* rows;  ///< losses: indices into data
  const float* eps;          ///< losses: rows × 2 noise
  const float* latents;      ///< decode: rows × 2
  float* score;              ///< score: rows
  float* mu;                 ///< score: rows × 2
  float* losses;             ///< losses: rows
  float* decoded;            ///< decode: rows × width
};

std::int64_t inference_shared_floats(std::int64_t width) {
  return 25 * width + packing(static_cast<int>(width)).total() + small_floats;
}

template <pass mode>
__global__ void __launch_bounds__(threads)
    inference_kernel(parameters ptr, inference_io io, int L, std::int64_t n_rows, int rows_per_block) {
  extern __shared__ float shared[];
  const packing pk(L);
  const int P = pk.total();
  float* prm = shared;                   // P
  float* heads = prm + P + 23 * L;       // 2·L (4·L/8 used) after the activations
  float* lat = heads + 2 * L;
  float* slots = lat + 32;
  const beat_buffers beat = carve_beat(prm + P, L, heads, lat);
  float* x = beat.x;

  const int tid = static_cast<int>(threadIdx.x);
  for (int s = 0; s < slot_count; ++s)
    for (int i = tid; i < pk.offset[s + 1] - pk.offset[s]; i += threads) prm[pk.offset[s] + i] = ptr.params[s][i];
  __syncthreads();
  const float al = prm[pk.offset[alpha]];
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block;
  const std::int64_t last = first + rows_per_block < n_rows ? first + rows_per_block : n_rows;
  for (std::int64_t b = first; b < last; ++b) {
    if constexpr (mode == pass::decode) {
      if (tid < 2) lat[4 + tid] = io.latents[2 * b + tid];
      __syncthreads();
    } else {
      const std::int64_t row = mode == pass::losses ? io.rows[b] : b;
      const float* src = io.data + row * static_cast<std::int64_t>(L);
      for (int t = tid; t < L; t += threads) x[t] = src[t];
      if (mode == pass::losses && tid < 2) lat[6 + tid] = io.eps[2 * b + tid];
      __syncthreads();
      encode_beat(beat, L, prm, pk, al);
      choose_latent(lat, mode == pass::losses);
    }
    decode_beat(beat, L, prm, pk, al);
    if constexpr (mode == pass::decode) {
      float* out = io.decoded + b * static_cast<std::int64_t>(L);
      for (int t = tid; t < L; t += threads) out[t] = beat.a5[t];
    } else {
      const float mse = reconstruction_mse(beat, L, nullptr, slots);
      if (tid == 0) {
        if constexpr (mode == pass::score) {
          io.score[b] = mse;
          io.mu[2 * b] = lat[0];
          io.mu[2 * b + 1] = lat[1];
        } else {
          io.losses[b] = mse + kl_term(lat);
        }
      }
    }
    __syncthreads();  // x and lat are rewritten by the next beat
  }
}

/// One block per few rows, as many blocks as fit on the GPU at once (each keeps every activation
/// of its beat in shared memory).
template <pass mode>
void launch_inference(const float* const (&params)[slot_count], const inference_io& io, std::int64_t width,
                      std::int64_t rows, stream_view stream, const char* what) {
  ZF_EXPECTS(supported_width(width), what, ": width must be a power of two in [16, 1024], got ", width);
  if (rows <= 0) return;
  const auto shared_bytes = static_cast<std::size_t>(inference_shared_floats(width)) * sizeof(float);
  int device = 0, sms = 0, per_sm = 0;
  ZF_CUDA_TRY(cudaGetDevice(&device));
  ZF_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  ZF_CUDA_TRY(cudaFuncSetAttribute(inference_kernel<mode>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(shared_bytes)));
  ZF_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, inference_kernel<mode>, threads, shared_bytes));
  ZF_EXPECTS(per_sm >= 1, what, ": width ", width, " needs more shared memory than this GPU has");
  const std::int64_t resident = static_cast<std::int64_t>(sms) * per_sm;
  const auto rows_per_block = static_cast<int>((rows + resident - 1) / resident);
  const auto blocks = static_cast<int>((rows + rows_per_block - 1) / rows_per_block);
  parameters ptr{};
  for (int s = 0; s < slot_count; ++s) ptr.params[s] = params[s];
  inference_kernel<mode><<<blocks, threads, shared_bytes, stream.value()>>>(ptr, io, static_cast<int>(width), rows,
                                                                           rows_per_block);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace

std::int64_t slot_size(int s, std::int64_t width) { return size_of_slot(s, width); }

bool supported_width(std::int64_t width) {
  return width >= 16 && width <= 1024 && (width & (width - 1)) == 0;
}

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
  ZF_CUDA_TRY(cudaFuncSetAttribute(step_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(p.shared_bytes)));
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
  ZF_EXPECTS(supported_width(a.width) && p.blocks >= 1 &&
                 static_cast<std::int64_t>(p.blocks) * p.rows_per_block >= a.batch,
             "fused VAE step: the launch plan does not fit batch ", a.batch, " and width ", a.width);
  pointers ptr{};
  for (int s = 0; s < slot_count; ++s) {
    ptr.params[s] = a.params[s];
    ptr.grads[s] = a.grads[s];
  }
  const int L = static_cast<int>(a.width);
  step_kernel<<<p.blocks, threads, static_cast<std::size_t>(p.shared_bytes), stream.value()>>>(
      ptr, a.data, L, a.rows, a.batch, p.rows_per_block, a.eps, a.partial_grads, a.partial_loss);
  ZF_CUDA_TRY(cudaGetLastError());
  const int warps_needed = packing(L).total() + 1;
  const int reduce_blocks = (warps_needed * 32 + reduce_threads - 1) / reduce_threads;
  reduce_kernel<<<reduce_blocks, reduce_threads, 0, stream.value()>>>(ptr, L, p.blocks, a.partial_grads,
                                                                       a.partial_loss, a.loss_total);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::model::detail::fused_vae

namespace zeroflow::model::detail::fused_vae {

void score(const score_args& a, stream_view stream) {
  inference_io io{};
  io.data = a.data;
  io.score = a.score;
  io.mu = a.mu;
  launch_inference<pass::score>(a.params, io, a.width, a.rows, stream, "fused VAE scoring");
}

void row_losses(const loss_args& a, stream_view stream) {
  inference_io io{};
  io.data = a.data;
  io.rows = a.row_index;
  io.eps = a.eps;
  io.losses = a.losses;
  launch_inference<pass::losses>(a.params, io, a.width, a.rows, stream, "fused VAE losses");
}

void decode(const decode_args& a, stream_view stream) {
  inference_io io{};
  io.latents = a.latents;
  io.decoded = a.decoded;
  launch_inference<pass::decode>(a.params, io, a.width, a.rows, stream, "fused VAE decoding");
}

}  // namespace zeroflow::model::detail::fused_vae
