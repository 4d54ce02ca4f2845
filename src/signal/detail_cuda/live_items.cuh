#pragma once
// How many items of a buffer a kernel of the segmentation tail works on: the tail sizes its
// buffers by a bound known on the host and passes the live count as device memory (see
// live_stages.hpp), so every kernel clamps the same way.
#include <cstdint>

namespace zeroflow::signal::detail::gpu {

/// Items to process: all `count` of the buffer, or *live − less when a device count is given,
/// clamped to [0, count] (a count past the buffer's room, or a negative one, never reads outside it).
__device__ __forceinline__ std::int64_t live_items(std::int64_t count, const std::int64_t* live, int less = 0) {
  if (live == nullptr) return count;
  const std::int64_t n = *live - less;
  return n < 0 ? 0 : (n < count ? n : count);
}

}  // namespace zeroflow::signal::detail::gpu
