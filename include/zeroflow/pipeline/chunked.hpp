#pragma once
/// @file chunked.hpp
/// Recordings larger than the device: the robust segmentation run chunk by chunk through a bounded
/// device budget (`zeroflow run --max-device-memory`), with the same beats and rows as the
/// in-memory run.
///
/// The recording stays on the host. Pass 1 sends each chunk, with a margin on either side, to the
/// device and keeps the detector's candidate peaks (position, energy, slope) whose position lies in
/// the chunk's own samples; the margin covers everything a candidate's features read (band-pass,
/// energy, the NMS window, the slope window), so every kept candidate is the one the whole
/// recording gives, bit for bit. The detector's decision rules (qrs_detect.hpp) then run once over
/// all candidates: the same function as the in-memory run on the same inputs, so the same beats,
/// whatever the chunk edges and however they fall against the detector's 300 s stretches. Pass 2
/// sends each chunk again, with a beat window's margin, and embeds the rows of the beats whose peak
/// lies in it, with the recording's normalisation (taken from the same strided subsample as the
/// in-memory run). Rows are collected on the host. Only the selected lead is ever read.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/memory/resource.hpp"
#include "zeroflow/signal/params.hpp"
#include "zeroflow/signal/segment.hpp"

namespace zeroflow::pipeline {

/// @brief A byte count as a person writes it: "2G", "512M", "1.5G", "64MiB", "100000000".
/// K, M, G and T are powers of 1024 (KiB, MiB, ...); a trailing "B" or "iB" is allowed, case is not
/// significant, a fraction is rounded down to whole bytes.
/// @throws invalid_argument for anything else (empty, negative, unknown suffix, too large), with the
///         text and the forms that are accepted.
[[nodiscard]] std::int64_t parse_byte_size(const std::string& text);

/// The fewest bytes --max-device-memory accepts: room for the normalisation's subsample (at most
/// 2^21 samples) and its sort, a chunk of a few seconds, and the model's working memory.
inline constexpr std::int64_t min_device_budget = std::int64_t{64} << 20;

/// How segment_in_chunks cuts the recording.
struct chunk_options {
  /// Own samples per chunk (the last may be shorter), rounded down to a multiple of the report's
  /// overview bucket; 0: as many as `budget_bytes` allows.
  std::int64_t chunk_samples = 0;
  /// Device bytes a chunk's work may take (0 with chunk_samples 0: the whole recording in one chunk).
  /// A chunk that does not fit after all (out_of_memory) is retried at half the size.
  std::int64_t budget_bytes = 0;
  /// Where the rows (and other host-side results) are allocated; null: the current host resource.
  /// A run with a host budget passes the resource outside it.
  memory::resource_ptr host_store;
  /// Progress lines for a person.
  std::function<void(const std::string&)> progress;
};

/// A segmentation made chunk by chunk, and the report's overview made on the way.
struct chunked_segmentation {
  /// As segment_recording gives for the robust method, except: peaks, positions, lengths,
  /// histogram and rr are on the run's device; beats.rows (one per peak, in peak order) is on the
  /// host; filtered is not kept (an invalid array).
  signal::segmentation seg;
  std::int64_t chunks = 0;         ///< chunks of the first pass
  std::int64_t chunk_samples = 0;  ///< own samples of its chunks (the last may be shorter)
  /// min and max of every overview_bucket samples, as signal::reduce_for_display makes them.
  std::int64_t overview_bucket = 1;
  std::vector<float> overview_min, overview_max;
};

/// Samples of context a chunk needs on either side so that its own candidates are exactly those of
/// the whole recording (band-pass taps, the NMS window, the slope window, with room to spare).
[[nodiscard]] std::int64_t chunk_margin(const signal::segment_sizes& sizes);

/// @brief Segments a host recording with the robust method, one chunk at a time on `where`.
/// @param signal the recording, 1-D float32, host-accessible (it is never copied whole)
/// @param params segmentation parameters; params.method must be robust
/// @param where the device that does the work (cpu_device: the same code on the host)
/// @throws invalid_argument for the seed's method or a bad signal; out_of_memory when a chunk of
///         the smallest size does not fit the budget
[[nodiscard]] chunked_segmentation segment_in_chunks(const array& signal, const signal::segment_params& params,
                                                     device where, const chunk_options& options, stream_view stream);

}  // namespace zeroflow::pipeline
