#pragma once
/// @file display.hpp
/// A segmented recording reduced for display, on the device where it lives, so that only a few
/// MB cross to the host however long the recording is: the min/max overview that keeps every
/// peak, a few seconds of signal and band-pass response, a few dozen full beat rows and a
/// peak-preserving thumbnail of every beat. The report draws its interactive figures from these.
#include <cstdint>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal {

/// @brief How much of a recording a display may hold. The defaults keep a report of a 22-hour
/// recording under 10 MB and every figure readable.
struct display_sizes {
  std::int64_t overview_budget = std::int64_t{1} << 20;  ///< min/max pairs of the finest overview level, at most
  std::int64_t thumb_budget = 1'000'000;                 ///< points of all thumbnails together, at most
  std::int64_t min_thumb_width = 16;                     ///< points per thumbnail, at least (when the row has them)
  std::int64_t top_rows = 25;                            ///< full rows of the highest scores
  std::int64_t other_rows = 36;                          ///< full rows spread over the recording
  double excerpt_seconds = 10;                           ///< length of the excerpt
  double excerpt_lead_seconds = 0.25;                    ///< excerpt starts this long before a gate
};

/// @brief A recording reduced for display: host vectors, a few MB at most.
struct display_data {
  /// Finest overview level: min and max of every `overview_bucket` consecutive samples (the last
  /// bucket may be shorter). A bucket of 1 means these are the raw samples.
  std::int64_t overview_bucket = 1;
  std::vector<float> overview_min, overview_max;
  /// Samples [excerpt_start, excerpt_start + excerpt_signal.size()) of the signal and of its
  /// band-pass response (empty when no response was given).
  std::int64_t excerpt_start = 0;
  std::vector<float> excerpt_signal, excerpt_filtered;
  /// Indices (into the rows) of the rows held in full, as display_rows orders them, and their
  /// values: row_index.size() × row width.
  std::vector<std::int64_t> row_index;
  std::vector<float> rows;
  /// Every row reduced to `thumb_width` points by absmax_decimate, row after row.
  std::int64_t thumb_width = 0;
  std::vector<float> thumbs;
};

/// @brief Smallest power of two b with ceil(samples / b) <= budget (1 for short recordings: raw samples).
/// @throws zeroflow::invalid_argument when budget < 1
[[nodiscard]] std::int64_t overview_bucket(std::int64_t samples, std::int64_t budget);

/// @brief Samples of a row per thumbnail point: the smallest divisor k of row_width with
/// row_width / k <= clamp(budget / rows, min_width, row_width). A divisor, so that no bucket
/// straddles two rows; for the power-of-two widths of the model, a power of two.
/// @throws zeroflow::invalid_argument when row_width < 1
[[nodiscard]] std::int64_t thumb_factor(std::int64_t rows, std::int64_t row_width, std::int64_t budget,
                                        std::int64_t min_width);

/// @brief Which rows a display holds in full: the `top` highest scores, highest first (NaN counts as
/// lowest, ties go to the earlier row), then `others` more, evenly spaced over the remaining
/// rows in row order. All rows when there are no more than top + others.
[[nodiscard]] std::vector<std::int64_t> display_rows(const std::vector<float>& row_score, std::int64_t top,
                                                     std::int64_t others);

/// @brief First sample of the excerpt: `lead` samples before the first gate at or after the point that
/// centres the excerpt in the recording, clamped so that `length` samples fit.
[[nodiscard]] std::int64_t excerpt_start(const std::vector<std::int64_t>& gates, std::int64_t samples,
                                         std::int64_t length, std::int64_t lead);

/// @brief Reduces a segmented recording for display, on its device; only the result crosses
/// to the host.
/// @param signal the recording, 1-D float32
/// @param filtered its band-pass response, same length (or an empty array: no excerpt of it)
/// @param rows the embedded beats, rows × width float32 (or an empty array: no rows, no thumbnails)
/// @param row_score one score per row (higher: more anomalous; NaN: not scored)
/// @param gates the sorted beat starts, in samples
/// @param sample_rate samples per second (the excerpt's length and lead are in seconds)
/// @return the reductions, as host vectors
/// @throws zeroflow::invalid_argument when row_score does not have one score per row, or (from the
///         decimations) on a signal that is not 1-D float32
[[nodiscard]] display_data reduce_for_display(const array& signal, const array& filtered, const array& rows,
                                              const std::vector<float>& row_score,
                                              const std::vector<std::int64_t>& gates, double sample_rate,
                                              stream_view stream, const display_sizes& sizes = {});

/// A stretch of a recording: `length` samples from `start`.
struct sample_window {
  std::int64_t start = 0;
  std::int64_t length = 0;
};

/// @brief The samples of each window of a 1-D float32 signal, on the host (a few seconds each:
///        the report's strips of events). Windows are clipped to the signal.
/// @throws zeroflow::invalid_argument for a signal that is not 1-D float32
[[nodiscard]] std::vector<std::vector<float>> excerpts(const array& signal, const std::vector<sample_window>& windows,
                                                       stream_view stream);

}  // namespace zeroflow::signal
