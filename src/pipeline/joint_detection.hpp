#pragma once
// Beats located in every ECG lead (classify/joint_detection.hpp): each lead's own detections and
// clarities, joined, and the first lead's segmentation placed at the joined beats.
#include <cstdint>
#include <span>

#include "other_leads.hpp"
#include "zeroflow/classify/beat_classes.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/segment.hpp"

namespace zeroflow::pipeline::detail {

/// What joining the leads changed: the first lead's detections dropped (noise no lead confirms),
/// and beats only another lead found.
struct joined_beats {
  std::int64_t dropped = 0, added = 0;
};

/// @brief Joins the beats of `seg` (the robust segmentation of `signal`, the first lead) with
///        those each ECG lead of `leads` finds on its own (segment_recording with `params`), and
///        places `seg`'s beats at the joined ones when they differ.
[[nodiscard]] joined_beats join_lead_detections(signal::segmentation& seg, const array& signal,
                                                std::span<const other_lead> leads, const signal::segment_params& params,
                                                const classify::class_params& classes, stream_view stream);

}  // namespace zeroflow::pipeline::detail
