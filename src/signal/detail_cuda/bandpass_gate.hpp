#pragma once
// The band-pass and the NMS gate in one pass over the signal on a GPU (plain C++ header, so that
// host code such as segment_beats can call it; in a build without CUDA it throws cuda_error).
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal::detail {

/// Both outputs of the fused stage.
struct filtered_gate {
  array filtered;     ///< bandpass(signal, ricker_width): float32, N
  array gate;         ///< nms_gate(filtered, nms_window): uint8, N − nms_window + 1
  array block_ones;   ///< uint64: the fused kernel's count of ones per block; not valid() when not fused
  array thread_ones;  ///< uint16: each fused thread's ones as bits (chunk_gate's); not valid() when not fused
};

/// @brief bandpass_cuda followed by nms_gate_cuda, bit for bit, in one kernel: each block filters
/// its tile plus a window of halo into shared memory and computes the gate from there, so the
/// filtered signal is written once and never read back; each block also counts its ones. Sizes
/// outside the fused kernel's limits (more than 1024 taps or a window over 1536 samples) run the
/// two stages one after the other (and leave block_ones and thread_ones invalid).
/// @param signal contiguous 1-D float32 on a CUDA device
/// @param ricker_width 1 <= ricker_width <= N
/// @param nms_window 2 <= nms_window <= N
/// @throws zeroflow::cuda_error on a CUDA failure or in a build without CUDA
[[nodiscard]] filtered_gate bandpass_gate_cuda(const array& signal, std::int64_t ricker_width, std::int64_t nms_window,
                                               stream_view stream);

/// @brief gate_positions(fused.gate) from the fused kernel's counts per block: a scan of the
/// counts, one read-back of their total (to size the output) and one scatter per block, instead
/// of counting and selecting over the whole gate.
/// @throws zeroflow::invalid_argument when fused.block_ones is not valid(); zeroflow::cuda_error
[[nodiscard]] array fused_gate_positions(const filtered_gate& fused, stream_view stream);

/// @brief fused_gate_positions without waiting for the host: the first min(count, capacity)
/// positions in a buffer of `capacity` entries, the count clamped to `capacity` in *live and the
/// true count in *total (both device memory), so that a caller that guessed the capacity can
/// check it later, together with other counts.
/// @throws zeroflow::invalid_argument when fused.block_ones is not valid(), capacity < 0 or a
/// counter is null; zeroflow::cuda_error
[[nodiscard]] array fused_gate_positions_live(const filtered_gate& fused, std::int64_t capacity, std::int64_t* live,
                                              unsigned long long* total, stream_view stream);

}  // namespace zeroflow::signal::detail
