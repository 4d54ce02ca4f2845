#pragma once
/// @file detail/beats.hpp
/// Device-specific halves of beats.hpp (contract: see detail/ricker.hpp).
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal::detail {

/// gate: contiguous 1-D uint8 or bool (one byte per element), may be empty.
[[nodiscard]] array gate_positions_host(const array& gate, stream_view stream);
[[nodiscard]] array gate_positions_cuda(const array& gate, stream_view stream);

/// positions: contiguous 1-D int64, may be empty.
[[nodiscard]] array beat_lengths_host(const array& positions, stream_view stream);
[[nodiscard]] array beat_lengths_cuda(const array& positions, stream_view stream);

/// lengths: contiguous 1-D int64, may be empty; bins >= 1.
[[nodiscard]] array length_histogram_host(const array& lengths, std::int64_t bins, stream_view stream);
[[nodiscard]] array length_histogram_cuda(const array& lengths, std::int64_t bins, stream_view stream);

/// signal: contiguous 1-D float32, not empty; positions: contiguous 1-D int64 on the same device;
/// nms_window, ricker_width >= 1.
[[nodiscard]] array locate_peaks_host(const array& signal, const array& positions, std::int64_t nms_window,
                                      std::int64_t ricker_width, float center, stream_view stream);
[[nodiscard]] array locate_peaks_cuda(const array& signal, const array& positions, std::int64_t nms_window,
                                      std::int64_t ricker_width, float center, stream_view stream);

}  // namespace zeroflow::signal::detail
