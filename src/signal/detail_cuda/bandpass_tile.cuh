#pragma once
// Block-level pieces of the direct Ricker convolution on the GPU, shared by the band-pass kernel
// and the fused band-pass + NMS kernel.
//
// Bit-exact with the host: bandpass_host computes y[m] = Σ_k h[k]·x[(m−k) mod n] with the taps in
// double, acc = 0.0 then acc = fma(h[k], (double)x, acc) for k = 0, 1, ..., width−1 (one exactly
// rounded multiply-add per tap), and rounds acc once to float. The GPU does the same operations in
// the same order with __fma_rn and __double2float_rn, so both give the same float for every
// sample. (One DFMA per tap instead of a multiply and an add halves the double-precision
// instructions.)
//
// Work split: a block computes `bandpass_pass` = threads × R consecutive outputs per pass from a
// tile of inputs in shared memory, kept as float (half the bytes of doubles: more blocks fit on an
// SM, and a load is one bank wavefront) and widened to double in registers. Each thread computes R
// consecutive outputs with a sliding register window of R inputs, so one shared-memory load and one
// conversion serve R multiply-adds, and only 2R doubles stay live (which lets six blocks share an
// SM). R is odd, which makes loads at a lane stride of R floats free of bank conflicts.
#include <cuda_runtime.h>

#include <cstdint>

namespace zeroflow::signal::detail::gpu {

constexpr int bandpass_threads = 256;
constexpr int bandpass_run = 7;  // outputs per thread (odd, see above)
constexpr int bandpass_pass = bandpass_threads * bandpass_run;
/// Kernels wider than this use a simple global-memory kernel (the tile would not fit).
constexpr int max_tiled_taps = 1024;

/// Shared-memory floats for the inputs of `outputs` consecutive outputs: bandpass_run zeros in
/// front (read by no output that is kept), the inputs, and 4 floats of slack for vector loads.
constexpr std::int64_t bandpass_input_floats(std::int64_t taps, std::int64_t outputs) {
  return bandpass_run + outputs + taps - 1 + 4;
}

/// Copies the taps to shared memory.
__device__ inline void load_taps(double* s_taps, const double* __restrict__ taps, int width) {
  for (int i = threadIdx.x; i < width; i += blockDim.x) s_taps[i] = taps[i];
}

/// Fills `tile` (bandpass_input_floats of them) so that xs = tile + bandpass_run holds
/// xs[i] = x[(first + i) mod n] for i < count, where first >= −n; indices >= n are only ever needed
/// by outputs past the end, and read as 0. Away from the signal's ends the loads are 16-byte
/// vectors from the aligned address below `first` (a quarter of the load instructions).
__device__ inline void load_inputs(float* tile, const float* __restrict__ x, std::int64_t n, std::int64_t first,
                                   int count) {
  if (threadIdx.x < bandpass_run) tile[threadIdx.x] = 0.0f;
  float* xs = tile + bandpass_run;
  const std::int64_t aligned = first & ~std::int64_t{3};
  const bool vectors = first >= 0 && aligned + count + 8 <= n && (reinterpret_cast<std::uintptr_t>(x) & 15) == 0;
  if (vectors) {
    const int shift = static_cast<int>(first - aligned);
    const int quads = (count + shift + 3) / 4;
    const auto* src = reinterpret_cast<const float4*>(x + aligned);
    for (int q = threadIdx.x; q < quads; q += blockDim.x) {
      const float4 v = __ldg(src + q);
      const int i = 4 * q - shift;  // >= −3: the first quad may start before `first`
      if (i >= 0) xs[i] = v.x;
      if (i + 1 >= 0) xs[i + 1] = v.y;
      if (i + 2 >= 0) xs[i + 2] = v.z;
      xs[i + 3] = v.w;
    }
    return;
  }
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    std::int64_t index = first + i;
    if (index < 0) index += n;  // circular boundary, as the seed's FFT convolution
    xs[i] = index < n ? x[index] : 0.0f;
  }
}

/// R consecutive outputs of the convolution: out[j] = Σ_k taps[k]·at[j − k], accumulated in the
/// host's order. `at` points at this thread's first output's own input; at[−width .. R) must be
/// readable (the zeros in front of the tile cover the reads below it, which feed no output).
///
/// win is a ring over the inputs: at tap k it holds at[j − k] for j < R in slot (j − k) mod R, so
/// moving to tap k + 1 replaces one value (at[−k − 1] takes the slot of at[R − 1 − k]). Taps go in
/// groups of R, which makes every slot index a compile-time constant.
template <int R>
__device__ __forceinline__ void convolve_run(const double* __restrict__ taps, int width, const float* at,
                                             float (&out)[R]) {
  double acc[R], win[R];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    acc[j] = 0.0;
    win[j] = static_cast<double>(at[j]);
  }
  int k = 0;
  for (; k + R <= width; k += R) {
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const double h = taps[k + q];
#pragma unroll
      for (int j = 0; j < R; ++j) acc[j] = __fma_rn(h, win[(j - q + R) % R], acc[j]);
      win[(R - 1 - q) % R] = static_cast<double>(at[-(k + q + 1)]);
    }
  }
#pragma unroll
  for (int q = 0; q < R; ++q) {
    if (k + q < width) {
      const double h = taps[k + q];
#pragma unroll
      for (int j = 0; j < R; ++j) acc[j] = __fma_rn(h, win[(j - q + R) % R], acc[j]);
      win[(R - 1 - q) % R] = static_cast<double>(at[-(k + q + 1)]);
    }
  }
#pragma unroll
  for (int j = 0; j < R; ++j) out[j] = __double2float_rn(acc[j]);
}

/// One pass of the block: outputs local [base, base + bandpass_pass) from xs (= tile +
/// bandpass_run, see load_inputs), where xs[i] holds the input of local output i − (width − 1).
/// Results go to ys[base + ...].
__device__ inline void convolve_pass(const double* s_taps, int width, const float* xs, int base, float* ys) {
  const int j0 = base + static_cast<int>(threadIdx.x) * bandpass_run;
  float out[bandpass_run];
  convolve_run<bandpass_run>(s_taps, width, xs + (width - 1) + j0, out);
#pragma unroll
  for (int j = 0; j < bandpass_run; ++j) ys[j0 + j] = out[j];
}

}  // namespace zeroflow::signal::detail::gpu
