/// @file cpu_mlp_step.cpp
/// The MLP autoencoder's training step on the CPU (cpu_mlp_step.hpp).
#include "cpu_mlp_step.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace zeroflow::model::detail {

namespace {

/// Rows a thread takes at a time, and the unit of the gradients' summation order: a step gives
/// the same bits whatever the thread count.
constexpr std::int64_t chunk_rows = 256;

float sigmoid(float v) { return 1.0F / (1.0F + std::exp(-v)); }

/// out[j] = relu(b[j] + Σ_k w[j·in + k]·v[k]) for j < n_out.
void dense_relu(const float* w, const float* b, const float* v, std::int64_t in, std::int64_t n_out, float* out) {
  for (std::int64_t j = 0; j < n_out; ++j) {
    float acc = b[j];
    const float* row = w + j * in;
    for (std::int64_t k = 0; k < in; ++k) acc += row[k] * v[k];
    out[j] = acc > 0.0F ? acc : 0.0F;
  }
}

/// delta[j] = (act[j] > 0) · Σ_i w[i·n + j]·upstream[i], the gradient of a ReLU layer's
/// pre-activation from the next layer's.
void relu_delta(const float* w, const float* upstream, std::int64_t n_up, std::int64_t n, const float* act,
                float* delta) {
  for (std::int64_t j = 0; j < n; ++j) delta[j] = 0.0F;
  for (std::int64_t i = 0; i < n_up; ++i) {
    const float u = upstream[i];
    const float* row = w + i * n;
    for (std::int64_t j = 0; j < n; ++j) delta[j] += row[j] * u;
  }
  for (std::int64_t j = 0; j < n; ++j) delta[j] = act[j] > 0.0F ? delta[j] : 0.0F;
}

/// gw[o·an + i] += d[o]·a[i], gb[o] += d[o].
void outer_add(const float* d, std::int64_t dn, const float* a, std::int64_t an, float* gw, float* gb) {
  for (std::int64_t o = 0; o < dn; ++o) {
    const float v = d[o];
    float* row = gw + o * an;
    for (std::int64_t i = 0; i < an; ++i) row[i] += v * a[i];
    gb[o] += v;
  }
}

}  // namespace

double cpu_mlp_step(const mlp_shape& s, const std::array<std::int64_t, mlp_slots + 1>& off, const float* params,
                    const float* x, const std::int64_t* rows, std::int64_t m, float* grads, int threads) {
  const std::int64_t F = s.features, H = s.hidden, C = s.code, P = off.back();
  const auto at = [&](int slot) { return params + off[static_cast<std::size_t>(slot)]; };
  const float *w1 = at(0), *b1 = at(1), *w2 = at(2), *b2 = at(3), *w3 = at(4), *b3 = at(5), *w4 = at(6), *b4 = at(7);
  const std::int64_t chunks = (m + chunk_rows - 1) / chunk_rows;
  std::vector<float> partial(static_cast<std::size_t>(chunks * P));
  std::vector<double> chunk_sq(static_cast<std::size_t>(chunks));
  const float scale = 2.0F / static_cast<float>(static_cast<double>(m) * static_cast<double>(F));
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> act(static_cast<std::size_t>(2 * H + C + F)), delta(act.size());
    float *h1 = act.data(), *h2 = h1 + H, *h3 = h2 + C, *out = h3 + H;
    float *d1 = delta.data(), *d2 = d1 + H, *d3 = d2 + C, *d4 = d3 + H;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < chunks; ++c) {
      float* g = partial.data() + c * P;
      const auto G = [&](int slot) { return g + off[static_cast<std::size_t>(slot)]; };
      double sq = 0.0;
      for (std::int64_t r = c * chunk_rows; r < std::min(m, (c + 1) * chunk_rows); ++r) {
        const float* xr = x + (rows != nullptr ? rows[r] : r) * F;
        dense_relu(w1, b1, xr, F, H, h1);
        dense_relu(w2, b2, h1, H, C, h2);
        dense_relu(w3, b3, h2, C, H, h3);
        for (std::int64_t k = 0; k < F; ++k) {
          float acc = b4[k];
          for (std::int64_t j = 0; j < H; ++j) acc += w4[k * H + j] * h3[j];
          out[k] = sigmoid(acc);
          const float e = out[k] - xr[k];
          sq += static_cast<double>(e) * e;
          d4[k] = scale * e * out[k] * (1.0F - out[k]);
        }
        outer_add(d4, F, h3, H, G(6), G(7));
        relu_delta(w4, d4, F, H, h3, d3);
        outer_add(d3, H, h2, C, G(4), G(5));
        relu_delta(w3, d3, H, C, h2, d2);
        outer_add(d2, C, h1, H, G(2), G(3));
        relu_delta(w2, d2, C, H, h1, d1);
        outer_add(d1, H, xr, F, G(0), G(1));
      }
      chunk_sq[static_cast<std::size_t>(c)] = sq;
    }
#pragma omp for schedule(static)
    for (std::int64_t p = 0; p < P; ++p) {
      double sum = 0.0;
      for (std::int64_t c = 0; c < chunks; ++c) sum += partial[static_cast<std::size_t>(c * P + p)];
      grads[p] = static_cast<float>(sum);
    }
  }
  return std::accumulate(chunk_sq.begin(), chunk_sq.end(), 0.0) / (static_cast<double>(m) * static_cast<double>(F));
}

}  // namespace zeroflow::model::detail
