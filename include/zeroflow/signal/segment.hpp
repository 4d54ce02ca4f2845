#pragma once
/// @file segment.hpp
/// The seed's segmentation end to end: band-pass, NMS gate, beats, R-peaks, normalised rows.
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/beats.hpp"
#include "zeroflow/signal/embed.hpp"
#include "zeroflow/signal/nms.hpp"
#include "zeroflow/signal/normalize.hpp"
#include "zeroflow/signal/params.hpp"
#include "zeroflow/signal/rhythm.hpp"
#include "zeroflow/signal/ricker.hpp"

namespace zeroflow::signal {

/// Every intermediate of segment_beats, all on the signal's device.
struct segmentation {
  segment_sizes sizes;
  array filtered;   ///< bandpass(signal, ricker_width), float32, N
  array gate;       ///< nms_gate(filtered, nms_window), uint8, N − nms_window + 1
  array positions;  ///< drop_weak_peaks(filtered, gate_positions(gate)), int64; candidate c starts at positions[c]
  array lengths;    ///< beat_lengths(positions), int64, one per candidate (positions.size() − 1)
  array histogram;  ///< length_histogram(lengths, 2·max_length + 1): the last bin counts beats >= 2·max_length
  /// locate_peaks(...), int64, one per POSITION: peaks[c] is candidate c's R-peak for
  /// c < lengths.size(), and the last entry the R-peak of the final detection (which starts no
  /// candidate); all of them count when beat-detection sensitivity is measured.
  array peaks;
  normalization
      norm;         ///< robust_zscore of the signal (subsampled when long, see params.hpp); {0, 1} when rows stay raw
  embedding beats;  ///< embed_beats(signal, positions, lengths, min_length, max_length, row_width, norm)
  /// Robust method only (segment_recording): rhythm_features(peaks); empty for the seed's method.
  rhythm rr;
};

/// @brief Runs the whole segmentation on the signal's device.
///
/// Limits inherited from the seed's method (kept on purpose, they define the pipeline):
/// a beat is found only when its band-passed peak is the largest within ±nms_window/2
/// (±0.36 s by default), so a premature beat closer than that to a larger neighbour is not
/// found (at 110 bpm most PVCs, whose coupling interval is ~0.35 s, are missed; at 60-80 bpm
/// they are found); shorten nms_window_seconds for fast rhythms. A beat in the last
/// nms_window − (nms_window+1)/2 + (ricker_width−1)/2 samples (~0.4 s) or in the first
/// (nms_window+1)/2 − (ricker_width−1)/2 samples (~0.3 s) cannot be gated at all.
/// @param signal raw 1-D float32 recording, any stride, at least max(ricker_width, nms_window) samples
/// @throws zeroflow::invalid_argument on bad input or parameters (see the stages)
[[nodiscard]] segmentation segment_beats(const array& signal, const segment_params& params, stream_view stream);

/// @brief Segments a recording with the method params.method names.
///
/// segmentation_method::gate_to_gate is segment_beats. segmentation_method::robust detects beats with
/// detect_qrs and gives EVERY detected beat a row (embed_windows around its peak) and rhythm
/// features; its fields then mean:
/// - peaks: the beats' R peaks (detect_qrs), ascending; positions: the same array;
/// - lengths: beat_lengths(peaks), the R–R intervals; histogram: their histogram as above;
/// - filtered: the band-passed signal; gate: not computed (invalid array);
/// - beats.rows: one row per peak, in peak order; beats.kept and beats.kept_index: not computed
///   (every beat has a row);
/// - rr: rhythm_features(peaks).
/// @throws zeroflow::invalid_argument on bad input or parameters
[[nodiscard]] segmentation segment_recording(const array& signal, const segment_params& params, stream_view stream);

/// @brief Places the robust method's beats at `peaks` instead of its detections (beats located
///        in several leads, classify/joint_detection.hpp): peaks, positions, lengths, histogram,
///        rows and rhythm features of `s` derived from them as segment_recording derives them;
///        sizes, filtered and norm stay.
/// @param s a robust segmentation of `signal` (segment_recording with `params`)
/// @param peaks int64 R-peak samples, ascending, on the signal's device
/// @throws zeroflow::invalid_argument on bad input, or for the seed's method
void place_beats(segmentation& s, const array& signal, const array& peaks, const segment_params& params,
                 stream_view stream);

}  // namespace zeroflow::signal
