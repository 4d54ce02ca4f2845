#include "zeroflow/eval/quantile.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <utility>
#include <vector>

#include "order_statistics.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::eval {
namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

/// Where the q-quantile of n values lies, as NumPy's "linear" method puts it: the virtual index
/// (n - 1) q, the order statistic at its floor, the next one (the last for an index at the end),
/// and the weight of the next one.
struct position {
  std::int64_t below = 0, above = 0;
  double t = 0;
};

position position_of(std::int64_t n, double q) {
  ZF_EXPECTS(q >= 0.0 && q <= 1.0, "a quantile must lie in [0, 1], not ", q);
  const double at = static_cast<double>(n - 1) * q;
  position p;
  p.below = static_cast<std::int64_t>(std::floor(at));
  p.above = std::min(p.below + 1, n - 1);
  p.t = at - static_cast<double>(p.below);
  return p;
}

/// numpy's _lerp: from the nearer end, so that a weight near 1 does not round away from b.
double interpolate(double a, double b, double t) {
  const double difference = b - a;
  return t >= 0.5 ? b - difference * (1.0 - t) : a + difference * t;
}

/// The values of ranks `below` and `above` (above <= below + 1) of `v`, which it reorders.
std::pair<double, double> select(std::vector<double>& v, const position& p) {
  const auto at = v.begin() + static_cast<std::ptrdiff_t>(p.below);
  std::nth_element(v.begin(), at, v.end());
  // nth_element left only larger-or-equal values after `below`: the next order statistic is their least.
  return {*at, p.above == p.below ? *at : *std::min_element(at + 1, v.end())};
}

template <class T>
std::vector<double> widened(std::span<const T> values) {
  ZF_EXPECTS(!values.empty(), "the quantile of no values is undefined: give at least one value");
  return {values.begin(), values.end()};
}

bool any_nan(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); });
}

double quantile_of(std::vector<double>& v, double q) {
  const position p = position_of(static_cast<std::int64_t>(v.size()), q);
  if (any_nan(v)) return not_a_number;
  const auto [a, b] = select(v, p);
  return interpolate(a, b, p.t);
}

void check_k(double k) { ZF_EXPECTS(std::isfinite(k) && k >= 0.0, "Tukey's k must be a finite number >= 0, not ", k); }

tukey_fence fence_of(std::vector<double>& v, double k) {
  check_k(k);
  tukey_fence f;
  f.k = k;
  f.q1 = quantile_of(v, 0.25);
  f.q3 = quantile_of(v, 0.75);
  return f;
}

void check_array(const array& values) {
  ZF_EXPECTS(values.ndim() == 1, "the values must be a 1-D array, not ", values.ndim(), "-D");
  ZF_EXPECTS(values.type() == float32 || values.type() == float64, "the values must be float32 or float64");
  ZF_EXPECTS(values.size() > 0, "the quantile of no values is undefined: give at least one value");
}

/// The values of a host-accessible 1-D array, widened to double (any stride).
std::vector<double> host_values(const array& values, stream_view stream) {
  if (values.where().type != device_type::cpu) synchronize(stream);  // pinned or managed memory a GPU may still write
  const std::int64_t n = values.size(), stride = values.strides()[0];
  std::vector<double> v(static_cast<std::size_t>(n));
  if (values.type() == float32) {
    const auto* x = static_cast<const float*>(values.data());
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = x[i * stride];
  } else {
    const auto* x = static_cast<const double*>(values.data());
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = x[i * stride];
  }
  return v;
}

/// The quantiles `qs` of a GPU array: the order statistics selected there, interpolated here.
std::vector<double> device_quantiles(const array& values, std::initializer_list<double> qs, stream_view stream) {
  std::vector<position> at;
  std::vector<std::int64_t> ranks;
  for (double q : qs) {
    at.push_back(position_of(values.size(), q));
    ranks.push_back(at.back().below);
    ranks.push_back(at.back().above);
  }
#if ZEROFLOW_HAS_CUDA
  const detail::order_statistics picked = detail::order_statistics_cuda(values, ranks, stream);
  std::vector<double> out;
  for (std::size_t j = 0; j < at.size(); ++j)
    out.push_back(picked.has_nan ? not_a_number : interpolate(picked.values[2 * j], picked.values[2 * j + 1], at[j].t));
  return out;
#else
  (void)stream;
  ZF_THROW(cuda_error, "the values are on ", values.where().name(), ", and this zeroflow was built without CUDA");
#endif
}

}  // namespace

double quantile(std::span<const float> values, double q) {
  auto v = widened(values);
  return quantile_of(v, q);
}

double quantile(std::span<const double> values, double q) {
  auto v = widened(values);
  return quantile_of(v, q);
}

tukey_fence tukey_fence_of(std::span<const float> values, double k) {
  auto v = widened(values);
  return fence_of(v, k);
}

tukey_fence tukey_fence_of(std::span<const double> values, double k) {
  auto v = widened(values);
  return fence_of(v, k);
}

double quantile(const array& values, double q, stream_view stream) {
  check_array(values);
  if (values.where().type == device_type::cuda) return device_quantiles(values, {q}, stream).at(0);
  auto v = host_values(values, stream);
  return quantile_of(v, q);
}

tukey_fence tukey_fence_of(const array& values, double k, stream_view stream) {
  check_array(values);
  if (values.where().type != device_type::cuda) {
    auto v = host_values(values, stream);
    return fence_of(v, k);
  }
  check_k(k);
  const auto q = device_quantiles(values, {0.25, 0.75}, stream);
  tukey_fence f;
  f.k = k;
  f.q1 = q[0];
  f.q3 = q[1];
  return f;
}

}  // namespace zeroflow::eval
