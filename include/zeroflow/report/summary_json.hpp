#pragma once
/// @file summary_json.hpp
/// summary.json: the run's figures, parameters and timings as JSON (outputs.hpp: the output
/// folder's contract).
#include <filesystem>
#include <nlohmann/json_fwd.hpp>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::report {

/// The summary as JSON (also embedded in the report).
[[nodiscard]] nlohmann::json summary_json(const pipeline::run_result& r, const pipeline::run_options& options);
/// summary.json.
void write_summary_json(const pipeline::run_result& r, const pipeline::run_options& options,
                        const std::filesystem::path& path);

}  // namespace zeroflow::report
