#pragma once
/// @file outputs.hpp
/// The files `zeroflow run` leaves in its output folder (docs/architecture.md, "Outputs", a contract that
/// other tools read): beats.csv, summary.json, report.html. Each is written atomically.
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::report {

/// beats.csv: `beat,start,peak,length,kept,split,score,mu0,mu1`, one row per beat candidate.
void write_beats_csv(const pipeline::run_result& r, const std::filesystem::path& path);
/// beats.atr: a WFDB annotation file (MIT format) with each beat's class as its MIT code (N, S,
/// V, Q), its score as the annotation's text, and rhythm changes as `+` annotations with the
/// texts "(AFIB" at the first beat of an AF episode and "(N" at the first beat and after each
/// episode. Only for runs with classes (the robust segmentation).
void write_beats_atr(const pipeline::run_result& r, const std::filesystem::path& path);
/// episodes.csv: `rhythm,onset,offset,onset_seconds,offset_seconds,duration_seconds,first_beat,
/// last_beat,beats`, one row per AF episode (onset and offset: R peaks of its first and last beat).
void write_episodes_csv(const pipeline::run_result& r, const std::filesystem::path& path);
/// The summary as JSON (also embedded in the report).
[[nodiscard]] nlohmann::json summary_json(const pipeline::run_result& r, const pipeline::run_options& options);
/// summary.json.
void write_summary_json(const pipeline::run_result& r, const pipeline::run_options& options,
                        const std::filesystem::path& path);
/// report.html: self-contained, readable offline.
void write_report_html(const pipeline::run_result& r, const pipeline::run_options& options,
                       const std::filesystem::path& path);
/// All of them into `folder` (created when missing), with events.csv (holter_outputs.hpp) for a
/// run with a Holter analysis.
void write_all(const pipeline::run_result& r, const pipeline::run_options& options,
               const std::filesystem::path& folder);

}  // namespace zeroflow::report
