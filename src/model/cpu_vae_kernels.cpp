/// @file cpu_vae_kernels.cpp
/// The LightVAE's forward and backward pass on the CPU (cpu_vae_kernels.hpp): the layers of one
/// beat over channel rows padded with a zero on each side, so that every loop over time runs
/// without a bounds test and vectorises. Compiled once per instruction set, into the namespace
/// ZEROFLOW_CPU_ISA (cpu_vae_dispatch.cpp picks one at run time): baseline, and x86_64_v3 (AVX2
/// and FMA) where the compiler targets x86-64.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "cpu_vae_isa.hpp"
#include "light_vae_init.hpp"

namespace zeroflow::model::detail::cpu_vae::ZEROFLOW_CPU_ISA {

namespace {

using std::int64_t;

/// `channels` rows of n floats, each with one zero before and after it (the convolutions'
/// padding); only [0, n) of a row is ever written, so the zeros stay.
struct padded {
  float* base = nullptr;
  int n = 0;
  [[nodiscard]] float* row(int c) const { return base + static_cast<std::ptrdiff_t>(c) * (n + 2) + 1; }
};

/// eᵛ within about 2 units in the last place, from + × and bit operations only, so that a loop
/// of them vectorises (the C library's expf is a call per value): v = n·ln 2 + r with
/// |r| ≤ ln 2 / 2 (ln 2 split in two so that n·ln2_hi is exact), a degree-7 Taylor polynomial for
/// eʳ (truncation below 2⁻²⁴ relative), then 2ⁿ from the exponent bits. v is clamped to
/// [−87, 88], where eᵛ is a normal float; beyond, only sigmoid reads it, and 1/(1 + e⁸⁸) and
/// 1/(1 + e⁻⁸⁷) are 0 and 1 to within 10⁻³⁸.
inline float exp_of(float v) {
  v = std::min(std::max(v, -87.0F), 88.0F);
  constexpr float log2_e = 1.44269504088896341F;
  constexpr float ln2_hi = 0.693145751953125F;
  constexpr float ln2_lo = 1.428606765330187045e-06F;
  constexpr float round_magic = 12582912.0F;  // 1.5·2²³: adding it rounds to an integer
  const float n = (v * log2_e + round_magic) - round_magic;
  const float r = (v - n * ln2_hi) - n * ln2_lo;
  float p = 1.0F / 5040.0F;
  p = p * r + 1.0F / 720.0F;
  p = p * r + 1.0F / 120.0F;
  p = p * r + 1.0F / 24.0F;
  p = p * r + 1.0F / 6.0F;
  p = p * r + 0.5F;
  p = p * r + 1.0F;
  p = p * r + 1.0F;
  const auto bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(n) + 127) << 23;
  return p * std::bit_cast<float>(bits);
}

// σ(v) = 1 / (1 + e⁻ᵛ), as LibTorch and the GPU kernels compute it (their expf to 1–2 ulp).
inline float sigmoid(float v) { return 1.0F / (1.0F + exp_of(-v)); }

/// One beat's activations and gradients, carved from one zeroed block.
struct beat_work {
  int L = 0;
  padded x, a0, d0, a1, d1, a2, d2, ur, a3, u3, a4, u4, a5;          // forward (a*: pre-activations)
  padded sg0, sg1, sg2, sg3, sg4;                                    // σ(α·a) of each swish, for the backward pass
  padded sw0, sw1, sw2;                                              // swish(a) of the encoder, before smoothing
  float* r = nullptr;                                                // restore's output, 8 × L/8 flat
  float* heads = nullptr;                                            // convA's and convB's outputs: 4 × L/8
  padded g5, gu4, ga4, gu3, ga3, gur, gd2, ga2, gd1, ga1, gd0, ga0;  // backward
  float* gr = nullptr;
  float lat[12] = {};  // mu0 mu1 lv0 lv1 z0 z1 e0 e1, then g_mu0 g_mu1 g_lv0 g_lv1
  std::vector<float> memory;

