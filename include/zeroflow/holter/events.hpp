#pragma once
/// @file events.hpp
/// The events a Holter report lists, found from beat times, classes and AF episodes:
/// - pause: an R–R interval of at least `pause_seconds` between two measurable beats;
/// - bradycardia / tachycardia: averaged rates (heart_rate.hpp) below `bradycardia_bpm` / above
///   `tachycardia_bpm`, from the first interval of the first such average to the last beat;
/// - ventricular / supraventricular couplet (2 to run_beats − 1 in a row) and run (at least
///   `run_beats` in a row: ventricular tachycardia, SVT), rate over the run's own intervals;
/// - ventricular / supraventricular bigeminy (N E N E …) and trigeminy (N N E N N E …): at least
///   `pattern_cycles` isolated ectopic beats E in a row, each after one (two) N beats;
/// - atrial fibrillation: the recording's AF episodes.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "zeroflow/holter/beat_record.hpp"
#include "zeroflow/holter/holter_params.hpp"

namespace zeroflow::holter {

/// The kinds of event, as events.csv and summary.json name them.
namespace event_kind {
inline constexpr std::string_view pause = "pause";
inline constexpr std::string_view bradycardia = "bradycardia";
inline constexpr std::string_view tachycardia = "tachycardia";
inline constexpr std::string_view ventricular_couplet = "ventricular_couplet";
inline constexpr std::string_view ventricular_run = "ventricular_run";
inline constexpr std::string_view ventricular_bigeminy = "ventricular_bigeminy";
inline constexpr std::string_view ventricular_trigeminy = "ventricular_trigeminy";
inline constexpr std::string_view supraventricular_couplet = "supraventricular_couplet";
inline constexpr std::string_view supraventricular_run = "supraventricular_run";
inline constexpr std::string_view supraventricular_bigeminy = "supraventricular_bigeminy";
inline constexpr std::string_view supraventricular_trigeminy = "supraventricular_trigeminy";
inline constexpr std::string_view atrial_fibrillation = "atrial_fibrillation";
}  // namespace event_kind

struct event {
  std::string_view kind;  ///< one of event_kind
  std::int64_t first_beat = 0, last_beat = 0;
  std::int64_t onset = 0, offset = 0;  ///< R peaks of the first and the last beat
  /// The event's rate: a run's or an AF episode's mean, bradycardia's lowest and tachycardia's
  /// highest averaged rate, 60 / duration for a pause.
  double rate_bpm = 0;
};

/// @brief Every event of the record, ordered by onset (then by kind's order in event_kind).
/// @param averaged_bpm heart_rate(record, params).averaged_bpm
/// @throws zeroflow::invalid_argument for a record or parameters out of range, or averaged_bpm of
///         another size
[[nodiscard]] std::vector<event> find_events(const beat_record& record, std::span<const double> averaged_bpm,
                                             const event_params& params = {});

/// @brief The events a reader looks at first, `per_kind` of each kind at most: the longest pauses,
///        runs, patterns and AF episodes, the slowest bradycardia and the fastest tachycardia (the
///        earlier first among equals). Indices into `events`, in onset order.
[[nodiscard]] std::vector<std::size_t> notable_events(std::span<const event> events, std::size_t per_kind);

/// Maximal runs of beats of class `beat_class` in a row, as (first, last) beat pairs.
[[nodiscard]] std::vector<std::pair<std::int64_t, std::int64_t>> class_runs(std::span<const char> classes,
                                                                            char beat_class);

}  // namespace zeroflow::holter
