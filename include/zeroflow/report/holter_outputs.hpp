#pragma once
/// @file holter_outputs.hpp
/// The Holter analysis (holter/holter.hpp) as files: summary.json's "holter" object and events.csv
/// (docs/cli.md's outputs contract). Rates and times that could not be measured are JSON null.
#include <filesystem>
#include <nlohmann/json_fwd.hpp>

#include "zeroflow/holter/holter.hpp"

namespace zeroflow::report {

/// The analysis as summary.json's "holter" object: parameters, heart rate (extremes and per
/// minute), counts (whole recording and per hour), AF burden, events by kind with the notable ones
/// (longest pause, longest and fastest ventricular run), HRV.
[[nodiscard]] nlohmann::json holter_json(const holter::holter_analysis& analysis, double sample_rate_hz);

/// Every event as summary.json writes the notable ones: kind, onset, offset (samples),
/// onset_seconds, duration_seconds, first_beat, last_beat, beats, rate_bpm.
[[nodiscard]] nlohmann::json events_json_list(const holter::holter_analysis& analysis, double sample_rate_hz);

/// Every event, one per row: `kind,onset,offset,onset_seconds,offset_seconds,duration_seconds,
/// first_beat,last_beat,beats,rate_bpm` (onset and offset: R peaks of the first and last beat;
/// rate_bpm empty where not measured). Written atomically.
void write_events_csv(const holter::holter_analysis& analysis, double sample_rate_hz,
                      const std::filesystem::path& path);

}  // namespace zeroflow::report
