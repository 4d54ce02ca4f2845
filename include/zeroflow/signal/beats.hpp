#pragma once
/// @file beats.hpp
/// From the gate to beats: gate positions, beat lengths, their histogram, and R-peaks.
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal {

/// @brief Indices p (ascending) where gate[p] == 1 (other values, e.g. 2, do not count).
/// @param gate 1-D uint8 or bool, any stride, may be empty
/// @return 1-D int64, on the gate's device
/// @throws zeroflow::invalid_argument on a non-1-D or non-uint8/bool gate
[[nodiscard]] array gate_positions(const array& gate, stream_view stream);

/// @brief Beat lengths: positions[i+1] − positions[i] (NumPy's diff).
/// @param positions 1-D int64, any stride, may be empty
/// @return 1-D int64 of max(size − 1, 0) elements, on the input's device
/// @throws zeroflow::invalid_argument on a non-1-D or non-int64 input
[[nodiscard]] array beat_lengths(const array& positions, stream_view stream);

/// @brief Histogram of lengths: counts[b] = #{lengths == b} for b < bins − 1, and the last bin
/// collects every length >= bins − 1. Negative values (impossible for beat lengths) are not counted.
/// @param lengths 1-D int64, any stride, may be empty
/// @param bins >= 1
/// @return 1-D int64 of `bins` counts, on the input's device
/// @throws zeroflow::invalid_argument on a non-1-D or non-int64 input or bins <= 0
[[nodiscard]] array length_histogram(const array& lengths, std::int64_t bins, stream_view stream);

/// @brief The R-peak sample of every gate position.
///
/// The gate marks p when filtered[p + (nms_window+1)/2] is the window maximum, and the band-pass
/// delays by (ricker_width−1)/2 samples, so the peak is near
///     a = p + (nms_window+1)/2 − (ricker_width−1)/2.
/// It is refined to the sample of largest |signal[i] − center| (computed in float32) for i in
/// [a − ricker_width/2, a + ricker_width/2] ∩ [0, N): the band-pass blurs the peak over about
/// one kernel width, and the absolute value also finds R-peaks of inverted leads. Ties go to the
/// lowest index; NaNs never win; if no sample qualifies, a clamped to [0, N) is returned.
/// Peaks follow the order of the positions and are ascending, except that two gate positions
/// closer than about ricker_width (possible only when the filtered signal has two exactly equal
/// window maxima) may give swapped peaks: sort a copy before using them as a sorted set
/// (e.g. eval::match_peaks).
/// @param signal the raw 1-D float32 signal (not the filtered one), any stride, not empty
/// @param positions 1-D int64 gate positions (gate_positions), any stride, may be empty
/// @param nms_window, ricker_width the sizes the gate was computed with (>= 1)
/// @param center the recording's baseline (robust_zscore(...).center)
/// @return 1-D int64 with one peak per position, on the signal's device
/// @throws zeroflow::invalid_argument on bad shapes, dtypes, devices or sizes
[[nodiscard]] array locate_peaks(const array& signal, const array& positions, std::int64_t nms_window,
                                 std::int64_t ricker_width, float center, stream_view stream);

}  // namespace zeroflow::signal
