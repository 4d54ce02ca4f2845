#pragma once
// The forward pass of one beat in one thread block: the convolutions, swish and smoothing, the
// encoder to its latents, the decoder back to a reconstruction, and the seed's loss terms.
// backward_beat (fused_vae_backward.cuh) runs the same layers in reverse.
#include "fused_vae_device.cuh"

namespace zeroflow::model::detail::fused_vae {

// ---- layers ------------------------------------------------------------------------------------

/// out (cout × n) = conv(in) with weights w [cout, cin, 3] and bias b; also swish(out) into
/// `swished` when it is given.
template <int cin, int cout, class In>
__device__ void conv_forward(const In& in, int n, const float* w, const float* b, float* out, float* swished = nullptr,
                             float alpha_value = 0.0F) {
  for (int idx = static_cast<int>(threadIdx.x); idx < cout * n; idx += threads) {
    const auto [o, t] = element_at(idx, n);
    float acc = b[o];
#pragma unroll
    for (int i = 0; i < cin; ++i) {
      const float* k = w + (o * cin + i) * 3;
      acc += k[0] * in(i, t - 1) + k[1] * in(i, t) + k[2] * in(i, t + 1);
    }
    out[idx] = acc;
    if (swished != nullptr) swished[idx] = swish(acc, alpha_value);
  }
}

/// d (c × n/2) = down(swish(a)) for a (c × n).
template <int c>
__device__ void swish_down(const float* a, int n, float alpha_value, float* d) {
  const int half = n / 2;
  for (int idx = static_cast<int>(threadIdx.x); idx < c * half; idx += threads) {
    const auto [ch, t] = element_at(idx, half);
    const float* row = a + ch * n;
    const int j = 2 * t;
    const float left = j > 0 ? swish(row[j - 1], alpha_value) : 0.0F;
    d[idx] = left + 2.0F * swish(row[j], alpha_value) + swish(row[j + 1], alpha_value);
  }
}

// ---- the forward pass of one beat ------------------------------------------------------------

/// x (in b.x, loaded and synchronised by the caller) → the encoder's activations and the latents
/// mu0 mu1 lv0 lv1 in lat[0..3].
__device__ inline void encode_beat(const beat_buffers& b, int L, const float* prm, const packing& pk, float al) {
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
__device__ inline void choose_latent(float* lat, bool sample) {
  const int tid = static_cast<int>(threadIdx.x);
  if (tid < 2) lat[4 + tid] = sample ? lat[tid] + lat[6 + tid] * expf(0.5F * lat[2 + tid]) : lat[tid];
  __syncthreads();
}

/// The latent z in lat[4..5] → the decoder's activations and the reconstruction a5.
__device__ inline void decode_beat(const beat_buffers& b, int L, const float* prm, const packing& pk, float al) {
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
  conv_forward<8, 4>(upsampled_input{b.r, L8}, L4, W(conv3_w), W(conv3_b), b.a3, b.s3, al);
  __syncthreads();
  conv_forward<4, 2>(upsampled_input{b.s3, L4}, L2, W(conv4_w), W(conv4_b), b.a4, b.s4, al);
  __syncthreads();
  conv_forward<2, 1>(upsampled_input{b.s4, L2}, L, W(conv5_w), W(conv5_b), b.a5);
  __syncthreads();
}

/// x (in b.x, loaded and synchronised by the caller) → every activation, the latents and the
/// reconstruction a5. z = mu + e·exp(logvar/2) when `sample`, else z = mu exactly (scoring).
__device__ inline void forward_beat(const beat_buffers& b, int L, const float* prm, const packing& pk, float al,
                                    bool sample) {
  encode_beat(b, L, prm, pk, al);
  choose_latent(b.lat, sample);
  decode_beat(b, L, prm, pk, al);
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
