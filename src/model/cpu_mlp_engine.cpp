/// @file cpu_mlp_engine.cpp
/// The MLP autoencoder's own CPU engine (cpu_mlp_engine.hpp).
#include "cpu_mlp_engine.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "adam_update.hpp"
#include "cpu_threads.hpp"
#include "epoch_order.hpp"
#include "finite_rows.hpp"
#include "mlp_checks.hpp"
#include "mlp_forward.hpp"
#include "mlp_init.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/safetensors.hpp"
#include "zeroflow/memory/allocate.hpp"

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

/// The gradient of mean((x̂ − x)²) over the `m` rows `rows` of x (every value counts once) into
/// grads; returns that mean. Packed parameters in mlp_init.hpp's slot order.
double train_step(const mlp_shape& s, const std::array<std::int64_t, mlp_slots + 1>& off, const float* params,
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

class cpu_mlp final : public mlp_engine {
 public:
  cpu_mlp(const mlp_shape& shape, const std::vector<float>& params)
      : shape_{shape}, offsets_{mlp_slot_offsets(shape)}, params_{params} {
    ZF_EXPECTS(static_cast<std::int64_t>(params.size()) == offsets_.back(), "the MLP needs ", offsets_.back(),
               " parameters, got ", params.size());
  }

  mlp_train_result train(const array& rows, const mlp_train_options& options, stream_view) override {
    const array x = rows_here(rows);
    const std::int64_t n = x.shape(0);
    ZF_EXPECTS(n >= 1, "no rows to train on");
    mlp_train_result result;
    if (options.epochs == 0) return result;
    const std::int64_t count = offsets_.back();
    const std::int64_t batch = options.batch == 0 || options.batch >= n ? n : options.batch;
    std::vector<float> grads(static_cast<std::size_t>(count)), exp_avg(grads.size()), exp_avg_sq(grads.size());
    float step = 0.0F;
    const adam_update update{.params = params_.data(),
                             .grads = grads.data(),
                             .exp_avg = exp_avg.data(),
                             .exp_avg_sq = exp_avg_sq.data(),
                             .step = &step,
                             .count = count,
                             .learning_rate = options.learning_rate,
                             .weight_decay = options.weight_decay};
    std::vector<std::int64_t> all(static_cast<std::size_t>(n)), order;
    std::iota(all.begin(), all.end(), std::int64_t{0});
    const int threads = kernel_threads();
    for (int epoch = 0; epoch < options.epochs; ++epoch) {
      if (batch < n) epoch_order(all.data(), n, options.seed, epoch, threads, order);
      double loss = 0.0;
      for (std::int64_t first = 0; first < n; first += batch) {
        const std::int64_t m = std::min(batch, n - first);
        const std::int64_t* rows_of = batch < n ? order.data() + first : nullptr;
        loss += train_step(shape_, offsets_, params_.data(), static_cast<const float*>(x.data()), rows_of, m,
                           grads.data(), threads) *
                static_cast<double>(m);
        step += 1.0F;
        apply_adam_on_host(update);
      }
      loss /= static_cast<double>(n);
      if (!std::isfinite(loss)) throw_mlp_diverged(epoch, loss, options);
      result.epoch_loss.push_back(loss);
      if (options.on_epoch) options.on_epoch(epoch, loss);
    }
    return result;
  }

  [[nodiscard]] array reconstruct(const array& rows, stream_view) const override {
    const array x = rows_here(rows);
    array out = empty(rows.shape(), float32, cpu_device);
    forward(x, nullptr, static_cast<float*>(out.data()));
    return out;
  }

  [[nodiscard]] array score(const array& rows, stream_view) const override {
    const array x = rows_here(rows);
    array out = empty({x.shape(0)}, float32, cpu_device);
    forward(x, static_cast<float*>(out.data()), nullptr);
    return out;
  }

  [[nodiscard]] std::vector<io::safetensor> weights() const override {
    std::vector<io::safetensor> out;
    for (int s = 0; s < mlp_slots; ++s)
      out.push_back(io::make_safetensor(mlp_slot_names[static_cast<std::size_t>(s)], mlp_slot_shape(s, shape_),
                                        params_.data() + offsets_[static_cast<std::size_t>(s)]));
    return out;
  }

  [[nodiscard]] const mlp_shape& shape() const override { return shape_; }
  [[nodiscard]] device where() const override { return cpu_device; }
  [[nodiscard]] std::int64_t parameter_count() const override { return offsets_.back(); }

 private:
  /// The rows as a contiguous N × F host array (a view when they already are), checked finite.
  array rows_here(const array& rows) const {
    check_mlp_rows(rows, shape_.features);
    const array x = rows.where() == cpu_device && rows.is_contiguous() ? rows : copy_to(rows, cpu_device);
    const non_finite_count bad =
        count_non_finite_on_host(static_cast<const float*>(x.data()), x.shape(0), shape_.features, shape_.features, 1);
    if (bad.count > 0) throw_mlp_non_finite(bad.count, bad.first / shape_.features);
    return x;
  }

  /// mlp_forward's scoring pass over every row, rows spread over threads (each row's result
  /// depends on that row alone).
  void forward(const array& x, float* score, float* recon) const {
    const mlp_forward::weights w = mlp_weights_at(params_.data(), shape_);
    const auto* values = static_cast<const float*>(x.data());
    const std::int64_t n = x.shape(0);
    const std::int64_t chunks = (n + chunk_rows - 1) / chunk_rows;
#pragma omp parallel for schedule(static) num_threads(kernel_threads())
    for (std::int64_t c = 0; c < chunks; ++c)
      mlp_forward::forward_rows_host(w, values, c * chunk_rows, std::min(n, (c + 1) * chunk_rows), score, recon);
  }

  mlp_shape shape_;
  std::array<std::int64_t, mlp_slots + 1> offsets_;
  std::vector<float> params_;
};

}  // namespace

std::unique_ptr<mlp_engine> make_cpu_mlp(const mlp_shape& shape, const std::vector<float>& params) {
  check_mlp_shape(shape);
  return std::make_unique<cpu_mlp>(shape, params);
}

}  // namespace zeroflow::model::detail
