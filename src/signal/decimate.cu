// CUDA half of decimate.hpp, one pass over the signal. A team of lanes reduces each bucket:
// the smallest power of two >= the bucket, up to a warp, so consecutive lanes read consecutive
// samples (coalesced for contiguous input) whether buckets hold 1, 5 or 32 samples; teams merge
// with shuffles. Buckets of thousands of samples get a whole block each instead, so a few huge
// buckets still spread over the GPU. The order in decimate_order.hpp makes the merge order
// irrelevant, hence the host's floats exactly.
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "decimate_order.hpp"
#include "detail_cuda/common.cuh"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/decimate.hpp"

namespace zeroflow::signal::detail {

namespace {

namespace order = decimate_order;

/// {min, max} of a bucket.
struct minmax_op {
  using state = float2;
  __device__ static state identity() {
    return {__int_as_float(0x7f800000), __int_as_float(static_cast<int>(0xff800000))};
  }
  __device__ static state add(state s, float v) { return {order::lower(s.x, v), order::upper(s.y, v)}; }
  __device__ static state merge(state a, state b) { return {order::lower(a.x, b.x), order::upper(a.y, b.y)}; }
  __device__ static state shuffle(unsigned mask, state s, int lane_mask, int width) {
    return {__shfl_xor_sync(mask, s.x, lane_mask, width), __shfl_xor_sync(mask, s.y, lane_mask, width)};
  }
  __device__ static void store(float* out, std::int64_t b, state s) { reinterpret_cast<float2*>(out)[b] = s; }
};

/// The sample of largest magnitude of a bucket.
struct absmax_op {
  using state = float;
  __device__ static state identity() { return -0.0f; }  // the smallest element of the order
  __device__ static state add(state s, float v) { return order::larger_magnitude(s, v); }
  __device__ static state merge(state a, state b) { return order::larger_magnitude(a, b); }
  __device__ static state shuffle(unsigned mask, state s, int lane_mask, int width) {
    return __shfl_xor_sync(mask, s, lane_mask, width);
  }
  __device__ static void store(float* out, std::int64_t b, state s) { out[b] = s; }
};

constexpr int threads = 256;

/// One team of `team` lanes per bucket, grid-stride over buckets.
template <int team, class op>
__global__ void __launch_bounds__(threads)
    team_kernel(const float* __restrict__ x, std::int64_t step, std::int64_t n, std::int64_t bucket,
                std::int64_t buckets, float* __restrict__ out) {
  const int lane = static_cast<int>(threadIdx.x % team);
  // Teams leave the loop at different iterations, so each shuffles with its own lanes only.
  const unsigned lane_in_warp = threadIdx.x % 32;
  const unsigned mask = team == 32 ? 0xffffffffu : ((1u << team) - 1u) << (lane_in_warp & ~(team - 1u));
  const std::int64_t teams = static_cast<std::int64_t>(gridDim.x) * (threads / team);
  for (std::int64_t b = (static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x) / team; b < buckets;
       b += teams) {
    const std::int64_t first = b * bucket, last = min(n, first + bucket);
    typename op::state s = op::identity();
    for (std::int64_t i = first + lane; i < last; i += team) s = op::add(s, x[i * step]);
#pragma unroll
    for (int offset = team / 2; offset > 0; offset /= 2) s = op::merge(s, op::shuffle(mask, s, offset, team));
    if (lane == 0) op::store(out, b, s);
  }
}

/// One block per bucket, for buckets far longer than a warp.
template <class op>
__global__ void __launch_bounds__(threads)
    block_kernel(const float* __restrict__ x, std::int64_t step, std::int64_t n, std::int64_t bucket,
                 std::int64_t buckets, float* __restrict__ out) {
  using reduce = cub::BlockReduce<typename op::state, threads>;
  __shared__ typename reduce::TempStorage storage;
  for (std::int64_t b = blockIdx.x; b < buckets; b += gridDim.x) {
    const std::int64_t first = b * bucket, last = min(n, first + bucket);
    typename op::state s = op::identity();
    for (std::int64_t i = first + threadIdx.x; i < last; i += threads) s = op::add(s, x[i * step]);
    s = reduce(storage).Reduce(s, [](auto a, auto c) { return op::merge(a, c); });
    if (threadIdx.x == 0) op::store(out, b, s);
    __syncthreads();  // storage is reused by the next bucket
  }
}

constexpr std::int64_t block_bucket = 4096;  // from here on a bucket gets a block

template <class op>
void launch(const array& signal, std::int64_t bucket, std::int64_t buckets, float* out, stream_view stream) {
  const auto* x = static_cast<const float*>(signal.data());
  const std::int64_t n = signal.size(), step = signal.strides()[0];
  const int id = signal.where().id;
  const cudaStream_t s = gpu::raw(stream);
  if (bucket >= block_bucket) {
    const int blocks =
        static_cast<int>(std::min<std::int64_t>(buckets, gpu::grid_for(buckets * threads, threads, id, 8)));
    block_kernel<op><<<blocks, threads, 0, s>>>(x, step, n, bucket, buckets, out);
  } else {
    int team = 1;
    while (team < 32 && team < bucket) team *= 2;
    const int blocks = gpu::grid_for(buckets * team, threads, id, 8);
    switch (team) {
      case 1:
        team_kernel<1, op><<<blocks, threads, 0, s>>>(x, step, n, bucket, buckets, out);
        break;
      case 2:
        team_kernel<2, op><<<blocks, threads, 0, s>>>(x, step, n, bucket, buckets, out);
        break;
      case 4:
        team_kernel<4, op><<<blocks, threads, 0, s>>>(x, step, n, bucket, buckets, out);
        break;
      case 8:
        team_kernel<8, op><<<blocks, threads, 0, s>>>(x, step, n, bucket, buckets, out);
        break;
      case 16:
        team_kernel<16, op><<<blocks, threads, 0, s>>>(x, step, n, bucket, buckets, out);
        break;
      default:
        team_kernel<32, op><<<blocks, threads, 0, s>>>(x, step, n, bucket, buckets, out);
        break;
    }
  }
  ZF_SIGNAL_LAUNCH_CHECK();
}

std::int64_t bucket_count(std::int64_t n, std::int64_t bucket) { return n == 0 ? 0 : (n - 1) / bucket + 1; }

}  // namespace

array minmax_decimate_cuda(const array& signal, std::int64_t bucket, stream_view stream) {
  const device where = signal.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t buckets = bucket_count(signal.size(), bucket);
  array out = empty({buckets, 2}, float32, where, stream);
  if (buckets > 0) launch<minmax_op>(signal, bucket, buckets, static_cast<float*>(out.data()), stream);
  return out;
}

array absmax_decimate_cuda(const array& signal, std::int64_t bucket, stream_view stream) {
  const device where = signal.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t buckets = bucket_count(signal.size(), bucket);
  array out = empty({buckets}, float32, where, stream);
  if (buckets > 0) launch<absmax_op>(signal, bucket, buckets, static_cast<float*>(out.data()), stream);
  return out;
}

}  // namespace zeroflow::signal::detail
