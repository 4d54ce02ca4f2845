#pragma once
// The data blob the report's script draws from (report_data.js decodes it): the run's summary
// (the very object summary.json holds) plus every figure's arrays in the compact encodings of
// html_encode.hpp.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::report::detail {

/// Extent of the latent grid the pipeline decodes (decode_grid(5, 2.0): μ ∈ [−2, 2]²).
inline constexpr double decoded_grid_extent = 2.0;
inline constexpr int decoded_grid_n = 5;

/// Class of a beat in the browser: 0 none (the seed's segmentation classifies nothing), 1 N, 2 S,
/// 3 V, 4 Q.
[[nodiscard]] std::uint8_t class_code(char beat_class);

/// JSON text that is safe inside <script>: '<' only occurs in strings there, and "\u003c" is the
/// same string to JSON.parse, so no "</script>" (or "<!--") in a file name can end the element.
[[nodiscard]] std::string script_safe_json(const nlohmann::json& j);

/// The element of report.html that holds report_data, up to its first '<' (the data has none).
inline constexpr std::string_view data_element_open = R"(<script id="zf-data" type="application/json">)";

/// summary.json's "classes": counts, typical beats of each class, the rule, AF episodes and
/// unreadable stretches (from r.beat_class, r.score, r.episodes, r.unreadable, r.sample_rate).
[[nodiscard]] nlohmann::json classes_json(const pipeline::run_result& r);

/// summary.json's text (indented; bytes that are not UTF-8 written as U+FFFD), written atomically.
void write_json_file(const nlohmann::json& j, const std::filesystem::path& path);

/// @brief Everything the report's script needs, as one JSON object (format 1; see report_data.js's load()).
[[nodiscard]] nlohmann::json report_data(const pipeline::run_result& r, const pipeline::run_options& options);

}  // namespace zeroflow::report::detail
