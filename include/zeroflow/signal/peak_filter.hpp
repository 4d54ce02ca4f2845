#pragma once
/// @file peak_filter.hpp
/// Drops gate positions whose band-passed peak is far weaker than a typical beat.
///
/// Why: the seed's non-maximum suppression has no threshold, so wherever two beats are more than
/// one NMS window apart (a compensatory pause after a premature beat, a heart rate under ~80 bpm
/// with the seed's 0.72 s window) the largest wiggle between them — a T wave, noise — is gated as
/// a beat. Those false detections are 20-50 times weaker in the band-passed signal than real
/// R-peaks, while premature ventricular beats stay above ~0.35 of the median (measured on
/// synthetic ECGs and MIT-BIH record 208), so a ratio of 0.1 separates them with margin.
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal {

/// @brief The positions p whose height filtered[p + (nms_window+1)/2] − baseline is at least
/// ratio × the median height of all positions (the lower median: element (n−1)/2 in sorted
/// order). ratio <= 0 keeps every position (the seed's behaviour).
/// `baseline` is what the band-pass makes of the recording's constant offset (its median times
/// the kernel's sum): subtracting it keeps the test independent of the units' offset.
/// @param filtered 1-D float32 band-passed signal
/// @param positions 1-D int64 gate positions (gate_positions), ascending, on filtered's device
/// @param nms_window the window the gate was computed with
/// @param ratio fraction of the median height below which a position is dropped
/// @param baseline subtracted from every height (see above)
/// @return 1-D int64, ascending, on the input's device
/// @throws zeroflow::invalid_argument on bad shapes, dtypes or devices, or a position whose
///         height index falls outside `filtered`
[[nodiscard]] array drop_weak_peaks(const array& filtered, const array& positions, std::int64_t nms_window,
                                    double ratio, float baseline, stream_view stream);

namespace detail {
array drop_weak_peaks_host(const array& filtered, const array& positions, std::int64_t offset, double ratio,
                           float baseline, stream_view stream);
array drop_weak_peaks_cuda(const array& filtered, const array& positions, std::int64_t offset, double ratio,
                           float baseline, stream_view stream);
}  // namespace detail

}  // namespace zeroflow::signal
