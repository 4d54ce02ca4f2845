#pragma once
// Block-level NMS gate over a tile of filtered values in shared memory, shared by the NMS kernel
// and the fused band-pass + NMS kernel.
//
// A block owns gate outputs [g0, g0 + tile). With f[i] = filtered[g0 − 1 + i] for i < tile + window
// in shared memory it finds every window maximum max(f[i .. i + window)) by doubling
// (d_{2s}[i] = max(d_s[i], d_s[i + s]) up to L, the largest power of two <= window, then
// max(d_L[i], d_L[i + window − L]): log2(window) cheap passes over the tile, every thread busy),
// evaluates the seed's raw gate at g0 − 1 .. g0 + tile − 1 and keeps the rising edges.
//
// NaNs: fmaxf ignores a NaN operand, so a window's maximum is that of its non-NaN values, as the
// seed's `value > accum` loop finds; a window of NaNs only gives NaN where the seed gives −inf,
// and both fail the comparison because the tested sample itself is then NaN.
#include <cuda_runtime.h>

#include <cstdint>

namespace zeroflow::signal::detail::gpu {

constexpr int nms_threads = 256;
/// Windows wider than this use the global-memory doubling fallback.
constexpr int max_tiled_window = 1536;

/// Writes gate[p] for p in [g0, g0 + tile) ∩ [0, m) (m = N − window + 1, the gate's length).
/// f: tile + window filtered values from g0 − 1 (values outside the signal are never used);
/// d0, d1: scratch of tile + window floats each; raw: tile + 1 bytes. All in shared memory.
__device__ inline void block_gate(const float* f, float* d0, float* d1, unsigned char* raw, int tile, int window,
                                  std::int64_t g0, std::int64_t m, unsigned char* __restrict__ gate) {
  const int len = tile + window;
  int largest = 1;
  while (largest * 2 <= window) largest *= 2;

  const float* src = f;
  float* dst = d0;
  for (int s = 1; s < largest; s *= 2) {
    // d_{2s}[i] covers f[i .. i + 2s), needed for i <= len − 2s.
    for (int i = threadIdx.x; i <= len - 2 * s; i += blockDim.x) dst[i] = fmaxf(src[i], src[i + s]);
    __syncthreads();
    src = dst;
    dst = dst == d0 ? d1 : d0;
  }

  const int half = (window + 1) / 2;
  for (int i = threadIdx.x; i <= tile; i += blockDim.x) {
    const std::int64_t p = g0 - 1 + i;
    bool on = false;
    if (p >= 0 && p < m) on = f[i + half] == fmaxf(src[i], src[i + window - largest]);
    raw[i] = on ? 1 : 0;
  }
  __syncthreads();

  // Rising edges only (the seed's gate[1:] *= diff(gate) == 1 on the unmodified gate); four
  // outputs per thread, written as one 32-bit word where the whole word is inside the gate.
  const std::int64_t end = g0 + tile < m ? g0 + tile : m;
  const bool words = (reinterpret_cast<std::uintptr_t>(gate + g0) & 3) == 0;
  for (int q = 4 * threadIdx.x; q < tile; q += 4 * blockDim.x) {
    const std::int64_t p = g0 + q;
    if (p >= end) break;
    unsigned char out[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) out[k] = raw[q + k + 1] & (raw[q + k] ^ 1);  // raw[i] is the gate at g0 − 1 + i
    if (words && p + 4 <= end) {
      const unsigned word = out[0] | (out[1] << 8) | (out[2] << 16) | (static_cast<unsigned>(out[3]) << 24);
      *reinterpret_cast<unsigned*>(gate + p) = word;
    } else {
      for (int k = 0; k < 4 && p + k < end; ++k) gate[p + k] = out[k];
    }
  }
}

}  // namespace zeroflow::signal::detail::gpu
