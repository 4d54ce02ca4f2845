/// @file min_max.cpp
/// Min-max scaling (min_max.hpp): argument checks, the dispatch on the input's device, and the
/// host implementation. The CUDA half is min_max.cu.
#include "zeroflow/signal/min_max.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

#include "checks.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/detail/parallel_chunks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/min_max.hpp"

namespace zeroflow::signal {

namespace {

void expect_floating_matrix(const array& x, const char* what) {
  ZF_EXPECTS(x.valid(), what, " is an empty placeholder array (no buffer)");
  ZF_EXPECTS(x.ndim() == 1 || x.ndim() == 2, what, " must be 1-D (one column) or 2-D (rows x columns), got ", x.ndim(),
             " dimensions");
  ZF_EXPECTS(x.type() == float32 || x.type() == float64, what, " must be float32 or float64, got ", x.type().name(),
             " (convert integers to floats first)");
}

void expect_coefficients(const array& x, const array& coefficients, const char* what) {
  ZF_EXPECTS(coefficients.valid() && coefficients.ndim() == 1, what, " must be a 1-D array");
  ZF_EXPECTS(coefficients.type() == x.type(), what, " is ", coefficients.type().name(), " but the data is ",
             x.type().name(), ": fit and transform data of one dtype");
  ZF_EXPECTS(coefficients.where() == x.where(), what, " is on ", coefficients.where().name(), " but the data on ",
             x.where().name());
  const std::int64_t cols = detail::matrix_of(x).cols;
  ZF_EXPECTS(coefficients.size() == cols, "the data has ", cols, cols == 1 ? " column" : " columns",
             " but the scaling was fitted on ", coefficients.size());
}

void expect_range(feature_range range) {
  ZF_EXPECTS(std::isfinite(range.lo) && std::isfinite(range.hi) && range.lo < range.hi,
             "the feature range must be two finite numbers, the first smaller, got (", range.lo, ", ", range.hi, ")");
}

array apply(const array& x, const array& scale, const array& offset, std::optional<feature_range> clip, bool inverse,
            stream_view stream) {
  const char* what = inverse ? "min_max_inverse: data" : "min_max_transform: data";
  expect_floating_matrix(x, what);
  expect_coefficients(x, scale, "the scale");
  expect_coefficients(x, offset, "the offset");
  if (clip) expect_range(*clip);
  if (detail::on_cuda(x)) return detail::min_max_apply_cuda(x, scale, offset, clip, inverse, stream);
  return detail::min_max_apply_host(x, scale, offset, clip, inverse, stream);
}

}  // namespace

min_max_scaling min_max_fit(const array& x, feature_range range, stream_view stream) {
  expect_floating_matrix(x, "min_max_fit: data");
  expect_range(range);
  ZF_EXPECTS(detail::matrix_of(x).rows >= 1, "min_max_fit needs at least one row, got 0");
  if (detail::on_cuda(x)) return detail::min_max_fit_cuda(x, range, stream);
  return detail::min_max_fit_host(x, range, stream);
}

array min_max_transform(const array& x, const array& scale, const array& offset, std::optional<feature_range> clip,
                        stream_view stream) {
  return apply(x, scale, offset, clip, false, stream);
}

array min_max_inverse(const array& y, const array& scale, const array& offset, stream_view stream) {
  return apply(y, scale, offset, std::nullopt, true, stream);
}

namespace detail {

matrix_view matrix_of(const array& x) {
  if (x.ndim() == 1) return {x.shape(0), 1, x.strides()[0], 0};
  return {x.shape(0), x.shape(1), x.strides()[0], x.strides()[1]};
}

namespace {

// The GPU ranks values by order-preserving integer keys, which put −0 below +0; the host ranks
// the same way so that both report the same signed zero.
template <class T>
bool before(T a, T b) {
  return a < b || (a == b && std::signbit(a) && !std::signbit(b));
}

template <class T>
min_max_scaling fit_host(const array& x, feature_range range, stream_view stream) {
  const matrix_view m = matrix_of(x);
  const auto cols = static_cast<std::size_t>(m.cols);
  const T* base = x.data_as<const T>();
  std::vector<T> low(cols), high(cols);
  std::vector<char> seen(cols, 0);
  std::mutex merge;
  zeroflow::detail::parallel_chunks(m.rows, std::max<std::int64_t>(1, (std::int64_t{1} << 16) / m.cols),
                                    [&](std::int64_t r0, std::int64_t r1) {
                                      std::vector<T> lo(cols), hi(cols);
                                      std::vector<char> any(cols, 0);
                                      for (std::int64_t r = r0; r < r1; ++r) {
                                        const T* row = base + r * m.row_stride;
                                        for (std::size_t c = 0; c < cols; ++c) {
                                          const T v = row[static_cast<std::int64_t>(c) * m.col_stride];
                                          if (std::isnan(v)) continue;
                                          if (!any[c]) {
                                            lo[c] = hi[c] = v, any[c] = 1;
                                          } else {
                                            if (before(v, lo[c])) lo[c] = v;
                                            if (before(hi[c], v)) hi[c] = v;
                                          }
                                        }
                                      }
                                      std::lock_guard lock(merge);
                                      for (std::size_t c = 0; c < cols; ++c) {
                                        if (!any[c]) continue;
                                        if (!seen[c]) {
                                          low[c] = lo[c], high[c] = hi[c], seen[c] = 1;
                                        } else {
                                          if (before(lo[c], low[c])) low[c] = lo[c];
                                          if (before(high[c], hi[c])) high[c] = hi[c];
                                        }
                                      }
                                    });

  min_max_scaling out;
  for (array* a : {&out.data_min, &out.data_max, &out.data_range, &out.scale, &out.offset})
    *a = empty({m.cols}, x.type(), x.where(), stream);
  const T lo = static_cast<T>(range.lo), hi = static_cast<T>(range.hi);
  const T span = hi - lo;
  const T tiny = T(10) * std::numeric_limits<T>::epsilon();  // scikit-learn's constant-column bound
  for (std::size_t c = 0; c < cols; ++c) {
    const T mn = seen[c] ? low[c] : std::numeric_limits<T>::quiet_NaN();
    const T mx = seen[c] ? high[c] : std::numeric_limits<T>::quiet_NaN();
    const T width = mx - mn;
    const T scale = span / (width < tiny ? T(1) : width);
    const T product = mn * scale;
    out.data_min.data_as<T>()[c] = mn;
    out.data_max.data_as<T>()[c] = mx;
    out.data_range.data_as<T>()[c] = width;
    out.scale.data_as<T>()[c] = scale;
    out.offset.data_as<T>()[c] = lo - product;
  }
  return out;
}

template <class T>
array apply_host(const array& x, const array& scale_array, const array& offset_array, std::optional<feature_range> clip,
                 bool inverse, stream_view stream) {
  const matrix_view m = matrix_of(x);
  array out = empty(x.shape(), x.type(), x.where(), stream);
  const T* in = x.data_as<const T>();
  T* dst = out.data_as<T>();
  const array scale_c = host_input(scale_array, stream), offset_c = host_input(offset_array, stream);
  const T* scale = scale_c.data_as<const T>();
  const T* offset = offset_c.data_as<const T>();
  const T lo = clip ? static_cast<T>(clip->lo) : T(0), hi = clip ? static_cast<T>(clip->hi) : T(0);
  zeroflow::detail::parallel_chunks(
      m.rows, std::max<std::int64_t>(1, (std::int64_t{1} << 16) / std::max<std::int64_t>(m.cols, 1)),
      [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          const T* row = in + r * m.row_stride;
          T* to = dst + r * m.cols;
          for (std::int64_t c = 0; c < m.cols; ++c) {
            const T v = row[c * m.col_stride];
            T y;
            if (inverse) {
              const T shifted = v - offset[c];
              y = shifted / scale[c];
            } else {
              const T scaled = v * scale[c];  // rounded before the add, as NumPy does it
              y = scaled + offset[c];
              if (clip) y = y < lo ? lo : (y > hi ? hi : y);  // NaN stays NaN
            }
            to[c] = y;
          }
        }
      });
  return out;
}

}  // namespace

min_max_scaling min_max_fit_host(const array& x, feature_range range, stream_view stream) {
  if (x.where().is_cuda()) synchronize(stream);  // pinned or managed memory the GPU may still write
  return x.type() == float32 ? fit_host<float>(x, range, stream) : fit_host<double>(x, range, stream);
}

array min_max_apply_host(const array& x, const array& scale, const array& offset, std::optional<feature_range> clip,
                         bool inverse, stream_view stream) {
  if (x.where().is_cuda()) synchronize(stream);
  return x.type() == float32 ? apply_host<float>(x, scale, offset, clip, inverse, stream)
                             : apply_host<double>(x, scale, offset, clip, inverse, stream);
}

#if !ZEROFLOW_HAS_CUDA
min_max_scaling min_max_fit_cuda(const array&, feature_range, stream_view) {
  ZF_THROW(cuda_error,
           "min-max scaling on a CUDA device needs a CUDA build of zeroflow (configure with ZEROFLOW_CUDA=ON)");
}
array min_max_apply_cuda(const array&, const array&, const array&, std::optional<feature_range>, bool, stream_view) {
  ZF_THROW(cuda_error,
           "min-max scaling on a CUDA device needs a CUDA build of zeroflow (configure with ZEROFLOW_CUDA=ON)");
}
#endif

}  // namespace detail
}  // namespace zeroflow::signal
