#pragma once
// The backward pass of one beat in one thread block, forward_beat's layers (fused_vae_forward.cuh)
// in reverse: each layer's weight and bias gradients, then the gradient of its input.
#include "fused_vae_device.cuh"
#include "fused_vae_forward.cuh"

namespace zeroflow::model::detail::fused_vae {

// ---- layers ------------------------------------------------------------------------------------

/// The smallest power of two at least n.
constexpr int power_of_two_at_least(int n) { return n <= 1 ? 1 : 2 * power_of_two_at_least((n + 1) / 2); }

/// Adds `count` values (a power of two) across `lanes` lanes (a power of two ≤ 32; the low bits
/// of `lane`) so that each lane ends with a share of the totals, not all of them: at each level a
/// lane keeps one half of the values it still holds and adds its partner's copy of that half, so
/// the levels cost count/2, count/4, ... shuffles instead of count each. Once a lane holds one
/// value, the remaining levels add it across lanes. Fixed order: the same bits every time.
/// Call it with held = count and distance = lanes / 2; `first` (from 0) becomes the index of the
/// first total the lane holds in acc[0 .. max(1, count/lanes)). Lanes that differ only in the
/// bits of the last levels hold the same totals.
template <int held, int distance, int count>
__device__ __forceinline__ void reduce_scatter(float (&acc)[count], int lane, int& first) {
  if constexpr (distance >= 1) {
    if constexpr (held > 1) {
      constexpr int half = held / 2;
      const bool upper = (lane & distance) != 0;
#pragma unroll
      for (int q = 0; q < half; ++q) {
        const float send = upper ? acc[q] : acc[q + half];
        const float keep = upper ? acc[q + half] : acc[q];
        acc[q] = keep + __shfl_xor_sync(0xffffffffu, send, distance);
      }
      first += upper ? half : 0;
      reduce_scatter<half, distance / 2>(acc, lane, first);
    } else {
      acc[0] += __shfl_xor_sync(0xffffffffu, acc[0], distance);
      reduce_scatter<1, distance / 2>(acc, lane, first);
    }
  }
}

/// Weight and bias gradients of a convolution, added to gw/gb (owned by this block):
/// gw[o,i,k] += Σ_t g[o,t]·in(i, t+k−1), gb[o] += Σ_t g[o,t].
/// The threads form cout groups, one per output channel o; thread c of a group sums every
/// t ≡ c (mod group size) for all 3·cin weights of o and its bias in registers, so each value of
/// g and of the input is read once per thread, not once per weight. The group's partial sums
/// are then added in a fixed order: within a warp by reduce_scatter, then, for groups wider than
/// a warp, the warps' sums in warp order through `scratch` (weight_grad_scratch_floats).
template <int cin, int cout, class In>
__device__ void conv_weight_grads(const In& in, const float* g, int n, float* gw, float* gb, float* scratch) {
  static_assert(threads % cout == 0 && 3 * cin + 1 <= 32, "a group's sums must fit a warp's scratch row");
  constexpr int group = threads / cout;
  constexpr int sums = 3 * cin + 1;  // the weights of o in [i, k] order, then its bias
  constexpr int count = power_of_two_at_least(sums);
  const int tid = static_cast<int>(threadIdx.x);
  const int o = tid / group, c = tid % group;
  float acc[count];
#pragma unroll
  for (int s = 0; s < count; ++s) acc[s] = 0.0F;
  for (int t = c; t < n; t += group) {
    const float go = g[o * n + t];
    const auto around = in.at(t);
#pragma unroll
    for (int i = 0; i < cin; ++i) {
      const auto [before, here, after] = around(i);
      acc[3 * i] += go * before;
      acc[3 * i + 1] += go * here;
      acc[3 * i + 2] += go * after;
    }
    acc[sums - 1] += go;
  }
  constexpr int lanes = group < 32 ? group : 32;
  constexpr int held = count > lanes ? count / lanes : 1;
  constexpr int copies = lanes > count ? lanes / count : 1;  // lanes holding the same totals
  const int lane = tid % 32;
  int first = 0;
  reduce_scatter<count, lanes / 2>(acc, lane, first);
  const bool writes = lane % copies == 0;
  if constexpr (group <= 32) {
    if (writes) {
#pragma unroll
      for (int h = 0; h < held; ++h) {
        const int s = first + h;
        if (s < sums - 1)
          gw[o * (sums - 1) + s] += acc[h];
        else if (s == sums - 1)
          gb[o] += acc[h];
      }
    }
  } else {
    constexpr int warps_per_group = group / 32;
    const int warp = tid / 32;
    if (writes) {
#pragma unroll
      for (int h = 0; h < held; ++h)
        if (first + h < sums) scratch[warp * 32 + first + h] = acc[h];
    }
    __syncthreads();
    for (int idx = tid; idx < cout * sums; idx += threads) {
      const int oo = idx / sums, s = idx - oo * sums;
      float total = 0;
      for (int w = 0; w < warps_per_group; ++w) total += scratch[(oo * warps_per_group + w) * 32 + s];
      if (s < sums - 1) {
        gw[oo * (sums - 1) + s] += total;
      } else {
        gb[oo] += total;
      }
    }
  }
}

/// gin (cin × n) = the gradient of conv's input, Σ_o Σ_k w[o,i,k]·g[o, j+1−k]: the convolution of
/// g with the kernel flipped, whose weights the backward layout holds ([o][k][i], k reversed).
template <int cin, int cout>
__device__ void conv_input_grads(const float* g, int n, const float* wt, float* gin) {
  conv_forward<cout, cin>(plain_input{g, n}, n, wt, nullptr, gin);
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
    const auto [ch, t] = element_at(idx, n);
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
    const auto [ch, j] = element_at(idx, n);
    const int t = j / 2;
    const float* g = gd + ch * half;
    const float gs = (j % 2 == 0) ? 2.0F * g[t] : g[t] + (t + 1 < half ? g[t + 1] : 0.0F);
    ga[idx] = swish_backward(gs, a[idx], alpha_value, galpha);
  }
}

