#pragma once
/// @file joint_detection.hpp
/// Beats located in every ECG lead of a recording. Each lead's detector finds its own beats, and
/// each beat's *clarity* (beat_classes.hpp, step 0: how far its QRS stands out of the signal
/// around it) says whether it is a QRS or noise. Noise in one lead is not noise in another (each
/// electrode moves on its own), so:
/// 1. A beat of the first lead is kept when another lead finds a beat within
///    `quality.same_beat_seconds` of it, or when its QRS is clearer than noise in its own lead
///    (clarity ≥ `quality.min_clarity`, the readable-ECG bound): a detection in a burst of noise
///    that no other lead confirms is dropped.
/// 2. A beat only another lead finds is added where the first lead lost one: its QRS is clearer
///    than noise there (clarity ≥ `quality.min_clarity`), no beat taken so far (step 1's, then
///    earlier leads') is within the detector's T-wave window of it (`segment_params::t_wave_seconds`:
///    nearer, the other lead's peak may be its T wave, which that lead's detector could not reject
///    against a beat it did not see), and the interval of taken beats it falls in is longer than
///    `quality.missed_beat_ratio` times the median of the intervals within
///    ±`timing.local_rhythm_beats` (a lost beat doubles an interval; before the first taken beat
///    and after the last, no interval says so and the beat is added).
/// docs/classification.md ("Beats from every lead") gives the measurements.
#include <cstdint>
#include <span>
#include <vector>

#include "zeroflow/classify/beat_classes.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::classify {

/// One lead's detected beats: R-peak samples (ascending) and each beat's clarity in that lead.
struct lead_beats {
  std::span<const std::int64_t> peaks;
  std::span<const float> clarity;
};

/**
 * @brief Each beat's clarity (beat_classes.hpp, step 0) in its row, measured where the rows are
 *        (host, or a CUDA device: only the per-beat numbers come back).
 * @param rows beats × row_width float32, C-contiguous, the R peak `window_before` samples in
 * @throws zeroflow::invalid_argument for rows of another shape or type
 */
[[nodiscard]] std::vector<float> beat_clarity(const array& rows, std::int64_t window_before, std::int64_t window_after,
                                              double sample_rate, stream_view stream);

/**
 * @brief The beats of the recording (this file's rule): the first lead's, less those no other
 *        lead confirms and no clearer than noise, with those only another lead finds clearly.
 * @return R-peak samples, ascending (a beat another lead adds at that lead's R peak)
 * @throws zeroflow::invalid_argument when peaks do not increase, a lead's clarities are not one
 *         per beat, the rate is not positive or a parameter is out of range
 */
[[nodiscard]] std::vector<std::int64_t> join_lead_beats(const lead_beats& first, std::span<const lead_beats> others,
                                                        double sample_rate, double t_wave_seconds,
                                                        const class_params& params);

}  // namespace zeroflow::classify
