#pragma once
// Host-side plumbing shared by the CUDA halves of the signal layer: the launch helpers of
// core/detail/cuda_launch.hpp (raw stream handle, launch shapes, read_back, the one kind of
// host synchronisation the stages allow), temporary storage from zeroflow's memory resource,
// and small uploads that do not block the host.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/detail/cuda_launch.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::signal::detail::gpu {

using zeroflow::detail::launch::grid_for;
using zeroflow::detail::launch::raw;
using zeroflow::detail::launch::read_back;
using zeroflow::detail::launch::tiles_for;

/// Throws zeroflow::cuda_error when the last launch failed (bad configuration, no kernel image).
#define ZF_SIGNAL_LAUNCH_CHECK() ZF_CUDA_TRY(cudaGetLastError())

/// Temporary device bytes from the current resource of `where`, released on `stream` when the
/// returned array goes (so after the work queued before that, in stream order).
inline array scratch(std::size_t bytes, device where, stream_view stream) {
  return empty({static_cast<std::int64_t>(std::max<std::size_t>(bytes, 1))}, uint8, where, stream);
}

/// Rounds a byte count up so that the next carve-out of a scratch block stays 256-byte aligned.
constexpr std::size_t aligned_size(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// Copies `bytes` from pageable host memory to device memory in stream order without blocking
/// the host: the bytes ride in kernel parameters, 2 KiB per launch (meant for filter taps and
/// other small tables; a cudaMemcpyAsync from pageable memory would wait for the stream).
void upload(void* device_dst, const void* host_src, std::size_t bytes, stream_view stream);

}  // namespace zeroflow::signal::detail::gpu
