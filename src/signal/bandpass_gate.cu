// The fused band-pass + NMS gate (detail_cuda/bandpass_gate.hpp). The band-pass is bound by
// double-precision arithmetic and the gate by memory; fused, the gate's pass over the filtered
// signal disappears (its values are still in shared memory) and its work hides under the
// arithmetic.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "detail_cuda/bandpass_gate.hpp"
#include "detail_cuda/bandpass_tile.cuh"
#include "detail_cuda/common.cuh"
#include "detail_cuda/window_gate.cuh"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/nms.hpp"
#include "zeroflow/signal/detail/ricker.hpp"

namespace zeroflow::signal::detail {

namespace {

/// Launch geometry: each block owns `tile` gate outputs and filters tile + window values
/// (from g0 − 1) in `passes` passes of bandpass_pass outputs.
struct fused_shape {
  int passes = 0;
  int tile = 0;
  std::size_t smem = 0;
};

fused_shape shape_for(int width, int window) {
  fused_shape s;
  s.passes = 2;
  // At least as many outputs as halo, so that no more than half the filtering is redone.
  while (s.passes * gpu::bandpass_pass - window - 4 < std::max(window, 1024)) ++s.passes;
  s.tile = (s.passes * gpu::bandpass_pass - window) / 4 * 4;
  const std::size_t filtered = static_cast<std::size_t>(s.passes) * gpu::bandpass_pass;
  s.smem = sizeof(double) * static_cast<std::size_t>(gpu::bandpass_smem_doubles(width, filtered)) +
           sizeof(float) * filtered + static_cast<std::size_t>(s.tile + 4);
  return s;
}

__global__ void __launch_bounds__(gpu::bandpass_threads)
    bandpass_gate_kernel(const float* __restrict__ x, std::int64_t n, const double* __restrict__ taps, int width,
                         int window, int tile, int passes, float* __restrict__ y, unsigned char* __restrict__ gate) {
  extern __shared__ double smem[];
  const int filtered_count = passes * gpu::bandpass_pass;
  double* s_taps = smem;
  double* xs = smem + width + gpu::bandpass_run;
  auto* f = reinterpret_cast<float*>(xs + filtered_count + width - 1);  // f[i] = filtered[g0 − 1 + i]
  auto* raw = reinterpret_cast<unsigned char*>(f + filtered_count);
  // Once f is complete the inputs are no longer needed: the window maxima reuse their space.
  auto* d0 = reinterpret_cast<float*>(xs);
  float* d1 = d0 + tile + window;

  const std::int64_t m = n - window + 1;
  const std::int64_t g0 = static_cast<std::int64_t>(blockIdx.x) * tile;
  const std::int64_t f_first = g0 - 1;
  gpu::load_taps(s_taps, taps, width);
  gpu::load_inputs(xs, x, n, f_first - (width - 1), filtered_count + width - 1);
  __syncthreads();
  for (int pass = 0; pass < passes; ++pass) gpu::convolve_pass(s_taps, width, xs, pass * gpu::bandpass_pass, f);
  __syncthreads();

  // This block's share of the filtered signal: [g0, g0 + tile), and the last block also the
  // samples past the gate's end, up to N.
  const std::int64_t limit = g0 + tile < m ? g0 + tile : n;
  for (std::int64_t i = 1 + threadIdx.x; f_first + i < limit; i += blockDim.x) y[f_first + i] = f[i];
  gpu::block_gate(f, d0, d1, raw, tile, window, g0, m, gate);
}

}  // namespace

filtered_gate bandpass_gate_cuda(const array& signal, std::int64_t ricker_width, std::int64_t nms_window,
                                 stream_view stream) {
  if (ricker_width > gpu::max_tiled_taps || nms_window > gpu::max_tiled_window) {
    array filtered = bandpass_cuda(signal, ricker_width, stream);
    array gate = nms_gate_cuda(filtered, nms_window, stream);
    return {filtered, gate};
  }
  const device where = signal.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t n = signal.size(), m = n - nms_window + 1;
  const auto width = static_cast<int>(ricker_width), window = static_cast<int>(nms_window);
  filtered_gate out{empty({n}, float32, where, stream), empty({m}, uint8, where, stream)};
  const auto host_taps = ricker_taps(ricker_width);
  array taps = empty({ricker_width}, float64, where, stream);
  gpu::upload(taps.data(), host_taps.data(), host_taps.size() * sizeof(double), stream);

  const fused_shape shape = shape_for(width, window);
  if (shape.smem > 48 * 1024)
    ZF_CUDA_TRY(cudaFuncSetAttribute(bandpass_gate_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(shape.smem)));
  bandpass_gate_kernel<<<gpu::tiles_for(m, shape.tile), gpu::bandpass_threads, shape.smem, gpu::raw(stream)>>>(
      static_cast<const float*>(signal.data()), n, static_cast<const double*>(taps.data()), width, window,
      shape.tile, shape.passes, static_cast<float*>(out.filtered.data()),
      static_cast<unsigned char*>(out.gate.data()));
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

}  // namespace zeroflow::signal::detail
