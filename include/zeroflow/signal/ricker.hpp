#pragma once
/// @file ricker.hpp
/// The seed's band-pass: convolution with a Ricker ("Mexican hat") wavelet.
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal {

/// @brief The seed's Ricker kernel: t = linspace(-3, 3, width) (NumPy's definition: t_i = -3 + i·6/(width-1),
/// the last exactly 3; a single point is -3), h = (1 - t²)·exp(-t²/2)·2/sqrt(width).
/// Computed in double and stored as float32.
/// @param width number of taps (>= 1)
/// @param where device of the result
/// @throws zeroflow::invalid_argument when width <= 0
[[nodiscard]] array ricker_kernel(std::int64_t width, device where, stream_view stream);

/// @brief Band-pass filter: the signal convolved with ricker_kernel(ricker_width).
///
/// Boundary handling is CIRCULAR and CAUSAL, exactly as the seed's
/// `irfft(rfft(x) · rfft(h zero-embedded to N))`:
///     y[n] = Σ_{k < width} h[k] · x[(n − k) mod N],
/// so the first width−1 outputs mix in the end of the recording, and the output is delayed by
/// (width−1)/2 samples against the input (h is symmetric about its middle tap).
/// The host version convolves directly with the taps in double and accumulates in double,
/// rounding once to float32 (the seed's result is float64; this is it up to FFT round-off,
/// rounded to float).
/// @param signal 1-D float32, any stride
/// @param ricker_width taps, 1 <= ricker_width <= signal length
/// @return 1-D float32 of the signal's length, on the signal's device
/// @throws zeroflow::invalid_argument on a non-1-D, non-float32 or empty signal, or a bad width
[[nodiscard]] array bandpass(const array& signal, std::int64_t ricker_width, stream_view stream);

}  // namespace zeroflow::signal
