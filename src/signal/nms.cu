// CUDA half of nms.hpp: the seed's peak gate, one block per tile of outputs with the filtered
// values in shared memory and their window maxima by chunks (detail_cuda/chunk_gate.cuh). One pass
// over the input: reads N floats (plus a window of halo per tile), writes N − window + 1 bytes.
#include <cuda_runtime.h>

#include <cstdint>

#include "detail_cuda/chunk_gate.cuh"
#include "detail_cuda/common.cuh"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/nms.hpp"

namespace zeroflow::signal::detail {

namespace {

constexpr int nms_threads = 256;
constexpr int nms_chunk = 13;                      // gate outputs per thread (odd, see chunk_gate.cuh)
constexpr int nms_tile = nms_threads * nms_chunk;  // gate outputs per block

/// Dynamic shared memory: the tile, the chunk maxima, the raw-gate words and the staged bytes.
constexpr std::size_t nms_smem(int window) {
  return sizeof(float) * (nms_tile + window) + sizeof(float) * (nms_threads + gpu::extra_chunks<nms_chunk>(window)) +
         sizeof(unsigned) * (nms_threads + 1) + nms_tile;
}

__global__ void __launch_bounds__(nms_threads)
    nms_tiled_kernel(const float* __restrict__ x, std::int64_t n, int window, unsigned char* __restrict__ gate) {
  extern __shared__ float smem_f[];
  const int len = nms_tile + window;
  float* f = smem_f;
  auto* chunk_max = f + len;
  auto* raw_words = reinterpret_cast<unsigned*>(chunk_max + nms_threads + gpu::extra_chunks<nms_chunk>(window));
  auto* staged = reinterpret_cast<unsigned char*>(raw_words + nms_threads + 1);
  const std::int64_t g0 = static_cast<std::int64_t>(blockIdx.x) * nms_tile;
  for (int i = threadIdx.x; i < len; i += blockDim.x) {
    const std::int64_t index = g0 - 1 + i;
    f[i] = index >= 0 && index < n ? x[index] : -__int_as_float(0x7f800000);  // −inf: never used
  }
  __syncthreads();
  (void)gpu::chunk_gate<nms_chunk>(f, window, g0, n - window + 1, {chunk_max, raw_words, staged}, gate);
}

// Windows wider than max_tiled_window: the same doubling in global memory, one pass per power of
// two, then the comparison and the rising-edge rule.
__global__ void pair_max_kernel(const float* __restrict__ src, float* __restrict__ dst, std::int64_t count,
                                std::int64_t s) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    dst[i] = fmaxf(src[i], src[i + s]);
}

__device__ inline bool raw_gate(const float* x, const float* maxima, std::int64_t p, std::int64_t window,
                                std::int64_t largest) {
  return x[p + (window + 1) / 2] == fmaxf(maxima[p], maxima[p + window - largest]);
}

__global__ void wide_gate_kernel(const float* __restrict__ x, const float* __restrict__ maxima, std::int64_t m,
                                 std::int64_t window, std::int64_t largest, unsigned char* __restrict__ gate) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < m; p += step) {
    const bool on = raw_gate(x, maxima, p, window, largest);
    const bool before = p > 0 && raw_gate(x, maxima, p - 1, window, largest);
    gate[p] = on && !before ? 1 : 0;
  }
}

}  // namespace

array nms_gate_cuda(const array& filtered, std::int64_t window, stream_view stream) {
  const device where = filtered.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t n = filtered.size(), m = n - window + 1;
  array out = empty({m}, uint8, where, stream);
  const auto* x = static_cast<const float*>(filtered.data());
  auto* gate = static_cast<unsigned char*>(out.data());

  if (window <= gpu::max_tiled_window) {
    const auto w = static_cast<int>(window);
    const std::size_t smem = nms_smem(w);
    if (smem > 48 * 1024)
      ZF_CUDA_TRY(
          cudaFuncSetAttribute(nms_tiled_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    nms_tiled_kernel<<<gpu::tiles_for(m, nms_tile), nms_threads, smem, gpu::raw(stream)>>>(x, n, w, gate);
    ZF_SIGNAL_LAUNCH_CHECK();
    return out;
  }

  std::int64_t largest = 1;
  while (largest * 2 <= window) largest *= 2;
  array a = empty({n}, float32, where, stream), b = empty({n}, float32, where, stream);
  const float* src = x;
  auto* dst = static_cast<float*>(a.data());
  constexpr int threads = 256;
  for (std::int64_t s = 1; s < largest; s *= 2) {
    const std::int64_t count = n - 2 * s + 1;  // maxima over [i, i + 2s) inside the signal
    pair_max_kernel<<<gpu::grid_for(count, threads, where.id), threads, 0, gpu::raw(stream)>>>(src, dst, count, s);
    ZF_SIGNAL_LAUNCH_CHECK();
    src = dst;
    dst = dst == a.data() ? static_cast<float*>(b.data()) : static_cast<float*>(a.data());
  }
  wide_gate_kernel<<<gpu::grid_for(m, threads, where.id), threads, 0, gpu::raw(stream)>>>(x, src, m, window, largest,
                                                                                          gate);
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

}  // namespace zeroflow::signal::detail
