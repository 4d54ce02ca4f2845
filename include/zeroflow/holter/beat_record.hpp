#pragma once
/// @file beat_record.hpp
/// What a Holter analysis reads: a recording's beats with their classes and rhythm, as a run
/// (pipeline/run_types.hpp) or a reader's corrections leave them. A view; the caller owns the data.
#include <cstdint>
#include <span>
#include <vector>

#include "zeroflow/classify/af_rhythm.hpp"

namespace zeroflow::holter {

struct beat_record {
  std::span<const std::int64_t> peaks;             ///< R-peak samples, strictly increasing
  std::span<const char> classes;                   ///< 'N', 'S', 'V' or 'Q', one per beat
  double sample_rate_hz = 0;                       ///< samples per second, > 0
  std::int64_t samples = 0;                        ///< the recording's length; every peak lies inside it
  std::span<const classify::episode> af_episodes;  ///< AF episodes (beats first..last), in time order
  std::span<const classify::episode> unreadable;   ///< stretches without readable ECG, in time order
  std::span<const std::int32_t> family;            ///< each beat's shape family (families.hpp); empty: none
};

/// What a Holter analysis takes: a month-long patch recording at any rate an ECG is sampled at (its
/// per-minute and per-hour tables grow with the length).
inline constexpr double max_sample_rate_hz = 1e6;
inline constexpr double max_recording_seconds = 31 * 86400.0;

/// @brief Checks a record: a rate in (0, max_sample_rate_hz], at most max_recording_seconds, as many classes as peaks,
/// each one of N S V Q, peaks increasing and
///        inside [0, samples), a positive rate, episodes and stretches naming beats in order.
/// @throws zeroflow::invalid_argument saying which beat or episode is wrong
void check_beat_record(const beat_record& record);

/// 1 for each beat inside one of `stretches` (their first..last beats), else 0.
[[nodiscard]] std::vector<std::uint8_t> beats_inside(std::span<const classify::episode> stretches, std::size_t beats);

/// @brief Whether each R–R interval can be measured: entry b (b ≥ 1) is 1 when the interval from
///        beat b − 1 to beat b joins two readable beats that are not Q (a Q beat may be an artefact,
///        and a beat missed in unreadable signal fakes a long interval); entry 0 is 0.
[[nodiscard]] std::vector<std::uint8_t> measurable_intervals(const beat_record& record);

}  // namespace zeroflow::holter
