#pragma once
// The band-pass and the NMS gate in one pass over the signal on a GPU (plain C++ header, so that
// host code such as segment_beats can call it; in a build without CUDA it throws cuda_error).
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal::detail {

/// Both outputs of the fused stage.
struct filtered_gate {
  array filtered;  ///< bandpass(signal, ricker_width): float32, N
  array gate;      ///< nms_gate(filtered, nms_window): uint8, N − nms_window + 1
};

/// @brief bandpass_cuda followed by nms_gate_cuda, bit for bit, in one kernel: each block filters
/// its tile plus a window of halo into shared memory and computes the gate from there, so the
/// filtered signal is written once and never read back. Sizes outside the fused kernel's limits
/// (more than 1024 taps or a window over 1536 samples) run the two stages one after the other.
/// @param signal contiguous 1-D float32 on a CUDA device
/// @param ricker_width 1 <= ricker_width <= N
/// @param nms_window 2 <= nms_window <= N
/// @throws zeroflow::cuda_error on a CUDA failure or in a build without CUDA
[[nodiscard]] filtered_gate bandpass_gate_cuda(const array& signal, std::int64_t ricker_width,
                                               std::int64_t nms_window, stream_view stream);

}  // namespace zeroflow::signal::detail
