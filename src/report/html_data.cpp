#include "html_data.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "html_encode.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/report/holter_outputs.hpp"
#include "zeroflow/report/summary_json.hpp"

namespace zeroflow::report::detail {

namespace {

using nlohmann::json;

/// Status of a candidate in the browser: 0 pruned, 1 train, 2 test, 3 kept but not split
/// (scored with a loaded model).
std::uint8_t status_of(const pipeline::run_result& r, std::size_t c) {
  if (!r.kept[c]) return 0;
  return r.split[c] == 't' ? 1 : r.split[c] == 'v' ? 2 : 3;
}

}  // namespace

std::uint8_t class_code(char beat_class) {
  switch (beat_class) {
    case 'N':
      return 1;
    case 'S':
      return 2;
    case 'V':
      return 3;
    case 'Q':
      return 4;
    default:
      return 0;
  }
}

std::string script_safe_json(const nlohmann::json& j) {
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

namespace {

json candidates(const pipeline::run_result& r) {
  const std::size_t n = r.length.size();
  ZF_EXPECTS(r.start.size() >= n && r.peak.size() >= n && r.kept.size() == n && r.split.size() == n,
             "report: per-beat results of different lengths (", n, " lengths, ", r.start.size(), " starts, ",
             r.peak.size(), " peaks, ", r.kept.size(), " kept flags, ", r.split.size(), " splits)");
  std::vector<std::int64_t> start(r.start.begin(), r.start.begin() + static_cast<std::ptrdiff_t>(n));
  std::vector<std::int64_t> peak_offset(n);
  std::vector<std::uint8_t> status(n), beat_class(n, 0);
  for (std::size_t c = 0; c < n; ++c) {
    peak_offset[c] = r.peak[c] - r.start[c];
    status[c] = status_of(r, c);
    if (c < r.beat_class.size()) beat_class[c] = class_code(r.beat_class[c]);
  }
  return {{"n", n},
          {"start", encode_ints(start, true)},  // ascending: the differences are beat lengths
          {"length", encode_ints(r.length)},
          {"peak_offset", encode_ints(peak_offset)},
          {"status", encode_u8(status)},
          {"class", encode_u8(beat_class)}};
}

/// Per kept beat, in kept order (candidates with kept = 1, ascending).
json kept_beats(const pipeline::run_result& r) {
  std::vector<float> score, mu0, mu1;
  for (std::size_t c = 0; c < r.kept.size(); ++c) {
    if (!r.kept[c]) continue;
    score.push_back(c < r.score.size() ? r.score[c] : NAN);
    mu0.push_back(c < r.mu0.size() ? r.mu0[c] : NAN);
    mu1.push_back(c < r.mu1.size() ? r.mu1[c] : NAN);
  }
  return {{"n", score.size()}, {"score", encode_f32(score)}, {"mu0", encode_i16(mu0)}, {"mu1", encode_i16(mu1)}};
}

json figures(const pipeline::run_result& r) {
  const auto& f = r.figures;
  json j;
  // One range for both overview bands, so the browser compares min and max codes directly.
  double lo = 1, hi = 0;
  for (const auto* v : {&f.overview_min, &f.overview_max})
    for (float x : *v)
      if (std::isfinite(x)) {
        if (lo > hi) lo = hi = x;
        lo = std::min<double>(lo, x), hi = std::max<double>(hi, x);
      }
  j["overview"] = {{"bucket", f.overview_bucket},
                   {"n", f.overview_min.size()},
                   {"min", encode_i16(f.overview_min, lo, hi)},
                   {"max", encode_i16(f.overview_max, lo, hi)}};
  j["excerpt"] = {{"start", f.excerpt_start},
                  {"signal", encode_i16(f.excerpt_signal)},
                  {"filtered", encode_i16(f.excerpt_filtered)}};
  j["rows"] = {{"beats", encode_ints(f.row_beats)}, {"width", r.sizes.row_width}, {"values", encode_i16(f.rows)}};
  j["thumbs"] = {{"width", f.thumb_width},
                 {"values", f.thumb_width > 0 ? encode_rows_i8(f.thumbs, f.thumb_width) : encode_f32({})}};
  return j;
}

}  // namespace

json report_data(const pipeline::run_result& r, const pipeline::run_options& options) {
  json j = figures(r);
  j["format"] = 1;
  j["summary"] = summary_json(r, options);
  j["row_width"] = r.sizes.row_width;
  j["candidates"] = candidates(r);
  j["kept"] = kept_beats(r);
  j["histogram"] = encode_ints(r.histogram);
  json stages = json::array();  // in run order (summary.json's stages_ms is keyed by name)
  for (const auto& s : r.stages) stages.push_back({{"name", s.name}, {"ms", s.milliseconds}});
  j["stages"] = stages;
  if (r.holter) {
    // Every event (summary.json has their counts and the notable ones) and the strips of those.
    j["holter_events"] = events_json_list(*r.holter, r.sample_rate);
    json strips = json::array();
    for (const auto& s : r.figures.strips) {
      json leads = json::array();
      for (const auto& other : s.other_leads) leads.push_back(encode_i16(other));
      strips.push_back({{"event", s.event}, {"start", s.start}, {"values", encode_i16(s.samples)}, {"others", leads}});
    }
    j["strips"] = strips;
    j["strip_leads"] = r.figures.strip_leads;
  }
  j["grid"] = {{"n", decoded_grid_n}, {"extent", decoded_grid_extent}, {"values", encode_i16(r.decoded_grid)}};
  return j;
}

}  // namespace zeroflow::report::detail
