#pragma once
// The report's page template, style sheet and script: src/report/assets/report.{html,css,js},
// embedded into the library at build time by cmake/embed_assets.cmake (so the report needs no
// file beside the binary and fetches nothing).
#include <string_view>

namespace zeroflow::report::assets {

extern const std::string_view report_html;
extern const std::string_view report_css;
extern const std::string_view report_js;

}  // namespace zeroflow::report::assets
