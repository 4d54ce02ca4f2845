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
/// The summary as JSON (also embedded in the report).
[[nodiscard]] nlohmann::json summary_json(const pipeline::run_result& r, const pipeline::run_options& options);
/// summary.json.
void write_summary_json(const pipeline::run_result& r, const pipeline::run_options& options,
                        const std::filesystem::path& path);
/// report.html: self-contained, readable offline.
void write_report_html(const pipeline::run_result& r, const pipeline::run_options& options,
                       const std::filesystem::path& path);
/// All three into `folder` (created when missing).
void write_all(const pipeline::run_result& r, const pipeline::run_options& options,
               const std::filesystem::path& folder);

}  // namespace zeroflow::report
