#pragma once
/// @file beat_score.hpp
/// The anomaly score of each beat: morphology and rhythm, each measured against the recording's
/// own beats, combined.
///
/// score = max(0, z(morphology)) + max(0, z(irregularity)), where z(v) = (v − median v) /
/// max(1.4826 · MAD v, floor) over the recording's beats. A beat is anomalous when its shape
/// is unlike the others (the model's reconstruction error), when it comes early or before an
/// unusual pause, or both; being more ordinary than the median in either never lowers the score.
/// Robust z-scores make the parts comparable with each other and across recordings (pooled
/// rankings), and the floors keep a very steady rhythm or very uniform beats from turning tiny
/// differences into large scores.
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal {

/// Smallest scale of the morphology z-score, relative to the median error: errors within a few
/// per cent of each other are alike.
inline constexpr float morphology_scale_floor = 0.05F;
/// Smallest scale of the irregularity z-score (it is a log ratio: 0.03 is a 3 % change of rhythm).
inline constexpr float irregularity_scale_floor = 0.03F;

/// Float32 per beat, on the inputs' device.
struct beat_scores {
  array score;       ///< the combined score (higher = more anomalous)
  array morphology;  ///< z(morphology)
  array rhythm;      ///< z(irregularity)
};

/// @brief Combines morphology errors and rhythm irregularity (same length, same device).
/// @throws zeroflow::invalid_argument on bad shapes, dtypes or devices
[[nodiscard]] beat_scores combine_beat_scores(const array& morphology, const array& irregularity, stream_view stream);

}  // namespace zeroflow::signal
