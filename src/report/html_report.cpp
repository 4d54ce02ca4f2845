// report.html: the page template with the style sheet, the data blob and the script inlined, so
// that the one file opens offline and requests nothing.
#include "zeroflow/report/html_report.hpp"

#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "html_assets.hpp"
#include "html_data.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::report {

namespace {

std::string escape_html(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// The script modules in one function scope, sharing the `zf` namespace object and nothing global
/// but window.zeroflowReport.
std::string report_script() {
  const std::string_view modules[] = {
      assets::report_format_js, assets::report_data_js,     assets::report_chart_js,  assets::holter_data_js,
      assets::holter_review_js, assets::holter_summary_js,  assets::holter_trend_js,  assets::holter_hours_js,
      assets::holter_events_js, assets::holter_families_js, assets::holter_strips_js, assets::fig_overview_js,
      assets::fig_classes_js,   assets::fig_excerpt_js,     assets::fig_lengths_js,   assets::fig_beats_js,
      assets::fig_latent_js,    assets::fig_grid_js,        assets::fig_loss_js,      assets::fig_anomalies_js,
      assets::fig_stages_js,    assets::fig_numbers_js,     assets::report_main_js};
  std::string out = "(function () {\n'use strict';\nconst zf = { figures: {} };\n";
  for (const auto module : modules) (out += module) += '\n';
  return out + "})();\n";
}

}  // namespace

void write_report_html(const pipeline::run_result& r, const pipeline::run_options& options,
                       const std::filesystem::path& path) {
  const std::string data = detail::script_safe_json(detail::report_data(r, options));
  const std::string title = escape_html(std::filesystem::path(r.input).filename().string());
  const std::string script = report_script();
  const std::pair<std::string_view, std::string_view> parts[] = {
      {"@TITLE@", title}, {"@UPLOT_CSS@", assets::uPlot_min_css}, {"@CSS@", assets::report_css},
      {"@DATA@", data},   {"@UPLOT_JS@", assets::uPlot_iife_js},  {"@JS@", script}};
  io::write_atomically(path, [&](std::ostream& out) {
    // Copies the template, replacing each placeholder wherever it occurs (never inside the
    // inserted text: the data may hold any string).
    std::string_view rest = assets::report_html;
    std::size_t used = 0;
    while (!rest.empty()) {
      std::size_t at = std::string_view::npos;
      std::string_view replacement;
      std::size_t length = 0;
      for (const auto& [placeholder, text] : parts) {
        const auto found = rest.find(placeholder);
        if (found < at) at = found, replacement = text, length = placeholder.size();
      }
      out << rest.substr(0, at);
      if (at == std::string_view::npos) break;
      out << replacement;
      rest.remove_prefix(at + length);
      ++used;
    }
    ZF_EXPECTS(used >= std::size(parts), "report template: expected its ", std::size(parts), " placeholders, found ",
               used);
  });
}

}  // namespace zeroflow::report
