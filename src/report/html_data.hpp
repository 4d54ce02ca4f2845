#pragma once
// The data blob the report's script draws from (report_data.js decodes it): the run's summary
// (the very object summary.json holds) plus every figure's arrays in the compact encodings of
// html_encode.hpp.
#include <nlohmann/json.hpp>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::report::detail {

/// Extent of the latent grid the pipeline decodes (decode_grid(5, 2.0): μ ∈ [−2, 2]²).
inline constexpr double decoded_grid_extent = 2.0;
inline constexpr int decoded_grid_n = 5;

/// @brief Everything the report's script needs, as one JSON object (format 1; see report_data.js's load()).
[[nodiscard]] nlohmann::json report_data(const pipeline::run_result& r, const pipeline::run_options& options);

}  // namespace zeroflow::report::detail
