/// @file cpu_ops.cpp
/// Hand-written CPU kernels for the LightVAE's tiny-channel convolutions (see cpu_ops.hpp).
#include "cpu_ops.hpp"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <vector>

#include "zeroflow/core/error.hpp"

namespace zeroflow::model::detail {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// Rows of the batch per weight-gradient partial: fixed, so the summation order is too.
constexpr std::int64_t grad_chunk = 32;

// y[t] += w0·x[t−1] + w1·x[t] + w2·x[t+1] with zeros outside [0, len).
inline void accumulate_taps(float* __restrict y, const float* __restrict x, std::int64_t len, float w0, float w1,
                            float w2) {
  if (len == 1) {
    y[0] += w1 * x[0];
    return;
  }
  y[0] += w1 * x[0] + w2 * x[1];
  for (std::int64_t t = 1; t < len - 1; ++t) y[t] += w0 * x[t - 1] + w1 * x[t] + w2 * x[t + 1];
  y[len - 1] += w0 * x[len - 2] + w1 * x[len - 1];
}

// Σ_t a[t]·b[t + shift] over the t where both exist, shift ∈ {−1, 0, 1}. Eight independent
// partial sums, so the compiler can vectorise without reordering anything (the order is fixed).
inline double shifted_dot(const float* __restrict a, const float* __restrict b, std::int64_t len, int shift) {
  const std::int64_t begin = shift < 0 ? 1 : 0;
  const std::int64_t end = shift > 0 ? len - 1 : len;
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t t = begin;
  for (; t + 8 <= end; t += 8)
    for (int j = 0; j < 8; ++j) acc[j] += a[t + j] * b[t + j + shift];
  for (; t < end; ++t) acc[0] += a[t] * b[t + shift];
  double s = 0;
  for (const float v : acc) s += v;
  return s;
}

torch::Tensor conv_forward(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  const std::int64_t n = x.size(0), c = x.size(1), len = x.size(2), o = w.size(0);
  torch::Tensor y = torch::empty({n, o, len}, x.options());
  const float* xp = x.data_ptr<float>();
  const float* wp = w.data_ptr<float>();
  const float* bp = b.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, n, 8, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i)
      for (std::int64_t oc = 0; oc < o; ++oc) {
        float* yr = yp + (i * o + oc) * len;
        std::fill(yr, yr + len, bp[oc]);
        for (std::int64_t ic = 0; ic < c; ++ic) {
          const float* k = wp + (oc * c + ic) * 3;
          accumulate_taps(yr, xp + (i * c + ic) * len, len, k[0], k[1], k[2]);
        }
      }
  });
  return y;
}

// ∂L/∂x[c, s] = Σ_o w[o,c,0]·gy[o,s+1] + w[o,c,1]·gy[o,s] + w[o,c,2]·gy[o,s−1]: the same taps,
// mirrored.
torch::Tensor conv_backward_input(const torch::Tensor& gy, const torch::Tensor& w, std::int64_t c) {
  const std::int64_t n = gy.size(0), o = gy.size(1), len = gy.size(2);
  torch::Tensor gx = torch::empty({n, c, len}, gy.options());
  const float* gp = gy.data_ptr<float>();
  const float* wp = w.data_ptr<float>();
  float* xp = gx.data_ptr<float>();
  at::parallel_for(0, n, 8, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i)
      for (std::int64_t ic = 0; ic < c; ++ic) {
        float* xr = xp + (i * c + ic) * len;
        std::fill(xr, xr + len, 0.0F);
        for (std::int64_t oc = 0; oc < o; ++oc) {
          const float* k = wp + (oc * c + ic) * 3;
          accumulate_taps(xr, gp + (i * o + oc) * len, len, k[2], k[1], k[0]);
        }
      }
  });
  return gx;
}

// ∂L/∂w[o,c,k] = Σ_n Σ_t gy[n,o,t]·x[n,c,t+k−1] and ∂L/∂b[o] = Σ_n Σ_t gy[n,o,t]; partial sums
// per chunk of grad_chunk rows (in double), added chunk by chunk in order.
std::pair<torch::Tensor, torch::Tensor> conv_backward_weight(const torch::Tensor& gy, const torch::Tensor& x) {
  const std::int64_t n = gy.size(0), o = gy.size(1), len = gy.size(2), c = x.size(1);
  const std::int64_t per_chunk = o * c * 3 + o;
  const std::int64_t chunks = (n + grad_chunk - 1) / grad_chunk;
  std::vector<double> partial(static_cast<std::size_t>(chunks * per_chunk), 0.0);
  const float* gp = gy.data_ptr<float>();
  const float* xp = x.data_ptr<float>();
  at::parallel_for(0, chunks, 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t ch = lo; ch < hi; ++ch) {
      double* acc = partial.data() + ch * per_chunk;
      for (std::int64_t i = ch * grad_chunk; i < std::min(n, (ch + 1) * grad_chunk); ++i)
        for (std::int64_t oc = 0; oc < o; ++oc) {
          const float* g = gp + (i * o + oc) * len;
          for (std::int64_t ic = 0; ic < c; ++ic) {
            const float* xr = xp + (i * c + ic) * len;
            double* k = acc + (oc * c + ic) * 3;
            k[0] += shifted_dot(g, xr, len, -1);
            k[1] += shifted_dot(g, xr, len, 0);
            k[2] += shifted_dot(g, xr, len, 1);
          }
          double s = 0;
          for (std::int64_t t = 0; t < len; ++t) s += g[t];
          acc[o * c * 3 + oc] += s;
        }
    }
  });
  std::vector<double> total(static_cast<std::size_t>(per_chunk), 0.0);
  for (std::int64_t ch = 0; ch < chunks; ++ch)
    for (std::int64_t j = 0; j < per_chunk; ++j)
      total[static_cast<std::size_t>(j)] += partial[static_cast<std::size_t>(ch * per_chunk + j)];
  torch::Tensor all = torch::from_blob(total.data(), {per_chunk}, torch::kDouble).to(torch::kFloat);
  return {all.slice(0, 0, o * c * 3).view({o, c, 3}), all.slice(0, o * c * 3, per_chunk).clone()};
}

