#pragma once
/// @file outputs.hpp
/// The files `zeroflow run` leaves in its output folder (docs/architecture.md, "Outputs", a contract that
/// other tools read): beats.csv (beats_csv.hpp), beats.atr and episodes.csv (rhythm_outputs.hpp),
/// events.csv (holter_outputs.hpp), summary.json (summary_json.hpp), report.html (html_report.hpp).
/// Each is written atomically.
#include <filesystem>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::report {

/// All of them into `folder` (created when missing): beats.atr and episodes.csv for a run with
/// classes, events.csv for a run with a Holter analysis.
void write_all(const pipeline::run_result& r, const pipeline::run_options& options,
               const std::filesystem::path& folder);

}  // namespace zeroflow::report
