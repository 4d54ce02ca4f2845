#pragma once
/// @file rhythm.hpp
/// The rhythm around each beat: R–R intervals before and after it and the local mean rhythm.
///
/// Why: a beat's timing matters as much as its shape. An atrial premature beat looks normal and
/// arrives early; a premature ventricular beat arrives early and is usually followed by a
/// compensatory pause. Measured against the local rhythm (the median of the surrounding
/// intervals, which ignores the few ectopic ones), both stand out in any heart rate.
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal {

/// Intervals in seconds, float32, one entry per beat, on the peaks' device.
struct rhythm {
  array rr_before;  ///< peak[b] − peak[b−1]; for the first beat, its rr_after
  array rr_after;   ///< peak[b+1] − peak[b]; for the last beat, its rr_before
  array local_rr;   ///< median of the intervals peak[k+1] − peak[k] for k in [b − 8, b + 8) ∩ [0, n − 1)
  /// max(0, ln(local_rr / rr_before)) + max(0, ln(rr_after / rr_before)): how early the beat came
  /// against the local rhythm, plus how much longer the pause after it is than the interval
  /// before it. 0 for a beat in a steady rhythm.
  array irregularity;
};

/// Beats at most this many intervals away on either side make the local rhythm.
inline constexpr std::int64_t rhythm_neighbourhood = 8;

/// @brief Rhythm features of every beat.
/// @param peaks 1-D int64, ascending R-peak samples (any device); fewer than two beats give
///        intervals of 0 and irregularity 0
/// @param sample_rate samples per second (> 0)
/// @throws zeroflow::invalid_argument on bad input
[[nodiscard]] rhythm rhythm_features(const array& peaks, double sample_rate, stream_view stream);

namespace detail {
rhythm rhythm_features_host(const array& peaks, double sample_rate, stream_view stream);
rhythm rhythm_features_cuda(const array& peaks, double sample_rate, stream_view stream);
}  // namespace detail

}  // namespace zeroflow::signal