// ---- the backward pass of one beat -----------------------------------------------------------

/// The gradients of one beat's loss for every parameter, added to grd (packed as prm) — the
/// decoder from the reconstruction back to the latents, then the encoder back to the input —
/// and this thread's share of α's gradient added to galpha. On entry b holds forward_beat's
/// activations and latents for the beat (its noise in lat[6..7]) and gbig (4·L floats) the loss's
/// gradient for the reconstruction (reconstruction_mse's grad); gbig and gsmall (2·L floats, the
/// forward pass's heads) are overwritten, and lat[8..11] receive the gradients of mu and logvar.
__device__ inline void backward_beat(const beat_buffers& b, int L, const float* prm, const float* kw, float* grd,
                                     const packing& pk, float al, float* gbig, float* gsmall, float* slots,
                                     float* scratch, float& galpha) {
  const float *x = b.x, *d0 = b.d0, *a0 = b.a0, *a1 = b.a1, *d1 = b.d1, *a2 = b.a2, *d2 = b.d2, *r = b.r, *a3 = b.a3,
              *a4 = b.a4, *s3 = b.s3, *s4 = b.s4;
  float* lat = b.lat;
  const int tid = static_cast<int>(threadIdx.x);
  const int L2 = L / 2, L4 = L / 4, L8 = L / 8;
  auto W = [&](int s) { return prm + pk.offset[s]; };
  auto G = [&](int s) { return grd + pk.offset[s]; };

  // ---- decoder backward
  conv_weight_grads<2, 1>(upsampled_input{s4, L2}, gbig, L, G(conv5_w), G(conv5_b), scratch);
  conv_input_grads<2, 1>(gbig, L, kw + transposed::conv5_back, gsmall);  // 2 × L
  __syncthreads();
  up_swish_backward<2>(gsmall, a4, L2, al, gbig, galpha);  // 2 × L/2
  __syncthreads();
  conv_weight_grads<4, 2>(upsampled_input{s3, L4}, gbig, L2, G(conv4_w), G(conv4_b), scratch);
  conv_input_grads<4, 2>(gbig, L2, kw + transposed::conv4_back, gsmall);  // 4 × L/2
  __syncthreads();
  up_swish_backward<4>(gsmall, a3, L4, al, gbig, galpha);  // 4 × L/4
  __syncthreads();
  conv_weight_grads<8, 4>(upsampled_input{r, L8}, gbig, L4, G(conv3_w), G(conv3_b), scratch);
  conv_input_grads<8, 4>(gbig, L4, kw + transposed::conv3_back, gsmall);  // 8 × L/4
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
    // Window sums S[i][k] = Σ_t d2(i, t+k−1): one warp per input channel i reads its row once
    // for all three k (k = 0 leaves out the row's last sample, k = 2 its first).
    for (int i = warp; i < 16; i += warps) {
      float acc[3] = {0.0F, 0.0F, 0.0F};
      for (int t = lane; t < L8; t += 32) {
        const float v = d2[i * L8 + t];
        acc[0] += t < L8 - 1 ? v : 0.0F;
        acc[1] += v;
        acc[2] += t > 0 ? v : 0.0F;
      }
#pragma unroll
      for (int k = 0; k < 3; ++k) acc[k] = warp_sum(acc[k]);
      if (lane == 0) {
#pragma unroll
        for (int k = 0; k < 3; ++k)
          for (int c = 0; c < 2; ++c) {
            G(convA_w)[(c * 16 + i) * 3 + k] += gA[c] * acc[k];
            G(convB_w)[(c * 16 + i) * 3 + k] += gB[c] * acc[k];
          }
      }
    }
    if (tid < 2) {
      G(convA_b)[tid] += lat[8 + tid];
      G(convB_b)[tid] += lat[10 + tid];
    }
    // g_d2[i][j] = Σ_k cw[i][k]·[0 ≤ j+1−k < L/8], cw[i][k] = Σ_c wA[c,i,k]·gA_c + wB[c,i,k]·gB_c.
    for (int idx = tid; idx < 16 * L8; idx += threads) {
      const auto [i, j] = element_at(idx, L8);
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
  conv_weight_grads<8, 16>(plain_input{d1, L4}, gbig, L4, G(conv2_w), G(conv2_b), scratch);
  conv_input_grads<8, 16>(gbig, L4, kw + transposed::conv2_back, gsmall);  // 8 × L/4
  __syncthreads();
  down_swish_backward<8>(gsmall, a1, L2, al, gbig, galpha);  // 8 × L/2
  __syncthreads();
  conv_weight_grads<4, 8>(plain_input{d0, L2}, gbig, L2, G(conv1_w), G(conv1_b), scratch);
  conv_input_grads<4, 8>(gbig, L2, kw + transposed::conv1_back, gsmall);  // 4 × L/2
  __syncthreads();
  down_swish_backward<4>(gsmall, a0, L, al, gbig, galpha);  // 4 × L
  __syncthreads();
  conv_weight_grads<1, 4>(plain_input{x, L}, gbig, L, G(conv0_w), G(conv0_b), scratch);
  __syncthreads();
}

}  // namespace zeroflow::model::detail::fused_vae
