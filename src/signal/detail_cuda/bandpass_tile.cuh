#pragma once
// Block-level pieces of the direct Ricker convolution on the GPU, shared by the band-pass kernel
// and the fused band-pass + NMS kernel.
//
// Bit-exact with the host: bandpass_host computes y[m] = Σ_k h[k]·x[(m−k) mod n] with the taps in
// double, acc = 0.0 then acc = fma(h[k], (double)x, acc) for k = 0, 1, ..., width−1 (one exactly
// rounded multiply-add per tap), and rounds acc once to float. The GPU does the same operations in
// the same order with __fma_rn and __double2float_rn, so both give the same float for every
// sample. (One DFMA per tap instead of a multiply and an add halves the double-precision
// instructions, which bound this kernel.)
//
// Work split: a block computes `outputs_per_pass` = threads × R consecutive outputs per pass from
// a tile of inputs converted once to double in shared memory; each thread computes R consecutive
// outputs with a register window, so one shared-memory load serves R multiply-adds. R is odd,
// which makes the 8-byte loads at a lane stride of R doubles free of bank conflicts.
#include <cuda_runtime.h>

#include <cstdint>

namespace zeroflow::signal::detail::gpu {

constexpr int bandpass_threads = 256;
constexpr int bandpass_run = 7;  // outputs per thread (odd, see above)
constexpr int bandpass_pass = bandpass_threads * bandpass_run;
/// Kernels wider than this use a simple global-memory kernel (the tile would not fit).
constexpr int max_tiled_taps = 1024;

/// Shared-memory doubles for the taps, the padding in front of the inputs, and the inputs of
/// `outputs` consecutive outputs.
constexpr std::int64_t bandpass_smem_doubles(std::int64_t taps, std::int64_t outputs) {
  return taps + bandpass_run + outputs + taps - 1;
}

/// Copies the taps to shared memory and zero-fills the padding in front of the inputs.
__device__ inline void load_taps(double* s_taps, const double* __restrict__ taps, int width) {
  for (int i = threadIdx.x; i < width + bandpass_run; i += blockDim.x) s_taps[i] = i < width ? taps[i] : 0.0;
}

/// xs[i] = x[(first + i) mod n] as double for i < count, where first >= −n; indices >= n are only
/// ever needed by outputs past the end, and read as 0.
__device__ inline void load_inputs(double* xs, const float* __restrict__ x, std::int64_t n, std::int64_t first,
                                   int count) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    std::int64_t index = first + i;
    if (index < 0) index += n;  // circular boundary, as the seed's FFT convolution
    xs[i] = index < n ? static_cast<double>(x[index]) : 0.0;
  }
}

/// R consecutive outputs of the convolution: out[j] = Σ_k taps[k]·at[j − k], accumulated in the
/// host's order. `at` points at this thread's first output's own input; at[−width−R+1 .. R) must be
/// readable (the padding covers the reads below the tile that are never used).
template <int R>
__device__ __forceinline__ void convolve_run(const double* __restrict__ taps, int width, const double* at,
                                             float (&out)[R]) {
  double acc[R], cur[R], prev[R];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    acc[j] = 0.0;
    cur[j] = at[j];
  }
  // Taps in groups of R: cur holds at[i − k0], prev at[i − k0 − R], so tap k0 + q of output j
  // reads cur[j − q] or prev[R + j − q], both compile-time register picks.
  for (int k0 = 0; k0 < width; k0 += R) {
#pragma unroll
    for (int i = 0; i < R; ++i) prev[i] = at[i - k0 - R];
    if (k0 + R <= width) {
#pragma unroll
      for (int q = 0; q < R; ++q) {
        const double h = taps[k0 + q];
#pragma unroll
        for (int j = 0; j < R; ++j) acc[j] = __fma_rn(h, j >= q ? cur[j - q] : prev[R + j - q], acc[j]);
      }
    } else {
#pragma unroll
      for (int q = 0; q < R; ++q) {
        if (k0 + q < width) {
          const double h = taps[k0 + q];
#pragma unroll
          for (int j = 0; j < R; ++j)
            acc[j] = __fma_rn(h, j >= q ? cur[j - q] : prev[R + j - q], acc[j]);
        }
      }
    }
#pragma unroll
    for (int i = 0; i < R; ++i) cur[i] = prev[i];
  }
#pragma unroll
  for (int j = 0; j < R; ++j) out[j] = __double2float_rn(acc[j]);
}

/// One pass of the block: outputs local [base, base + bandpass_pass) from xs, where xs[i] holds the
/// input of local output i − (width − 1). Results go to ys[base + ...].
__device__ inline void convolve_pass(const double* s_taps, int width, const double* xs, int base, float* ys) {
  const int j0 = base + static_cast<int>(threadIdx.x) * bandpass_run;
  float out[bandpass_run];
  convolve_run<bandpass_run>(s_taps, width, xs + (width - 1) + j0, out);
#pragma unroll
  for (int j = 0; j < bandpass_run; ++j) ys[j0 + j] = out[j];
}

}  // namespace zeroflow::signal::detail::gpu