  explicit beat_work(int width) : L{width} {
    const int L2 = L / 2, L4 = L / 4, L8 = L / 8;
    struct want {
      padded* view;
      int channels, n;
    };
    const want plan[] = {{&x, 1, L},    {&a0, 4, L},   {&sg0, 4, L},  {&sw0, 4, L},   {&d0, 4, L2},   {&a1, 8, L2},
                         {&sg1, 8, L2}, {&sw1, 8, L2}, {&d1, 8, L4},  {&a2, 16, L4},  {&sg2, 16, L4}, {&sw2, 16, L4},
                         {&d2, 16, L8}, {&ur, 8, L4},  {&a3, 4, L4},  {&sg3, 4, L4},  {&u3, 4, L2},   {&a4, 2, L2},
                         {&sg4, 2, L2}, {&u4, 2, L},   {&a5, 1, L},   {&g5, 1, L},    {&gu4, 2, L},   {&ga4, 2, L2},
                         {&gu3, 4, L2}, {&ga3, 4, L4}, {&gur, 8, L4}, {&gd2, 16, L8}, {&ga2, 16, L4}, {&gd1, 8, L4},
                         {&ga1, 8, L2}, {&gd0, 4, L2}, {&ga0, 4, L}};
    std::size_t total = 2 * static_cast<std::size_t>(L) + 4 * static_cast<std::size_t>(L8);
    for (const want& w : plan) total += static_cast<std::size_t>(w.channels) * (w.n + 2);
    memory.assign(total, 0.0F);
    float* next = memory.data();
    for (const want& w : plan) {
      *w.view = padded{next, w.n};
      next += static_cast<std::ptrdiff_t>(w.channels) * (w.n + 2);
    }
    r = next;
    gr = r + L;
    heads = gr + L;
  }
};

/// The calling thread's workspace for beats of width L (zeroed when first made for L).
beat_work& work_for(int L) {
  thread_local std::deque<beat_work> cache;  // references stay valid as it grows
  for (beat_work& w : cache)
    if (w.L == L) return w;
  cache.emplace_back(L);
  return cache.back();
}

// ---- forward layers ------------------------------------------------------------------------

/// out (cout × n) = conv(in) with weights w [cout, cin, 3] and bias b.
template <int cin, int cout>
void conv_forward(const padded& in, const float* w, const float* b, const padded& out) {
  const int n = in.n;
  for (int o = 0; o < cout; ++o) {
    float* __restrict__ y = out.row(o);
#pragma omp simd
    for (int t = 0; t < n; ++t) y[t] = b[o];
    for (int i = 0; i < cin; ++i) {
      const float* k = w + (o * cin + i) * 3;
      const float k0 = k[0], k1 = k[1], k2 = k[2];
      const float* __restrict__ v = in.row(i);
#pragma omp simd
      for (int t = 0; t < n; ++t) y[t] += k0 * v[t - 1] + k1 * v[t] + k2 * v[t + 1];
    }
  }
}

/// sg = σ(α·a) and s = a·sg over c rows.
void swish_rows(const padded& a, int c, float al, const padded& sg, const padded& s) {
  for (int ch = 0; ch < c; ++ch) {
    const float* __restrict__ av = a.row(ch);
    float* __restrict__ gv = sg.row(ch);
    float* __restrict__ sv = s.row(ch);
#pragma omp simd
    for (int t = 0; t < a.n; ++t) {
      gv[t] = sigmoid(al * av[t]);
      sv[t] = av[t] * gv[t];
    }
  }
}

/// d (c × n/2) = the seed's [1, 2, 1] filter, stride 2, over s (c × n).
void down_rows(const padded& s, int c, const padded& d) {
  for (int ch = 0; ch < c; ++ch) {
    const float* sv = s.row(ch);
    float* dv = d.row(ch);
#pragma omp simd
    for (int t = 0; t < d.n; ++t) dv[t] = sv[2 * t - 1] + 2.0F * sv[2 * t] + sv[2 * t + 1];
  }
}

/// u (c × 2n) = nearest-neighbour ×2 of v (c rows of n floats, `stride` apart).
void up_rows(const float* v, int stride, int c, const padded& u) {
  for (int ch = 0; ch < c; ++ch) {
    const float* src = v + static_cast<std::ptrdiff_t>(ch) * stride;
    float* dst = u.row(ch);
#pragma omp simd
    for (int t = 0; t < u.n / 2; ++t) dst[2 * t] = dst[2 * t + 1] = src[t];
  }
}

/// The decoder's swish feeding its upsampling: sg = σ(α·a), u (c × 2n) = up(a·sg).
void swish_up_rows(const padded& a, int c, float al, const padded& sg, const padded& u) {
  for (int ch = 0; ch < c; ++ch) {
    const float* __restrict__ av = a.row(ch);
    float* __restrict__ gv = sg.row(ch);
    float* __restrict__ uv = u.row(ch);
#pragma omp simd
    for (int t = 0; t < a.n; ++t) {
      gv[t] = sigmoid(al * av[t]);
      uv[2 * t] = uv[2 * t + 1] = av[t] * gv[t];
    }
  }
}

const float* slot_of(const float* p, const std::array<int64_t, slot_count + 1>& off, int s) {
  return p + off[static_cast<std::size_t>(s)];
}

/// x (in b.x) → the encoder's activations and mu0 mu1 lv0 lv1 in b.lat.
void encode_beat(beat_work& b, const float* prm, const std::array<int64_t, slot_count + 1>& off, float al) {
  const auto W = [&](int s) { return slot_of(prm, off, s); };
  conv_forward<1, 4>(b.x, W(conv0_w), W(conv0_b), b.a0);
  swish_rows(b.a0, 4, al, b.sg0, b.sw0);
  down_rows(b.sw0, 4, b.d0);
  conv_forward<4, 8>(b.d0, W(conv1_w), W(conv1_b), b.a1);
  swish_rows(b.a1, 8, al, b.sg1, b.sw1);
  down_rows(b.sw1, 8, b.d1);
  conv_forward<8, 16>(b.d1, W(conv2_w), W(conv2_b), b.a2);
  swish_rows(b.a2, 16, al, b.sg2, b.sw2);
  down_rows(b.sw2, 16, b.d2);
  const int L8 = b.L / 8;
  for (int head = 0; head < 2; ++head) {
    const float* w = W(head == 0 ? convA_w : convB_w);
    const float* bias = W(head == 0 ? convA_b : convB_b);
    for (int c = 0; c < 2; ++c) {
      float* y = b.heads + (2 * head + c) * L8;
      for (int t = 0; t < L8; ++t) y[t] = bias[c];
      for (int i = 0; i < 16; ++i) {
        const float* k = w + (c * 16 + i) * 3;
        const float* v = b.d2.row(i);
        for (int t = 0; t < L8; ++t) y[t] += k[0] * v[t - 1] + k[1] * v[t] + k[2] * v[t + 1];
      }
      float sum = 0;
      for (int t = 0; t < L8; ++t) sum += y[t];
      b.lat[2 * head + c] = sum / static_cast<float>(L8);
    }
  }
}

/// z = mu + e·exp(logvar/2) when `sample` (e in lat[6..7]), else z = mu, into lat[4..5].
void choose_latent(float* lat, bool sample) {
  for (int c = 0; c < 2; ++c) lat[4 + c] = sample ? lat[c] + lat[6 + c] * std::exp(0.5F * lat[2 + c]) : lat[c];
}

/// z in lat[4..5] → the decoder's activations and the reconstruction b.a5.
void decode_beat(beat_work& b, const float* prm, const std::array<int64_t, slot_count + 1>& off, float al) {
  const auto W = [&](int s) { return slot_of(prm, off, s); };
  const int L = b.L, L8 = L / 8;
  const float z0 = b.lat[4], z1 = b.lat[5];
  const float* rw = W(restore_w);
  const float* rb = W(restore_b);
  for (int j = 0; j < L; ++j) b.r[j] = rb[j] + rw[2 * j] * z0 + rw[2 * j + 1] * z1;
  up_rows(b.r, L8, 8, b.ur);
  conv_forward<8, 4>(b.ur, W(conv3_w), W(conv3_b), b.a3);
  swish_up_rows(b.a3, 4, al, b.sg3, b.u3);
  conv_forward<4, 2>(b.u3, W(conv4_w), W(conv4_b), b.a4);
  swish_up_rows(b.a4, 2, al, b.sg4, b.u4);
  conv_forward<2, 1>(b.u4, W(conv5_w), W(conv5_b), b.a5);
}

/// mean_t (a5 − x)²; with `grad`, its gradient 2(a5 − x)/L into b.g5.
float reconstruction_mse(beat_work& b, bool grad) {
  const int L = b.L;
  const float* a5 = b.a5.row(0);
  const float* x = b.x.row(0);
  float* g = b.g5.row(0);
  float sq = 0;
#pragma omp simd reduction(+ : sq)
  for (int t = 0; t < L; ++t) {
    const float e = a5[t] - x[t];
    sq += e * e;
    if (grad) g[t] = 2.0F * e / static_cast<float>(L);
  }
  return sq / static_cast<float>(L);
}

/// The seed's KL term of one beat, −0.1 · mean_c (1 + logvar − mu² − e^logvar).
float kl_term(const float* lat) {
  float kl = 0;
  for (int c = 0; c < 2; ++c) kl += 1.0F + lat[2 + c] - lat[c] * lat[c] - std::exp(lat[2 + c]);
  return -0.1F * (kl / 2.0F);
}

// ---- backward layers -----------------------------------------------------------------------

/// gw[o,i,k] += Σ_t g[o,t]·in[i, t+k−1], gb[o] += Σ_t g[o,t].
template <int cin, int cout>
void conv_weight_grads(const padded& in, const padded& g, float* gw, float* gb) {
  const int n = g.n;
  for (int o = 0; o < cout; ++o) {
    const float* __restrict__ go = g.row(o);
    float bias = 0;
#pragma omp simd reduction(+ : bias)
    for (int t = 0; t < n; ++t) bias += go[t];
    gb[o] += bias;
    for (int i = 0; i < cin; ++i) {
      const float* __restrict__ v = in.row(i);
      float s0 = 0, s1 = 0, s2 = 0;
#pragma omp simd reduction(+ : s0, s1, s2)
      for (int t = 0; t < n; ++t) {
        s0 += go[t] * v[t - 1];
        s1 += go[t] * v[t];
        s2 += go[t] * v[t + 1];
      }
      float* k = gw + (o * cin + i) * 3;
      k[0] += s0;
      k[1] += s1;
      k[2] += s2;
    }
  }
}

/// gin (cin × n) = Σ_o Σ_k w[o,i,k]·g[o, j+1−k], the gradient of a convolution's input.
template <int cin, int cout>
void conv_input_grads(const padded& g, const float* w, const padded& gin) {
  const int n = g.n;
  for (int i = 0; i < cin; ++i) {
    float* __restrict__ y = gin.row(i);
    for (int j = 0; j < n; ++j) y[j] = 0.0F;
    for (int o = 0; o < cout; ++o) {
      const float* k = w + (o * cin + i) * 3;
      const float k0 = k[0], k1 = k[1], k2 = k[2];
      const float* __restrict__ go = g.row(o);
#pragma omp simd
      for (int j = 0; j < n; ++j) y[j] += k0 * go[j + 1] + k1 * go[j] + k2 * go[j - 1];
    }
  }
}

/// Through swish at pre-activation a (σ = sg): returns ga, adds α's gradient to galpha.
inline float swish_backward(float gs, float a, float s, float al, float& galpha) {
  const float ds = s * (1.0F - s);
  galpha += gs * a * a * ds;
  return gs * (s + al * a * ds);
}

/// ga (c × n) from the gradient gu (c × 2n) of up(swish(a)).
void up_swish_backward(const padded& gu, const padded& a, const padded& sg, int c, float al, const padded& ga,
                       float& galpha) {
  for (int ch = 0; ch < c; ++ch) {
    const float* u = gu.row(ch);
    const float* av = a.row(ch);
    const float* sv = sg.row(ch);
    float* out = ga.row(ch);
    float part = 0;
#pragma omp simd reduction(+ : part)
    for (int t = 0; t < a.n; ++t) out[t] = swish_backward(u[2 * t] + u[2 * t + 1], av[t], sv[t], al, part);
    galpha += part;
  }
}

/// ga (c × n) from the gradient gd (c × n/2) of down(swish(a)): sample 2t feeds output t with
/// weight 2, sample 2t+1 outputs t and t+1 with weight 1 (gd's padding is the missing t+1).
void down_swish_backward(const padded& gd, const padded& a, const padded& sg, int c, float al, const padded& ga,
                         float& galpha) {
  for (int ch = 0; ch < c; ++ch) {
    const float* g = gd.row(ch);
    const float* av = a.row(ch);
    const float* sv = sg.row(ch);
    float* out = ga.row(ch);
    float part = 0;
#pragma omp simd reduction(+ : part)
    for (int j = 0; j < a.n; ++j) {
      const int t = j / 2;
      const float gs = (j % 2 == 0) ? 2.0F * g[t] : g[t] + g[t + 1];
      out[j] = swish_backward(gs, av[j], sv[j], al, part);
    }
    galpha += part;
  }
}

/// The gradients of one beat's loss added to grd (packed as prm) and α's share to galpha; b holds
/// the beat's forward pass (its noise in lat[6..7]) and b.g5 the loss's gradient for a5.
void backward_beat(beat_work& b, const float* prm, float* grd, const std::array<int64_t, slot_count + 1>& off, float al,
                   float& galpha) {
  const auto W = [&](int s) { return slot_of(prm, off, s); };
  const auto G = [&](int s) { return grd + off[static_cast<std::size_t>(s)]; };
  const int L = b.L, L8 = L / 8;
  float* lat = b.lat;

  // ---- decoder
  conv_weight_grads<2, 1>(b.u4, b.g5, G(conv5_w), G(conv5_b));
  conv_input_grads<2, 1>(b.g5, W(conv5_w), b.gu4);
  up_swish_backward(b.gu4, b.a4, b.sg4, 2, al, b.ga4, galpha);
  conv_weight_grads<4, 2>(b.u3, b.ga4, G(conv4_w), G(conv4_b));
  conv_input_grads<4, 2>(b.ga4, W(conv4_w), b.gu3);
  up_swish_backward(b.gu3, b.a3, b.sg3, 4, al, b.ga3, galpha);
  conv_weight_grads<8, 4>(b.ur, b.ga3, G(conv3_w), G(conv3_b));
  conv_input_grads<8, 4>(b.ga3, W(conv3_w), b.gur);
  for (int c = 0; c < 8; ++c) {
    const float* u = b.gur.row(c);
    for (int t = 0; t < L8; ++t) b.gr[c * L8 + t] = u[2 * t] + u[2 * t + 1];
  }
  {
    const float z0 = lat[4], z1 = lat[5];
    float* gw = G(restore_w);
    float* gb = G(restore_b);
    const float* rw = W(restore_w);
    float gz0 = 0, gz1 = 0;
    for (int j = 0; j < L; ++j) {
      const float g = b.gr[j];
      gw[2 * j] += g * z0;
      gw[2 * j + 1] += g * z1;
      gb[j] += g;
      gz0 += g * rw[2 * j];
      gz1 += g * rw[2 * j + 1];
    }
    const float gz[2] = {gz0, gz1};
    for (int c = 0; c < 2; ++c) {
      const float mu = lat[c], lv = lat[2 + c], e = lat[6 + c];
      // z = mu + e·exp(lv/2); the KL term −0.1·mean_c(1 + lv − mu² − exp(lv)) over 2 latents.
      lat[8 + c] = gz[c] + 0.1F * mu;
      lat[10 + c] = gz[c] * 0.5F * e * std::exp(0.5F * lv) - 0.05F * (1.0F - std::exp(lv));
    }
  }

  // ---- encoder: convA/convB see a constant gradient g_mu/(L/8), g_lv/(L/8) along t
  {
    const float inv = 1.0F / static_cast<float>(L8);
    const float gA[2] = {lat[8] * inv, lat[9] * inv};
    const float gB[2] = {lat[10] * inv, lat[11] * inv};
    for (int i = 0; i < 16; ++i) {
      const float* v = b.d2.row(i);
      float whole = 0;
      for (int t = 0; t < L8; ++t) whole += v[t];
      // Σ_t d2(i, t+k−1): k = 0 leaves out the row's last sample, k = 2 its first.
      const float window[3] = {whole - v[L8 - 1], whole, whole - v[0]};
      for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 2; ++c) {
          G(convA_w)[(c * 16 + i) * 3 + k] += gA[c] * window[k];
          G(convB_w)[(c * 16 + i) * 3 + k] += gB[c] * window[k];
        }
      // g_d2[i][j] = Σ_k cw[i][k]·[0 ≤ j+1−k < L/8], cw[i][k] = Σ_c wA[c,i,k]·gA_c + wB[c,i,k]·gB_c.
      float cw[3];
      for (int k = 0; k < 3; ++k) {
        cw[k] = 0;
        for (int c = 0; c < 2; ++c)
          cw[k] += W(convA_w)[(c * 16 + i) * 3 + k] * gA[c] + W(convB_w)[(c * 16 + i) * 3 + k] * gB[c];
      }
      float* g = b.gd2.row(i);
      for (int j = 0; j < L8; ++j) g[j] = (j + 1 < L8 ? cw[0] : 0.0F) + cw[1] + (j > 0 ? cw[2] : 0.0F);
    }
    for (int c = 0; c < 2; ++c) {
      G(convA_b)[c] += lat[8 + c];
      G(convB_b)[c] += lat[10 + c];
    }
  }
  down_swish_backward(b.gd2, b.a2, b.sg2, 16, al, b.ga2, galpha);
  conv_weight_grads<8, 16>(b.d1, b.ga2, G(conv2_w), G(conv2_b));
  conv_input_grads<8, 16>(b.ga2, W(conv2_w), b.gd1);
  down_swish_backward(b.gd1, b.a1, b.sg1, 8, al, b.ga1, galpha);
  conv_weight_grads<4, 8>(b.d0, b.ga1, G(conv1_w), G(conv1_b));
  conv_input_grads<4, 8>(b.ga1, W(conv1_w), b.gd0);
  down_swish_backward(b.gd0, b.a0, b.sg0, 4, al, b.ga0, galpha);
  conv_weight_grads<1, 4>(b.x, b.ga0, G(conv0_w), G(conv0_b));
}

