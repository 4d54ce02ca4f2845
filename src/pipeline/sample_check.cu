// CUDA half of sample_check.hpp: one grid-stride pass that counts NaN and unusable samples and
// finds the first of each (block reductions, then one atomic per block and number), then one
// 32-byte read-back. The signal never leaves the GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "sample_check.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::pipeline::detail {

namespace {

using u64 = unsigned long long;
constexpr int threads = 256;
constexpr u64 none = ~u64{0};

/// One thread's (then one block's) share of the census.
struct tally {
  u64 missing, unusable, first_missing, first_unusable;
};

struct combine {
  __device__ tally operator()(const tally& a, const tally& b) const {
    return {a.missing + b.missing, a.unusable + b.unusable,
            a.first_missing < b.first_missing ? a.first_missing : b.first_missing,
            a.first_unusable < b.first_unusable ? a.first_unusable : b.first_unusable};
  }
};

/// out: missing, unusable (zeroed), first_missing, first_unusable (all bits set).
__global__ void census_kernel(const float* __restrict__ x, std::int64_t n, std::int64_t stride, float limit,
                              u64* __restrict__ out) {
  tally t{0, 0, none, none};
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const float v = x[i * stride];
    if (isnan(v)) {
      ++t.missing;
      t.first_missing = t.first_missing == none ? static_cast<u64>(i) : t.first_missing;
    } else if (!(fabsf(v) <= limit)) {
      ++t.unusable;
      t.first_unusable = t.first_unusable == none ? static_cast<u64>(i) : t.first_unusable;
    }
  }
  using reduce = cub::BlockReduce<tally, threads>;
  __shared__ typename reduce::TempStorage storage;
  const tally block = reduce(storage).Reduce(t, combine{});
  if (threadIdx.x != 0) return;
  if (block.missing > 0) {
    atomicAdd(&out[0], block.missing);
    atomicMin(&out[2], block.first_missing);
  }
  if (block.unusable > 0) {
    atomicAdd(&out[1], block.unusable);
    atomicMin(&out[3], block.first_unusable);
  }
}

std::int64_t signed_index(u64 v) { return v == none ? -1 : static_cast<std::int64_t>(v); }

/// One thread per window k ≥ 1: k is marked (appended to `marked`) when windows k − 1 and k give
/// no signal (gives_no_signal, the host's test).
__global__ void no_signal_pairs_kernel(const float* __restrict__ x, std::int64_t stride, std::int64_t window,
                                       std::int64_t windows, double sample_rate, u64* __restrict__ count,
                                       std::int64_t* __restrict__ marked, std::int64_t capacity) {
  const std::int64_t k = 1 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= windows) return;
  if (!gives_no_signal(x + (k - 1) * window * stride, stride, 2 * window, sample_rate)) return;
  const u64 at = atomicAdd(count, u64{1});
  if (static_cast<std::int64_t>(at) < capacity) marked[at] = k;
}

}  // namespace

sample_census count_samples_cuda(const array& signal, stream_view stream) {
  const int id = signal.where().id;
  const zeroflow::detail::cuda_device_guard on_device(id);
  const cudaStream_t raw = stream.value();
  const array scratch = empty({4}, uint64, signal.where(), stream);
  auto* out = static_cast<u64*>(scratch.data());
  ZF_CUDA_TRY(cudaMemsetAsync(out, 0, 2 * sizeof(u64), raw));
  ZF_CUDA_TRY(cudaMemsetAsync(out + 2, 0xFF, 2 * sizeof(u64), raw));
  const std::int64_t n = signal.size();
  if (n > 0) {
    int sms = 0;
    ZF_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, id));
    const auto blocks =
        static_cast<int>(std::clamp<std::int64_t>((n + threads - 1) / threads, 1, std::int64_t{sms} * 8));
    census_kernel<<<blocks, threads, 0, raw>>>(static_cast<const float*>(signal.data()), n, signal.strides()[0],
                                               unusable_magnitude, out);
    ZF_CUDA_TRY(cudaGetLastError());
  }
  u64 host[4];
  zeroflow::detail::note_device_to_host(sizeof host);
  ZF_CUDA_TRY(cudaMemcpyAsync(host, out, sizeof host, cudaMemcpyDeviceToHost, raw));
  ZF_CUDA_TRY(cudaStreamSynchronize(raw));
  return {static_cast<std::int64_t>(host[0]), signed_index(host[2]), static_cast<std::int64_t>(host[1]),
          signed_index(host[3])};
}

std::vector<std::int64_t> no_signal_window_pairs_cuda(const array& signal, std::int64_t window, double sample_rate,
                                                      stream_view stream) {
  ZF_EXPECTS(window >= 1, "no_signal_stretches: the window must be at least one sample, got ", window);
  const zeroflow::detail::cuda_device_guard on_device(signal.where().id);
  const cudaStream_t raw = stream.value();
  const std::int64_t windows = signal.size() / window;
  if (windows < 2) return {};
  // Every window but the first can be marked; the list is read back only as far as it was filled.
  const array count = zeros({1}, uint64, signal.where(), stream);
  const array marked = empty({windows - 1}, int64, signal.where(), stream);
  const auto blocks = static_cast<unsigned>((windows - 1 + threads - 1) / threads);
  no_signal_pairs_kernel<<<blocks, threads, 0, raw>>>(static_cast<const float*>(signal.data()), signal.strides()[0],
                                                      window, windows, sample_rate, static_cast<u64*>(count.data()),
                                                      static_cast<std::int64_t*>(marked.data()), windows - 1);
  ZF_CUDA_TRY(cudaGetLastError());
  u64 n = 0;
  zeroflow::detail::note_device_to_host(sizeof n);
  ZF_CUDA_TRY(cudaMemcpyAsync(&n, count.data(), sizeof n, cudaMemcpyDeviceToHost, raw));
  ZF_CUDA_TRY(cudaStreamSynchronize(raw));
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  if (n > 0) {
    zeroflow::detail::note_device_to_host(n * sizeof(std::int64_t));
    ZF_CUDA_TRY(cudaMemcpyAsync(out.data(), marked.data(), n * sizeof(std::int64_t), cudaMemcpyDeviceToHost, raw));
    ZF_CUDA_TRY(cudaStreamSynchronize(raw));
  }
  std::sort(out.begin(), out.end());  // the atomics appended them in any order
  return out;
}

}  // namespace zeroflow::pipeline::detail
