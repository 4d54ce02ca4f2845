// CUDA halves of ricker.hpp: the Ricker taps on a device and the band-pass as a direct, tiled
// convolution that gives the host's floats bit for bit (see detail_cuda/bandpass_tile.cuh).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "detail_cuda/bandpass_tile.cuh"
#include "detail_cuda/common.cuh"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/ricker.hpp"

namespace zeroflow::signal::detail {

namespace {

// Taps up to max_tiled_taps: one block per bandpass_pass outputs, inputs and taps in shared memory.
__global__ void __launch_bounds__(gpu::bandpass_threads)
    bandpass_tiled_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n,
                          const double* __restrict__ taps, int width) {
  extern __shared__ double smem[];
  double* s_taps = smem;
  auto* tile = reinterpret_cast<float*>(smem + width);  // inputs of this block's outputs
  float* ys = tile + gpu::bandpass_input_floats(width, gpu::bandpass_pass);
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * gpu::bandpass_pass;

  gpu::load_taps(s_taps, taps, width);
  gpu::load_inputs(tile, x, n, first - (width - 1), gpu::bandpass_pass + width - 1);
  __syncthreads();
  gpu::convolve_pass(s_taps, width, tile + gpu::bandpass_run, 0, ys);
  __syncthreads();
  // Staged through shared memory so that the stores are coalesced.
  for (int i = threadIdx.x; i < gpu::bandpass_pass && first + i < n; i += blockDim.x) y[first + i] = ys[i];
}

// Wider kernels (more than max_tiled_taps taps): one output per thread straight from global
// memory, in the same order of operations. Slow, but only absurd parameters get here.
__global__ void bandpass_wide_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n,
                                     const double* __restrict__ taps, std::int64_t width) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t m = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; m < n; m += step) {
    double acc = 0.0;
    for (std::int64_t k = 0; k < width; ++k) {
      std::int64_t index = m - k;
      if (index < 0) index += n;
      acc = __fma_rn(taps[k], static_cast<double>(x[index]), acc);
    }
    y[m] = __double2float_rn(acc);
  }
}

}  // namespace

array ricker_kernel_cuda(std::int64_t width, device where, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  array out = empty({width}, float32, where, stream);
  const auto taps = ricker_taps(width);
  std::vector<float> values(taps.begin(), taps.end());  // the same double -> float rounding as the host
  gpu::upload(out.data(), values.data(), values.size() * sizeof(float), stream);
  return out;
}

array bandpass_cuda(const array& signal, std::int64_t ricker_width, stream_view stream) {
  const device where = signal.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t n = signal.size();
  array out = empty({n}, float32, where, stream);
  const auto host_taps = ricker_taps(ricker_width);
  array taps = empty({ricker_width}, float64, where, stream);
  gpu::upload(taps.data(), host_taps.data(), host_taps.size() * sizeof(double), stream);

  const auto* x = static_cast<const float*>(signal.data());
  auto* y = static_cast<float*>(out.data());
  const auto* h = static_cast<const double*>(taps.data());
  if (ricker_width <= gpu::max_tiled_taps) {
    const auto width = static_cast<int>(ricker_width);
    const std::size_t smem =
        sizeof(double) * static_cast<std::size_t>(width) +
        sizeof(float) * (gpu::bandpass_input_floats(width, gpu::bandpass_pass) + gpu::bandpass_pass);
    bandpass_tiled_kernel<<<gpu::tiles_for(n, gpu::bandpass_pass), gpu::bandpass_threads, smem, gpu::raw(stream)>>>(
        x, y, n, h, width);
  } else {
    constexpr int threads = 256;
    bandpass_wide_kernel<<<gpu::grid_for(n, threads, where.id), threads, 0, gpu::raw(stream)>>>(x, y, n, h,
                                                                                                ricker_width);
  }
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;  // `taps` is released on `stream`, after the kernel that reads it
}

}  // namespace zeroflow::signal::detail
