#pragma once
// Grid-wide visit of a float array in groups of four consecutive values, read as float4 where
// the address allows. Every lane of a warp makes the same number of calls (groups past the end
// come with valid == 0), so the visitor may use warp-wide collectives.
#include <cuda_runtime.h>

#include <cstdint>

namespace zeroflow::signal::detail::gpu {

/// Calls visit(v, valid) with v[0 .. valid) consecutive elements of x[0, n), each element exactly
/// once over the grid. blockDim.x must be a multiple of 32.
template <class Visitor>
__device__ inline void visit_quads(const float* __restrict__ x, std::int64_t n, Visitor&& visit) {
  // Elements before the first 16-byte boundary (head) and after the last whole float4 (tail)
  // come as two extra groups of at most three.
  const auto misaligned = static_cast<std::int64_t>((reinterpret_cast<std::uintptr_t>(x) >> 2) & 3);
  const std::int64_t head = n < ((4 - misaligned) & 3) ? n : ((4 - misaligned) & 3);
  const std::int64_t quads = (n - head) / 4;
  const std::int64_t tail_begin = head + 4 * quads;
  const auto* body = reinterpret_cast<const float4*>(x + head);
  const std::int64_t groups = quads + 2;
  const std::int64_t rounded = (groups + 31) / 32 * 32;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < rounded; i += step) {
    float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int valid = 0;
    if (i < quads) {
      const float4 q = body[i];
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
      valid = 4;
    } else if (i == quads) {
      for (int k = 0; k < head; ++k) v[k] = x[k];
      valid = static_cast<int>(head);
    } else if (i == quads + 1) {
      for (std::int64_t k = tail_begin; k < n; ++k) v[k - tail_begin] = x[k];
      valid = static_cast<int>(n - tail_begin);
    }
    visit(v, valid);
  }
}

}  // namespace zeroflow::signal::detail::gpu
