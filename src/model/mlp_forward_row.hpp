#pragma once
/// @file mlp_forward_row.hpp
/// Internal: the per-row arithmetic of the MLP autoencoder's forward pass in double, shared by
/// the host loop (mlp_forward_host.cpp) and the CUDA kernel (mlp_forward.cu), so that both give
/// the same bits. Every operation is a separately rounded IEEE operation (no fused multiply-add
/// on the device, whatever nvcc's -fmad says), sums run in a fixed order, and exp is our own,
/// built from + and × only, because the host's and the device's math libraries may differ in
/// the last bit.
#include <cstdint>

#include "zeroflow/core/detail/host_device.hpp"

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

namespace zeroflow::model::detail::mlp_row {

/// The output values of a row are summed in `lanes` strided partial sums (partial l holds the
/// outputs l, l + lanes, … in order), which are then folded pairwise: the order of one warp
/// that owns the row, so the host repeats exactly what the kernel does.
inline constexpr int lanes = 32;

ZF_HD inline double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

ZF_HD inline double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

ZF_HD inline double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

ZF_HD inline double div(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

ZF_HD inline double round_to_integer(double v) {
#if defined(__CUDA_ARCH__)
  return rint(v);
#else
  return std::rint(v);
#endif
}

ZF_HD inline double scale_by_power_of_two(double v, int e) {
#if defined(__CUDA_ARCH__)
  return ldexp(v, e);
#else
  return std::ldexp(v, e);
#endif
}

/// eᵗ within about one unit in the last place of a double: t = k·ln 2 + r with |r| ≤ ln 2 / 2
/// (ln 2 split in two so that k·ln2_hi is exact), a degree-13 Taylor polynomial for eʳ (its
/// truncation error is below 10⁻¹⁷), then an exact scaling by 2ᵏ.
ZF_HD inline double exp_of(double t) {
  if (t != t) return t;
  if (t > 709.78) return __builtin_huge_val();  // beyond the largest double
  if (t < -745.2) return 0.0;                   // below the smallest subnormal
  constexpr double log2_e = 0x1.71547652b82fep+0;
  constexpr double ln2_hi = 0x1.62e42fee00000p-1;
  constexpr double ln2_lo = 0x1.a39ef35793c76p-33;
  const double k = round_to_integer(mul(t, log2_e));
  const double r = sub(sub(t, mul(k, ln2_hi)), mul(k, ln2_lo));
  // 1/n! for n = 13 … 0, correctly rounded.
  double p = 0x1.6124613a86d09p-33;
  p = add(mul(p, r), 0x1.1eed8eff8d898p-29);
  p = add(mul(p, r), 0x1.ae64567f544e4p-26);
  p = add(mul(p, r), 0x1.27e4fb7789f5cp-22);
  p = add(mul(p, r), 0x1.71de3a556c734p-19);
  p = add(mul(p, r), 0x1.a01a01a01a01ap-16);
  p = add(mul(p, r), 0x1.a01a01a01a01ap-13);
  p = add(mul(p, r), 0x1.6c16c16c16c17p-10);
  p = add(mul(p, r), 0x1.1111111111111p-7);
  p = add(mul(p, r), 0x1.5555555555555p-5);
  p = add(mul(p, r), 0x1.5555555555555p-3);
  p = add(mul(p, r), 0x1.0000000000000p-1);
  p = add(mul(p, r), 1.0);
  p = add(mul(p, r), 1.0);
  return scale_by_power_of_two(p, static_cast<int>(k));
}

/// LibTorch's ReLU: NaN passes through.
ZF_HD inline double relu(double v) { return v < 0.0 ? 0.0 : v; }

/// LibTorch's sigmoid, 1 / (1 + e⁻ᵛ).
ZF_HD inline double sigmoid(double v) { return div(1.0, add(1.0, exp_of(-v))); }

/// One unit of a Linear layer, bias + Σ w[i]·in[i]: the products summed in index order, then
/// the bias added. `w` is the unit's row of the layer's weights.
template <class In>
ZF_HD inline double unit(const float* w, float bias, const In* in, std::int64_t n) {
  double acc = 0.0;
  for (std::int64_t i = 0; i < n; ++i) acc = add(acc, mul(static_cast<double>(w[i]), static_cast<double>(in[i])));
  return add(acc, static_cast<double>(bias));
}

/// Folds `lanes` partial sums as a warp's xor butterfly does (lane l adds lane l ^ offset for
/// offset = 16, 8, 4, 2, 1): after it, p[0] holds what every lane of the warp holds.
inline double fold_lanes(double* p) {
  for (int offset = lanes / 2; offset >= 1; offset /= 2)
    for (int l = 0; l < offset; ++l) p[l] = add(p[l], p[l + offset]);
  return p[0];
}

}  // namespace zeroflow::model::detail::mlp_row