class conv1d_k3_function : public torch::autograd::Function<conv1d_k3_function> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               const torch::Tensor& bias) {
    torch::Tensor xc = x.contiguous();
    torch::Tensor wc = weight.contiguous();
    ctx->save_for_backward({xc, wc});
    return conv_forward(xc, wc, bias.contiguous());
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& w = saved[1];
    const torch::Tensor gy = grads[0].contiguous();
    torch::Tensor gx;
    torch::Tensor gw;
    torch::Tensor gb;
    if (ctx->needs_input_grad(0)) gx = conv_backward_input(gy, w, x.size(1));
    if (ctx->needs_input_grad(1) || ctx->needs_input_grad(2)) std::tie(gw, gb) = conv_backward_weight(gy, x);
    return {gx, gw, gb};
  }
};

torch::Tensor down_forward(const torch::Tensor& x, const float f[3]) {
  const std::int64_t rows = x.size(0) * x.size(1), len = x.size(2), out = (len - 1) / 2 + 1;
  torch::Tensor y = torch::empty({x.size(0), x.size(1), out}, x.options());
  const float* xp = x.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, rows, 64, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t r = lo; r < hi; ++r) {
      const float* xr = xp + r * len;
      float* yr = yp + r * out;
      for (std::int64_t t = 0; t < out; ++t) {
        const std::int64_t s = 2 * t;
        const float left = s >= 1 ? xr[s - 1] : 0.0F;
        const float right = s + 1 < len ? xr[s + 1] : 0.0F;
        yr[t] = f[0] * left + f[1] * xr[s] + f[2] * right;
      }
    }
  });
  return y;
}

torch::Tensor down_backward(const torch::Tensor& gy, std::int64_t len, const float f[3]) {
  const std::int64_t rows = gy.size(0) * gy.size(1), out = gy.size(2);
  torch::Tensor gx = torch::empty({gy.size(0), gy.size(1), len}, gy.options());
  const float* gp = gy.data_ptr<float>();
  float* xp = gx.data_ptr<float>();
  at::parallel_for(0, rows, 64, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t r = lo; r < hi; ++r) {
      const float* g = gp + r * out;
      float* xr = xp + r * len;
      // x[2t] feeds y[t] through f1; x[2t+1] feeds y[t] through f2 and y[t+1] through f0.
      for (std::int64_t s = 0; s < len; ++s) {
        const std::int64_t t = s / 2;
        xr[s] = (s % 2 == 0) ? f[1] * g[t] : f[2] * g[t] + (t + 1 < out ? f[0] * g[t + 1] : 0.0F);
      }
    }
  });
  return gx;
}

class downsample3_function : public torch::autograd::Function<downsample3_function> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& filter) {
    const torch::Tensor f = filter.to(torch::kFloat).contiguous().view({3});
    ctx->save_for_backward({f});
    ctx->saved_data["length"] = x.size(2);
    return down_forward(x.contiguous(), f.data_ptr<float>());
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const torch::Tensor f = ctx->get_saved_variables()[0];
    const std::int64_t len = ctx->saved_data["length"].toInt();
    return {down_backward(grads[0].contiguous(), len, f.data_ptr<float>()), torch::Tensor()};
  }
};

}  // namespace

bool uses_cpu_kernels(const torch::Tensor& x, const torch::Tensor& weight) {
  return x.is_cpu() && weight.is_cpu() && x.scalar_type() == torch::kFloat && weight.scalar_type() == torch::kFloat &&
         x.dim() == 3;
}

torch::Tensor conv1d_k3(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  ZF_EXPECTS(weight.dim() == 3 && weight.size(2) == 3, "conv1d_k3 needs an (O, C, 3) weight");
  if (!uses_cpu_kernels(x, weight) || bias.scalar_type() != torch::kFloat)
    return torch::conv1d(x, weight, bias, /*stride=*/1, /*padding=*/1);
  ZF_EXPECTS(x.size(1) == weight.size(1), "conv1d_k3: ", x.size(1), " input channels, weight expects ", weight.size(1));
  return conv1d_k3_function::apply(x, weight, bias);
}

torch::Tensor downsample3(const torch::Tensor& x, const torch::Tensor& filter) {
  ZF_EXPECTS(filter.numel() == 3, "downsample3 needs a 3-tap filter");
  if (!uses_cpu_kernels(x, filter) || filter.requires_grad()) {
    const std::int64_t channels = x.size(1);
    const torch::Tensor weight = filter.reshape({1, 1, 3}).expand({channels, 1, 3}).contiguous();
    return torch::conv1d(x, weight, /*bias=*/{}, /*stride=*/2, /*padding=*/1, /*dilation=*/1, /*groups=*/channels);
  }
  return downsample3_function::apply(x, filter);
}

}  // namespace zeroflow::model::detail
