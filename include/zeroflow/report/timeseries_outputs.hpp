#pragma once
/// @file timeseries_outputs.hpp
/// The files `zeroflow timeseries` leaves in its output folder: points.csv (one row per point)
/// and summary.json. Each is written atomically.
#include <filesystem>
#include <nlohmann/json_fwd.hpp>

#include "zeroflow/pipeline/timeseries_pipeline.hpp"

namespace zeroflow::report {

/// points.csv: `row,value,scaled,reconstruction,score,outlier`, then `label` when the run was
/// evaluated against labels; numbers with 9 significant digits (a float32 round-trips).
void write_timeseries_points(const pipeline::timeseries_result& r, const std::filesystem::path& path);

/// The summary: the input, the model and its training, the threshold, the stage times and the
/// evaluation (when labels were given).
[[nodiscard]] nlohmann::json timeseries_summary_json(const pipeline::timeseries_result& r,
                                                     const pipeline::timeseries_options& options);

/// summary.json: timeseries_summary_json, indented.
void write_timeseries_summary(const pipeline::timeseries_result& r, const pipeline::timeseries_options& options,
                              const std::filesystem::path& path);

}  // namespace zeroflow::report
