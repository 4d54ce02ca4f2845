#include "zeroflow/signal/decimate.hpp"

#include <algorithm>
#include <limits>

#include "checks.hpp"
#include "decimate_order.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/detail/parallel_chunks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::signal {

namespace {

void check(const array& signal, std::int64_t bucket, const char* what) {
  detail::expect_1d(signal, what, {float32});
  ZF_EXPECTS(bucket >= 1, what, ": bucket must be >= 1, got ", bucket);
}

std::int64_t bucket_count(std::int64_t n, std::int64_t bucket) { return n == 0 ? 0 : (n - 1) / bucket + 1; }

/// Calls fn(b, first, count, step) for every bucket on the host threads: `first` points at its
/// first sample, `step` is the signal's stride in elements.
template <class Fn>
void for_each_bucket(const array& signal, std::int64_t bucket, std::int64_t buckets, Fn&& fn) {
  // Strided input is read in place: no contiguous copy of a long recording for a reduction.
  const auto* x = static_cast<const float*>(signal.data());
  const std::int64_t n = signal.size(), step = signal.strides()[0];
  const std::int64_t min_chunk = std::max<std::int64_t>(1, (std::int64_t{1} << 16) / bucket);
  zeroflow::detail::parallel_chunks(buckets, min_chunk, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t b = begin; b < end; ++b) {
      const std::int64_t first = b * bucket;
      fn(b, x + first * step, std::min(bucket, n - first), step);
    }
  });
}

}  // namespace

array minmax_decimate(const array& signal, std::int64_t bucket, stream_view stream) {
  check(signal, bucket, "minmax_decimate: signal");
  if (detail::on_cuda(signal)) return detail::minmax_decimate_cuda(signal, bucket, stream);
  return detail::minmax_decimate_host(signal, bucket, stream);
}

array absmax_decimate(const array& signal, std::int64_t bucket, stream_view stream) {
  check(signal, bucket, "absmax_decimate: signal");
  if (detail::on_cuda(signal)) return detail::absmax_decimate_cuda(signal, bucket, stream);
  return detail::absmax_decimate_host(signal, bucket, stream);
}

namespace detail {

array minmax_decimate_host(const array& signal, std::int64_t bucket, stream_view stream) {
  if (signal.where().is_cuda()) synchronize(stream);  // pinned or managed memory the GPU may be writing
  const std::int64_t buckets = bucket_count(signal.size(), bucket);
  array out = empty({buckets, 2}, float32, signal.where(), stream);
  float* o = out.data_as<float>();
  for_each_bucket(signal, bucket, buckets, [&](std::int64_t b, const float* x, std::int64_t count, std::int64_t step) {
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (std::int64_t i = 0; i < count; ++i) {
      lo = decimate_order::lower(lo, x[i * step]);
      hi = decimate_order::upper(hi, x[i * step]);
    }
    o[2 * b] = lo;
    o[2 * b + 1] = hi;
  });
  return out;
}

array absmax_decimate_host(const array& signal, std::int64_t bucket, stream_view stream) {
  if (signal.where().is_cuda()) synchronize(stream);
  const std::int64_t buckets = bucket_count(signal.size(), bucket);
  array out = empty({buckets}, float32, signal.where(), stream);
  float* o = out.data_as<float>();
  for_each_bucket(signal, bucket, buckets, [&](std::int64_t b, const float* x, std::int64_t count, std::int64_t step) {
    float best = -0.0f;  // the smallest element of the order: any sample replaces or equals it
    for (std::int64_t i = 0; i < count; ++i) best = decimate_order::larger_magnitude(best, x[i * step]);
    o[b] = best;
  });
  return out;
}

#if !ZEROFLOW_HAS_CUDA
array minmax_decimate_cuda(const array&, std::int64_t, stream_view) {
  ZF_THROW(cuda_error, "minmax_decimate on a CUDA array needs a CUDA build of zeroflow");
}
array absmax_decimate_cuda(const array&, std::int64_t, stream_view) {
  ZF_THROW(cuda_error, "absmax_decimate on a CUDA array needs a CUDA build of zeroflow");
}
#endif

}  // namespace detail
}  // namespace zeroflow::signal
