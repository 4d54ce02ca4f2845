// CUDA half of min_max.hpp: per-column minimum and maximum by order-preserving integer keys and
// atomics, then scale and offset per column, and the element-wise transform and its inverse.
//
// Reduction layout: thread t of T visits elements t, t + S, t + 2S, ... of the row-major index
// space, where the stride S is T rounded down to a multiple of the column count F, so each thread
// stays on column t mod F. For one column (the time-series case) the reads are fully coalesced;
// for many columns consecutive threads read consecutive columns of a row, coalesced as well when
// the rows are contiguous. A block merges its threads per column in shared memory (up to
// shared_columns columns; more go straight to global atomics), then one global atomic per column
// and block. Keys: a float's bits with negative values flipped, so unsigned order is numeric
// order (−0 just below +0); NaN is skipped, as numpy.nanmin does.
//
// Every multiply, add and divide is rounded on its own (__fmul_rn, __dadd_rn...), never fused,
// so the results are the host's (and scikit-learn's) bit for bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "detail_cuda/common.cuh"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/min_max.hpp"

namespace zeroflow::signal::detail {

namespace {

constexpr int reduce_threads = 256;
constexpr std::int64_t shared_columns = 1024;

template <class T>
struct key_of;

template <>
struct key_of<float> {
  using type = unsigned int;
  __device__ static type key(float v) {
    const unsigned u = __float_as_uint(v);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  }
  __device__ static float value(type k) { return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k); }
  __device__ static float mul(float a, float b) { return __fmul_rn(a, b); }
  __device__ static float add(float a, float b) { return __fadd_rn(a, b); }
  __device__ static float sub(float a, float b) { return __fsub_rn(a, b); }
  __device__ static float div(float a, float b) { return __fdiv_rn(a, b); }
};

template <>
struct key_of<double> {
  using type = unsigned long long;
  __device__ static type key(double v) {
    const auto u = static_cast<unsigned long long>(__double_as_longlong(v));
    return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
  }
  __device__ static double value(type k) {
    return __longlong_as_double(static_cast<long long>((k & 0x8000000000000000ull) ? (k & 0x7fffffffffffffffull) : ~k));
  }
  __device__ static double mul(double a, double b) { return __dmul_rn(a, b); }
  __device__ static double add(double a, double b) { return __dadd_rn(a, b); }
  __device__ static double sub(double a, double b) { return __dsub_rn(a, b); }
  __device__ static double div(double a, double b) { return __ddiv_rn(a, b); }
};

struct layout {
  std::int64_t rows, cols, row_stride, col_stride;
  __device__ std::int64_t offset(std::int64_t i) const {
    if (cols == 1) return i * row_stride;  // one column: no 64-bit division per element
    return (i / cols) * row_stride + (i % cols) * col_stride;
  }
};

/// low starts at all ones, high at zero: a column that keeps them saw no value (all NaN).
template <class T>
__global__ void init_keys_kernel(typename key_of<T>::type* low, typename key_of<T>::type* high, std::int64_t cols) {
  for (std::int64_t c = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; c < cols;
       c += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    low[c] = ~typename key_of<T>::type{0};
    high[c] = 0;
  }
}

template <class T>
__global__ void __launch_bounds__(reduce_threads)
    column_keys_kernel(const T* __restrict__ x, layout m, std::int64_t stride, typename key_of<T>::type* low,
                       typename key_of<T>::type* high) {
  using K = typename key_of<T>::type;
  extern __shared__ unsigned char smem_raw[];
  const bool in_shared = m.cols <= shared_columns;
  K* s_low = reinterpret_cast<K*>(smem_raw);
  K* s_high = s_low + (in_shared ? m.cols : 0);
  if (in_shared) {
    for (std::int64_t c = threadIdx.x; c < m.cols; c += blockDim.x) s_low[c] = ~K{0}, s_high[c] = 0;
    __syncthreads();
  }
  const std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t total = m.rows * m.cols;
  if (t < stride && t < total) {
    K lo = ~K{0}, hi = 0;
    for (std::int64_t i = t; i < total; i += stride) {
      const T v = x[m.offset(i)];
      if (isnan(v)) continue;
      const K k = key_of<T>::key(v);
      lo = k < lo ? k : lo;
      hi = k > hi ? k : hi;
    }
    const std::int64_t c = t % m.cols;
    if (hi != 0 || lo != ~K{0}) {
      if (in_shared) {
        atomicMin(&s_low[c], lo);
        atomicMax(&s_high[c], hi);
      } else {
        atomicMin(&low[c], lo);
        atomicMax(&high[c], hi);
      }
    }
  }
  if (in_shared) {
    __syncthreads();
    for (std::int64_t c = threadIdx.x; c < m.cols; c += blockDim.x) {
      if (s_low[c] != ~K{0}) atomicMin(&low[c], s_low[c]);
      if (s_high[c] != 0) atomicMax(&high[c], s_high[c]);
    }
  }
}

template <class T>
__global__ void finish_kernel(const typename key_of<T>::type* low, const typename key_of<T>::type* high,
                              std::int64_t cols, T lo, T hi, T* data_min, T* data_max, T* data_range, T* scale,
                              T* offset) {
  using K = typename key_of<T>::type;
  using ops = key_of<T>;
  const T tiny = ops::mul(T(10), std::numeric_limits<T>::epsilon());
  const T span = ops::sub(hi, lo);
  for (std::int64_t c = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; c < cols;
       c += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const bool seen = !(low[c] == ~K{0} && high[c] == 0);
    const T mn = seen ? ops::value(low[c]) : std::numeric_limits<T>::quiet_NaN();
    const T mx = seen ? ops::value(high[c]) : std::numeric_limits<T>::quiet_NaN();
    const T width = ops::sub(mx, mn);
    const T s = ops::div(span, width < tiny ? T(1) : width);
    data_min[c] = mn;
    data_max[c] = mx;
    data_range[c] = width;
    scale[c] = s;
    offset[c] = ops::sub(lo, ops::mul(mn, s));
  }
}

template <class T>
__global__ void apply_kernel(const T* __restrict__ x, layout m, const T* __restrict__ scale,
                             const T* __restrict__ offset, bool inverse, bool clip, T lo, T hi, T* __restrict__ out) {
  using ops = key_of<T>;
  const std::int64_t total = m.rows * m.cols;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t c = m.cols == 1 ? 0 : i % m.cols;
    const T v = x[m.offset(i)];
    T y;
    if (inverse) {
      y = ops::div(ops::sub(v, offset[c]), scale[c]);
    } else {
      y = ops::add(ops::mul(v, scale[c]), offset[c]);
      if (clip) y = y < lo ? lo : (y > hi ? hi : y);  // NaN stays NaN
    }
    out[i] = y;
  }
}

