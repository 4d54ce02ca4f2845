#pragma once
// The forward pass of one beat in one thread block: the convolutions, swish and smoothing, the
// encoder to its latents, the decoder back to a reconstruction, and the seed's loss terms.
// backward_beat (fused_vae_backward.cuh) runs the same layers in reverse.
#include "fused_vae_device.cuh"

namespace zeroflow::model::detail::fused_vae {

// ---- layers ------------------------------------------------------------------------------------

/// out (cout × n) = conv(in) with weights wt in the forward layout ([i][k][o], transposed) and
/// bias b (none: nullptr); also swish(out) into `swished` when it is given. A thread computes
/// channel_group<cout> consecutive outputs at one position from the 3·cin inputs it reads once.
template <int cin, int cout, class In>
__device__ void conv_forward(const In& in, int n, const float* wt, const float* b, float* out, float* swished = nullptr,
                             float alpha_value = 0.0F) {
  constexpr int group = channel_group<cout>;
  for (int idx = static_cast<int>(threadIdx.x); idx < cout / group * n; idx += threads) {
    const auto [g, t] = element_at(idx, n);
    const int first = g * group;
    float acc[group];
#pragma unroll
    for (int q = 0; q < group; ++q) acc[q] = b != nullptr ? b[first + q] : 0.0F;
    const auto around = in.at(t);
#pragma unroll
    for (int i = 0; i < cin; ++i) {
      const auto [before, here, after] = around(i);
      float k0[group], k1[group], k2[group];
      load_vector(wt + (i * 3) * cout + first, k0);
      load_vector(wt + (i * 3 + 1) * cout + first, k1);
      load_vector(wt + (i * 3 + 2) * cout + first, k2);
#pragma unroll
      for (int q = 0; q < group; ++q) acc[q] += k0[q] * before + k1[q] * here + k2[q] * after;
    }
#pragma unroll
    for (int q = 0; q < group; ++q) {
      out[(first + q) * n + t] = acc[q];
      if (swished != nullptr) swished[(first + q) * n + t] = swish(acc[q], alpha_value);
    }
  }
}

/// d (c × n/2) = down(s) for s = swish(a) (c × n), computed once per sample by conv_forward.
template <int c>
__device__ void down(const float* s, int n, float* d) {
  const int half = n / 2;
  for (int idx = static_cast<int>(threadIdx.x); idx < c * half; idx += threads) {
    const auto [ch, t] = element_at(idx, half);
    const float* row = s + ch * n;
    const int j = 2 * t;
    const float left = j > 0 ? row[j - 1] : 0.0F;
    d[idx] = left + 2.0F * row[j] + row[j + 1];
  }
}

// ---- the forward pass of one beat ------------------------------------------------------------

/// x (in b.x, loaded and synchronised by the caller) → the encoder's activations and the latents
/// mu0 mu1 lv0 lv1 in lat[0..3]. kw: the convolutions' weights transposed (transpose_weights).
__device__ inline void encode_beat(const beat_buffers& b, int L, const float* prm, const float* kw, const packing& pk,
                                   float al) {
  const int tid = static_cast<int>(threadIdx.x);
  const int L2 = L / 2, L4 = L / 4, L8 = L / 8;
  auto W = [&](int s) { return prm + pk.offset[s]; };
  namespace tw = transposed;
  conv_forward<1, 4>(plain_input{b.x, L}, L, kw + tw::conv0, W(conv0_b), b.a0, b.swished, al);
  __syncthreads();
  down<4>(b.swished, L, b.d0);
  __syncthreads();
  conv_forward<4, 8>(plain_input{b.d0, L2}, L2, kw + tw::conv1, W(conv1_b), b.a1, b.swished, al);
  __syncthreads();
  down<8>(b.swished, L2, b.d1);
  __syncthreads();
  conv_forward<8, 16>(plain_input{b.d1, L4}, L4, kw + tw::conv2, W(conv2_b), b.a2, b.swished, al);
  __syncthreads();
  down<16>(b.swished, L4, b.d2);
  __syncthreads();
  // convA and convB as one convolution of four outputs (4 × L/8), then their means.
  conv_forward<16, 4>(plain_input{b.d2, L8}, L8, kw + tw::heads, kw + tw::heads_bias, b.heads);
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
__device__ inline void choose_latent(float* lat, bool sample) {
  const int tid = static_cast<int>(threadIdx.x);
  if (tid < 2) lat[4 + tid] = sample ? lat[tid] + lat[6 + tid] * expf(0.5F * lat[2 + tid]) : lat[tid];
  __syncthreads();
}

/// The latent z in lat[4..5] → the decoder's activations and the reconstruction a5.
__device__ inline void decode_beat(const beat_buffers& b, int L, const float* prm, const float* kw, const packing& pk,
                                   float al) {
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
  conv_forward<8, 4>(upsampled_input{b.r, L8}, L4, kw + transposed::conv3, W(conv3_b), b.a3, b.s3, al);
  __syncthreads();
  conv_forward<4, 2>(upsampled_input{b.s3, L4}, L2, kw + transposed::conv4, W(conv4_b), b.a4, b.s4, al);
  __syncthreads();
  conv_forward<2, 1>(upsampled_input{b.s4, L2}, L, kw + transposed::conv5, W(conv5_b), b.a5);
  __syncthreads();
}

/// x (in b.x, loaded and synchronised by the caller) → every activation, the latents and the
/// reconstruction a5. z = mu + e·exp(logvar/2) when `sample`, else z = mu exactly (scoring).
__device__ inline void forward_beat(const beat_buffers& b, int L, const float* prm, const float* kw, const packing& pk,
                                    float al, bool sample) {
  encode_beat(b, L, prm, kw, pk, al);
  choose_latent(b.lat, sample);
  decode_beat(b, L, prm, kw, pk, al);
}

/// The seed's KL term of one beat, −0.1 · mean_c (1 + logvar − mu² − e^logvar), from lat[0..3].
__device__ inline float kl_term(const float* lat) {
  float kl = 0;
  for (int c = 0; c < 2; ++c) kl += 1.0F + lat[2 + c] - lat[c] * lat[c] - expf(lat[2 + c]);
  return -0.1F * (kl / 2.0F);
}

/// mean_t (a5 − x)², returned to every thread; with `grad`, also its gradient 2(a5 − x)/L.
__device__ inline float reconstruction_mse(const beat_buffers& b, int L, float* grad, float* slots) {
  float sq = 0;
  for (int t = static_cast<int>(threadIdx.x); t < L; t += threads) {
    const float e = b.a5[t] - b.x[t];
    sq += e * e;
    if (grad != nullptr) grad[t] = 2.0F * e / static_cast<float>(L);
  }
  return block_sum(sq, slots) / static_cast<float>(L);
}

}  // namespace zeroflow::model::detail::fused_vae
