#pragma once
// The report's page template, style sheet and script modules (src/report/assets) and uPlot,
// embedded into the library at build time by cmake/embed_assets.cmake (so the report needs no
// file beside the binary and fetches nothing).
#include <string_view>

namespace zeroflow::report::assets {

extern const std::string_view report_html;
extern const std::string_view report_css;
// The script, one module per file: shared parts first, then one per figure, the driver last
// (html_report.cpp joins them in this order inside one function scope).
extern const std::string_view report_format_js;
extern const std::string_view report_data_js;
extern const std::string_view report_chart_js;
// The Holter pages (holter_data.js shared by the sections after it; holter_review.js holds the
// reader's corrections, which the summary, events, families and overview show).
extern const std::string_view holter_data_js;
extern const std::string_view holter_review_js;
extern const std::string_view holter_summary_js;
extern const std::string_view holter_trend_js;
extern const std::string_view holter_hours_js;
extern const std::string_view holter_events_js;
extern const std::string_view holter_families_js;
extern const std::string_view holter_strips_js;
extern const std::string_view fig_overview_js;
extern const std::string_view fig_classes_js;
extern const std::string_view fig_excerpt_js;
extern const std::string_view fig_lengths_js;
extern const std::string_view fig_beats_js;
extern const std::string_view fig_latent_js;
extern const std::string_view fig_grid_js;
extern const std::string_view fig_loss_js;
extern const std::string_view fig_anomalies_js;
extern const std::string_view fig_stages_js;
extern const std::string_view fig_numbers_js;
extern const std::string_view report_main_js;
// uPlot's built files, from the Python package uplot-python (see the top-level CMakeLists.txt).
extern const std::string_view uPlot_iife_js;
extern const std::string_view uPlot_min_css;

}  // namespace zeroflow::report::assets
