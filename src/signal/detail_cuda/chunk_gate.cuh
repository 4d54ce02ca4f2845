#pragma once
// Block-level NMS gate over a tile of filtered values in shared memory, by chunks held in
// registers: the gate stage of the fused band-pass + gate kernel.
//
// Thread t of a block owns the C consecutive gate outputs p = g0 + tC + u (u < C), whose windows
// are [i, i + window) in the tile's local index i = p − g0 + 1 (f[i] = filtered[g0 − 1 + i]). With
// a = tC + 1, the window of output u splits into three parts that need no per-output loop:
//     [a + u, a + C)            a suffix of the thread's own chunk (suffix maxima, registers),
//     [a + C, a + window − 1)   the same for every u: whole chunks (their maxima, one shared
//                               float each) plus a remainder read once,
//     [a + window − 1, … + u]   a prefix of the C values that end the windows (prefix maxima).
// About 5 shared-memory reads per output instead of the 3·log2(window) of a doubling ladder (the
// method this replaced), and four barriers instead of log2(window) + 2. C is odd, so that lanes
// reading at a stride of C floats hit 32 different banks.
//
// Windows of at most C samples have no common part: each output then scans its window (<= C reads).
//
// NaNs: fmaxf ignores a NaN operand, so each part's maximum is that of its non-NaN values in any
// grouping (a window's maximum is that of its non-NaN values, as the seed's `value > accum` loop
// finds); a window of NaNs only yields −inf or NaN where the seed gives −inf, and both fail the
// comparison because the tested sample itself is then NaN.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

namespace zeroflow::signal::detail::gpu {

/// Shared memory of chunk_gate beyond the filtered tile: chunk maxima, one raw-gate word per
/// thread and one in front, and the staged gate bytes (which may reuse dead input space).
struct chunk_gate_scratch {
  float* chunk_max;       ///< threads + extra_chunks(window) floats
  unsigned* raw_words;    ///< threads + 1 words
  unsigned char* staged;  ///< threads × C bytes
};

/// Windows wider than this use the global-memory doubling fallback of nms.cu.
constexpr int max_tiled_window = 1536;

/// Whole chunks inside the common part of the windows: the gate needs the maxima of
/// blockDim.x + this many chunks.
template <int C>
__host__ __device__ constexpr int extra_chunks(int window) {
  return window > C ? (window - 1 - C) / C : 0;
}

/// Writes gate[p] for p in [g0, g0 + blockDim.x·C) ∩ [0, m), m = N − window + 1 the gate's
/// length. f holds filtered[g0 − 1 + i] for i < blockDim.x·C + window (values past the signal's
/// end are never used); 1 <= window <= max_tiled_window. Returns this thread's ones (rising edges)
/// as bits: bit u is gate[g0 + tC + u].
template <int C>
__device__ unsigned chunk_gate(const float* f, int window, std::int64_t g0, std::int64_t m, chunk_gate_scratch s,
                               unsigned char* __restrict__ gate) {
  static_assert(C % 2 == 1 && C <= 31, "C must be odd and fit a 32-bit word with a bit to spare");
  const int t = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const int a = t * C + 1;
  const int half = (window + 1) / 2;
  const int common = window - 1 - C;  // length of [a + C, a + window − 1) when window > C
  const int whole = extra_chunks<C>(window), rest = window > C ? common - whole * C : 0;

  // Own chunk: suffix maxima; the first is the chunk's maximum.
  float own[C];
#pragma unroll
  for (int u = 0; u < C; ++u) own[u] = f[a + u];
#pragma unroll
  for (int u = C - 2; u >= 0; --u) own[u] = fmaxf(own[u], own[u + 1]);
  s.chunk_max[t] = own[0];
  for (int c = threads + t; c < threads + whole; c += threads) {
    float mx = f[1 + c * C];
    for (int u = 1; u < C; ++u) mx = fmaxf(mx, f[1 + c * C + u]);
    s.chunk_max[c] = mx;
  }
  // The gate just before the tile (p = g0 − 1), for the rising edge of the first output.
  if (t < 32) {
    float mx = -INFINITY;
    for (int i = t; i < window; i += 32) mx = fmaxf(mx, f[i]);
#pragma unroll
    for (int k = 16; k > 0; k /= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, k));
    if (t == 0) {
      const bool on = g0 >= 1 && g0 - 1 < m && f[half] == mx;
      s.raw_words[0] = on ? 1u << (C - 1) : 0u;
    }
  }
  __syncthreads();

  float window_max[C];
  if (window > C) {
    float common_max = -INFINITY;
    for (int c = t + 1; c <= t + whole; ++c) common_max = fmaxf(common_max, s.chunk_max[c]);
    for (int i = a + (whole + 1) * C; i < a + (whole + 1) * C + rest; ++i) common_max = fmaxf(common_max, f[i]);
    float tail[C];  // prefix maxima of the values that end the windows
#pragma unroll
    for (int u = 0; u < C; ++u) tail[u] = f[a + window - 1 + u];
#pragma unroll
    for (int u = 1; u < C; ++u) tail[u] = fmaxf(tail[u - 1], tail[u]);
#pragma unroll
    for (int u = 0; u < C; ++u) window_max[u] = fmaxf(fmaxf(own[u], common_max), tail[u]);
  } else {
#pragma unroll
    for (int u = 0; u < C; ++u) {
      window_max[u] = f[a + u];
      for (int i = 1; i < window; ++i) window_max[u] = fmaxf(window_max[u], f[a + u + i]);
    }
  }

  const std::int64_t p0 = g0 + t * C;
  unsigned raw = 0;
#pragma unroll
  for (int u = 0; u < C; ++u)
    if (p0 + u < m && f[a + u + half] == window_max[u]) raw |= 1u << u;
  s.raw_words[t + 1] = raw;
  __syncthreads();

  // Rising edges only (the seed's gate[1:] *= diff(gate) == 1 on the unmodified gate).
  const unsigned before = (s.raw_words[t] >> (C - 1)) & 1u;
  const unsigned edges = raw & ~((raw << 1) | before);
#pragma unroll
  for (int u = 0; u < C; ++u) s.staged[t * C + u] = static_cast<unsigned char>((edges >> u) & 1u);
  __syncthreads();

  // Coalesced stores: 32-bit words where they lie wholly inside the gate, bytes at its end.
  const int tile = threads * C;
  const std::int64_t end = g0 + tile < m ? g0 + tile : m;
  const int valid = static_cast<int>(end - g0);
  const bool words = (reinterpret_cast<std::uintptr_t>(gate + g0) & 3) == 0;
  if (words) {
    const int full_words = valid / 4;
    const auto* staged_words = reinterpret_cast<const unsigned*>(s.staged);
    auto* out = reinterpret_cast<unsigned*>(gate + g0);
    for (int w = t; w < full_words; w += threads) out[w] = staged_words[w];
    for (int i = full_words * 4 + t; i < valid; i += threads) gate[g0 + i] = s.staged[i];
  } else {
    for (int i = t; i < valid; i += threads) gate[g0 + i] = s.staged[i];
  }
  return edges;
}

}  // namespace zeroflow::signal::detail::gpu