void load_row(beat_work& b, const float* src) { std::copy(src, src + b.L, b.x.row(0)); }

}  // namespace

double train_step(const step_args& a, int threads) {
  const int L = static_cast<int>(a.width);
  const auto off = light_vae_slot_offsets(a.width);
  const int64_t P = off.back();
  const int64_t chunks = (a.batch + chunk_rows - 1) / chunk_rows;
  // The chunks' sums, kept between steps (~0.4 MB for a batch of 1,024): each chunk zeroes its own
  // part, in parallel, instead of one thread clearing all of it first. The threads below share the
  // pointer; the thread_local vector is the calling thread's.
  thread_local std::vector<float> partial_store;
  partial_store.resize(static_cast<std::size_t>(chunks * P));
  float* const partial = partial_store.data();
  std::vector<double> chunk_loss(static_cast<std::size_t>(chunks));
  const float al = a.params[off[alpha]];
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t c = 0; c < chunks; ++c) {
    beat_work& b = work_for(L);
    float* grd = partial + c * P;
    std::fill(grd, grd + P, 0.0F);
    float galpha = 0;
    double loss = 0;
    const int64_t last = std::min(a.batch, (c + 1) * chunk_rows);
    for (int64_t r = c * chunk_rows; r < last; ++r) {
      load_row(b, a.data + a.rows[r] * a.width);
      b.lat[6] = a.eps[2 * r];
      b.lat[7] = a.eps[2 * r + 1];
      encode_beat(b, a.params, off, al);
      choose_latent(b.lat, true);
      decode_beat(b, a.params, off, al);
      const float mse = reconstruction_mse(b, true);
      loss += static_cast<double>(mse) + static_cast<double>(kl_term(b.lat));
      backward_beat(b, a.params, grd, off, al, galpha);
    }
    grd[off[alpha]] += galpha;
    chunk_loss[static_cast<std::size_t>(c)] = loss;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t p = 0; p < P; ++p) {
    double sum = 0;
    for (int64_t c = 0; c < chunks; ++c) sum += partial[c * P + p];
    a.grads[p] = static_cast<float>(sum);
  }
  double total = 0;
  for (const double v : chunk_loss) total += v;
  return total;
}

