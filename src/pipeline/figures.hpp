#pragma once
// The report's figure inputs (pipeline::figure_data), reduced on the run's device so that only
// a few MB cross to the host: the overview's min/max buckets, a 10 s excerpt, selected beats'
// rows and every kept beat's thumbnail. Private to the pipeline; split out so that the choices
// (bucket sizes, which rows) can be tested on their own.
#include <cstdint>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"

namespace zeroflow::pipeline::detail {

/// The overview's finest level holds at most this many buckets (~8 MB of floats on the host).
inline constexpr std::int64_t overview_budget = std::int64_t{1} << 20;
/// Points of all thumbnails together, at most (the brief's 1 M).
inline constexpr std::int64_t thumb_budget = 1'000'000;
inline constexpr std::int64_t min_thumb_width = 16;
/// Rows shipped in full: the most anomalous beats, and others spread over the recording.
inline constexpr std::int64_t top_rows = 25, other_rows = 36;
inline constexpr double excerpt_seconds = 10, excerpt_lead_seconds = 0.25;

/// Smallest power of two b with ceil(samples / b) <= budget (1 for short recordings: raw samples).
[[nodiscard]] std::int64_t overview_bucket(std::int64_t samples, std::int64_t budget = overview_budget);

/// Samples of a row per thumbnail point: the smallest divisor k of row_width with
/// row_width / k <= clamp(thumb_budget / kept, min_thumb_width, row_width). A divisor, so that
/// no bucket straddles two rows; for the power-of-two widths of the model, a power of two.
[[nodiscard]] std::int64_t thumb_factor(std::int64_t kept, std::int64_t row_width,
                                        std::int64_t budget = thumb_budget);

/// Which rows (kept order) the report gets in full: the `top` highest scores, highest first
/// (NaN counts as lowest, ties go to the earlier row), then `others` more, evenly spaced over
/// the remaining rows in row order. All rows when there are no more than top + others.
[[nodiscard]] std::vector<std::int64_t> figure_rows(const std::vector<float>& row_score, std::int64_t top,
                                                    std::int64_t others);

/// First sample of the excerpt: `lead` samples before the first gate at or after the point that
/// centres the excerpt in the recording, clamped so that `length` samples fit.
[[nodiscard]] std::int64_t excerpt_start(const std::vector<std::int64_t>& gates, std::int64_t samples,
                                         std::int64_t length, std::int64_t lead);

/// Everything in figure_data, from the run's device arrays and the host results collected so far
/// (r.kept, r.start, r.score, r.sample_rate, r.sizes).
/// @param signal the raw recording, 1-D float32
/// @param filtered its band-pass response (same length)
/// @param rows the embedded kept beats, kept × row_width float32
[[nodiscard]] figure_data collect_figures(const array& signal, const array& filtered, const array& rows,
                                          const run_result& r, stream_view stream);

}  // namespace zeroflow::pipeline::detail
