#pragma once
// Host-side plumbing shared by the CUDA halves of the signal layer: the raw stream handle,
// launch shapes, temporary storage from zeroflow's memory resource, small uploads that do not
// block the host, and the one kind of host synchronisation the stages allow (reading back a
// size that an allocation depends on).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::signal::detail::gpu {

/// stream_view holds a CUstream_st*, which is what cudaStream_t is.
inline cudaStream_t raw(stream_view stream) { return stream.value(); }

/// Throws zeroflow::cuda_error when the last launch failed (bad configuration, no kernel image).
#define ZF_SIGNAL_LAUNCH_CHECK() ZF_CUDA_TRY(cudaGetLastError())

/// Blocks for a grid-stride loop over `work` items: enough to fill every SM a few times over,
/// fewer when there is less work.
inline int grid_for(std::int64_t work, int threads, int device_id, int blocks_per_sm = 4) {
  int sms = 0;
  ZF_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_id));
  const std::int64_t wanted = (std::max<std::int64_t>(work, 1) + threads - 1) / threads;
  return static_cast<int>(std::clamp<std::int64_t>(wanted, 1, std::int64_t{sms} * blocks_per_sm));
}

/// Blocks that cover `work` items at `per_block` items each (one tile per block).
inline unsigned tiles_for(std::int64_t work, std::int64_t per_block) {
  const std::int64_t tiles = (work + per_block - 1) / per_block;
  ZF_EXPECTS(tiles <= 0x7FFFFFFF, "signal: ", work, " items need more CUDA blocks than a grid holds");
  return static_cast<unsigned>(tiles);
}

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

/// Reads one value back from device memory. This is a host synchronisation point (it waits for
/// everything queued on `stream`); the stages use it only where the size of an output depends
/// on a count computed on the GPU.
template <class T>
[[nodiscard]] T read_back(const T* device_src, stream_view stream) {
  T value{};
  zeroflow::detail::note_device_to_host(sizeof(T));
  ZF_CUDA_TRY(cudaMemcpyAsync(&value, device_src, sizeof(T), cudaMemcpyDeviceToHost, raw(stream)));
  ZF_CUDA_TRY(cudaStreamSynchronize(raw(stream)));
  return value;
}

}  // namespace zeroflow::signal::detail::gpu
