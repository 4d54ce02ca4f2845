#pragma once
/// @file html_report.hpp
/// report.html: the run's report, one self-contained page (docs/report.md; outputs.hpp: the
/// output folder's contract).
#include <filesystem>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::report {

/// report.html: self-contained, readable offline.
void write_report_html(const pipeline::run_result& r, const pipeline::run_options& options,
                       const std::filesystem::path& path);

}  // namespace zeroflow::report
