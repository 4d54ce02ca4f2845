#pragma once
// The report's figure inputs (pipeline::figure_data) from the run's device arrays: the reductions
// themselves are signal::reduce_for_display; this maps the run's candidates onto them.
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"

namespace zeroflow::pipeline::detail {

/// Everything in figure_data, from the run's device arrays and the host results collected so far
/// (r.kept, r.start, r.score, r.sample_rate).
/// @param signal the raw recording, 1-D float32
/// @param filtered its band-pass response (same length)
/// @param rows the embedded kept beats, kept × row_width float32 (row i: the i-th candidate with kept = 1)
[[nodiscard]] figure_data collect_figures(const array& signal, const array& filtered, const array& rows,
                                          const run_result& r, stream_view stream);

/// Seconds of an event's strip on the report's ECG paper, and strips of each kind at most.
inline constexpr double strip_seconds = 8;
inline constexpr std::size_t strips_per_kind = 3;

/// @brief The strips of r.holter's notable events (none without a Holter analysis): strip_seconds
///        of `signal` around each (an event longer than a strip: from a second before its onset).
/// @param signal the raw recording, 1-D float32, on any device
[[nodiscard]] std::vector<event_strip> collect_strips(const array& signal, const run_result& r, stream_view stream);

}  // namespace zeroflow::pipeline::detail