void score(const float* params, const float* data, int64_t width, int64_t rows, float* score, float* mu, int threads) {
  const int L = static_cast<int>(width);
  const auto off = light_vae_slot_offsets(width);
  const float al = params[off[alpha]];
#pragma omp parallel for schedule(static, chunk_rows) num_threads(threads)
  for (int64_t r = 0; r < rows; ++r) {
    beat_work& b = work_for(L);
    load_row(b, data + r * width);
    encode_beat(b, params, off, al);
    choose_latent(b.lat, false);
    decode_beat(b, params, off, al);
    score[r] = reconstruction_mse(b, false);
    mu[2 * r] = b.lat[0];
    mu[2 * r + 1] = b.lat[1];
  }
}

void row_losses(const float* params, const float* data, int64_t width, const int64_t* row_index, int64_t rows,
                const float* eps, float* losses, int threads) {
  const int L = static_cast<int>(width);
  const auto off = light_vae_slot_offsets(width);
  const float al = params[off[alpha]];
#pragma omp parallel for schedule(static, chunk_rows) num_threads(threads)
  for (int64_t r = 0; r < rows; ++r) {
    beat_work& b = work_for(L);
    load_row(b, data + row_index[r] * width);
    b.lat[6] = eps[2 * r];
    b.lat[7] = eps[2 * r + 1];
    encode_beat(b, params, off, al);
    choose_latent(b.lat, true);
    decode_beat(b, params, off, al);
    losses[r] = reconstruction_mse(b, false) + kl_term(b.lat);
  }
}

void decode(const float* params, const float* latents, int64_t width, int64_t rows, float* decoded, int threads) {
  const int L = static_cast<int>(width);
  const auto off = light_vae_slot_offsets(width);
  const float al = params[off[alpha]];
#pragma omp parallel for schedule(static, chunk_rows) num_threads(threads)
  for (int64_t r = 0; r < rows; ++r) {
    beat_work& b = work_for(L);
    b.lat[4] = latents[2 * r];
    b.lat[5] = latents[2 * r + 1];
    decode_beat(b, params, off, al);
    const float* a5 = b.a5.row(0);
    std::copy(a5, a5 + L, decoded + r * width);
  }
}

}  // namespace zeroflow::model::detail::cpu_vae::ZEROFLOW_CPU_ISA
