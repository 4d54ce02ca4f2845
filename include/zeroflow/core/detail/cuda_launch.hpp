#pragma once
/// @file cuda_launch.hpp
/// The host-side plumbing every CUDA launch site of zeroflow shares: the raw stream handle of a
/// stream_view, launch shapes for grid-stride loops and tiled kernels, and the one kind of
/// host synchronisation the layers allow (reading back a value whose size an allocation
/// depends on). Only for translation units of a CUDA build; guard their use with
/// `#if ZEROFLOW_HAS_CUDA`.
#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/core/transfers.hpp"

namespace zeroflow::detail::launch {

/// @brief The CUDA handle of `stream` (stream_view holds a CUstream_st*, which is what
///        cudaStream_t is).
[[nodiscard]] inline cudaStream_t raw(stream_view stream) { return stream.value(); }

/// @brief Blocks for a grid-stride loop over `work` items: enough to fill every SM of
///        `device_id` `blocks_per_sm` times over, fewer when there is less work (at least one).
/// @param work items the loop visits (0 is allowed: one block)
/// @param threads threads per block, > 0
/// @param device_id the CUDA device the kernel runs on
/// @param blocks_per_sm resident blocks wanted per SM
/// @throws zeroflow::cuda_error when the device cannot be queried
[[nodiscard]] inline int grid_for(std::int64_t work, int threads, int device_id, int blocks_per_sm = 4) {
  int sms = 0;
  ZF_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_id));
  const std::int64_t wanted = (std::max<std::int64_t>(work, 1) + threads - 1) / threads;
  return static_cast<int>(std::clamp<std::int64_t>(wanted, 1, std::int64_t{sms} * blocks_per_sm));
}

/// @brief Blocks that cover `work` items at `per_block` items each (one tile per block).
/// @throws zeroflow::invalid_argument when that is more blocks than a grid holds
[[nodiscard]] inline unsigned tiles_for(std::int64_t work, std::int64_t per_block) {
  const std::int64_t tiles = (work + per_block - 1) / per_block;
  ZF_EXPECTS(tiles <= 0x7FFFFFFF, work, " items need more CUDA blocks than a grid holds");
  return static_cast<unsigned>(tiles);
}

/// @brief Reads one value back from device memory. A host synchronisation point (it waits for
///        everything queued on `stream`): only where the size of an output depends on a count
///        computed on the GPU.
/// @throws zeroflow::cuda_error when the copy or the wait fails
template <class T>
[[nodiscard]] T read_back(const T* device_src, stream_view stream) {
  T value{};
  note_device_to_host(sizeof(T));
  ZF_CUDA_TRY(cudaMemcpyAsync(&value, device_src, sizeof(T), cudaMemcpyDeviceToHost, raw(stream)));
  ZF_CUDA_TRY(cudaStreamSynchronize(raw(stream)));
  return value;
}

}  // namespace zeroflow::detail::launch

#endif  // ZEROFLOW_HAS_CUDA