layout layout_of(const array& x) {
  const matrix_view v = matrix_of(x);
  return {v.rows, v.cols, v.row_stride, v.col_stride};
}

template <class T>
min_max_scaling fit_cuda(const array& x, feature_range range, stream_view stream) {
  using K = typename key_of<T>::type;
  const device where = x.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const layout m = layout_of(x);
  const std::int64_t total = m.rows * m.cols;

  array keys = empty({2 * m.cols}, sizeof(K) == 4 ? uint32 : uint64, where, stream);
  K* low = static_cast<K*>(keys.data());
  K* high = low + m.cols;
  const int small_grid = gpu::grid_for(m.cols, reduce_threads, where.id);
  init_keys_kernel<T><<<small_grid, reduce_threads, 0, gpu::raw(stream)>>>(low, high, m.cols);
  ZF_SIGNAL_LAUNCH_CHECK();

  // At least one thread per column, so that every column has a thread that stays on it.
  const int grid = std::max(gpu::grid_for(total, reduce_threads, where.id),
                            static_cast<int>(gpu::tiles_for(m.cols, reduce_threads)));
  const std::int64_t threads = std::int64_t{grid} * reduce_threads;
  const std::int64_t stride = threads / m.cols * m.cols;
  const std::size_t smem = m.cols <= shared_columns ? 2 * static_cast<std::size_t>(m.cols) * sizeof(K) : 0;
  column_keys_kernel<T><<<grid, reduce_threads, smem, gpu::raw(stream)>>>(x.data_as<const T>(), m, stride, low, high);
  ZF_SIGNAL_LAUNCH_CHECK();

  min_max_scaling out;
  for (array* a : {&out.data_min, &out.data_max, &out.data_range, &out.scale, &out.offset})
    *a = empty({m.cols}, x.type(), where, stream);
  finish_kernel<T><<<small_grid, reduce_threads, 0, gpu::raw(stream)>>>(
      low, high, m.cols, static_cast<T>(range.lo), static_cast<T>(range.hi), out.data_min.data_as<T>(),
      out.data_max.data_as<T>(), out.data_range.data_as<T>(), out.scale.data_as<T>(), out.offset.data_as<T>());
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

template <class T>
array apply_cuda(const array& x, const array& scale, const array& offset, std::optional<feature_range> clip,
                 bool inverse, stream_view stream) {
  const device where = x.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const layout m = layout_of(x);
  array out = empty(x.shape(), x.type(), where, stream);
  const std::int64_t total = m.rows * m.cols;
  if (total == 0) return out;
  ZF_EXPECTS(scale.is_contiguous() && offset.is_contiguous(), "min-max scaling: the scale and offset on ", where.name(),
             " must be contiguous");
  const int grid = gpu::grid_for(total, reduce_threads, where.id);
  apply_kernel<T><<<grid, reduce_threads, 0, gpu::raw(stream)>>>(
      x.data_as<const T>(), m, scale.data_as<const T>(), offset.data_as<const T>(), inverse, clip.has_value(),
      static_cast<T>(clip ? clip->lo : 0.0), static_cast<T>(clip ? clip->hi : 0.0), out.data_as<T>());
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

}  // namespace

min_max_scaling min_max_fit_cuda(const array& x, feature_range range, stream_view stream) {
  return x.type() == float32 ? fit_cuda<float>(x, range, stream) : fit_cuda<double>(x, range, stream);
}

array min_max_apply_cuda(const array& x, const array& scale, const array& offset, std::optional<feature_range> clip,
                         bool inverse, stream_view stream) {
  return x.type() == float32 ? apply_cuda<float>(x, scale, offset, clip, inverse, stream)
                             : apply_cuda<double>(x, scale, offset, clip, inverse, stream);
}

}  // namespace zeroflow::signal::detail
