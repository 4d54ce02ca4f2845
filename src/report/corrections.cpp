// A reader's corrections applied to a run's results (corrections.hpp): read them, apply them to the
// beats and episodes the run's own files hold, and write every result that holds classes or rhythm.
#include "zeroflow/report/corrections.hpp"

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "html_data.hpp"
#include "html_encode.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/holter/holter.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/report/beats_table.hpp"
#include "zeroflow/report/holter_outputs.hpp"
#include "zeroflow/report/rhythm_outputs.hpp"

namespace zeroflow::report {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string read_text(const fs::path& path, const char* what) {
  // A FIFO or a device would be waited on forever; a folder read as nothing.
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    ZF_THROW(error, path.string(), fs::exists(path, ec) ? " is not a regular file" : " does not exist", "; expected ",
             what);
  std::ifstream in(path, std::ios::binary);
  if (!in) ZF_THROW(error, path.string(), ": cannot be read; expected ", what);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// ---- the corrections file ----------------------------------------------------------------------

void only_keys(const json& object, std::initializer_list<std::string_view> keys, const std::string& name,
               const std::string& where) {
  // The type, never the value: a value may be nested beyond any stack's depth.
  if (!object.is_object()) ZF_THROW(parse_error, name, ": ", where, " must be an object, got ", object.type_name());
  for (const auto& [key, value] : object.items())
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      ZF_THROW(parse_error, name, ": ", where, " has an unknown key \"", key, "\"");
}

std::int64_t index_at(const json& object, const char* key, const std::string& name, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0)
    ZF_THROW(parse_error, name, ": ", where, " needs \"", key, "\", a whole number ≥ 0");
  return it->get<std::int64_t>();
}

char class_at(const json& object, const std::string& name, const std::string& where) {
  const auto it = object.find("class");
  if (it == object.end() || !it->is_string() || it->get<std::string>().size() != 1 ||
      std::string_view("NSVQ").find(it->get<std::string>()[0]) == std::string_view::npos)
    ZF_THROW(parse_error, name, ": ", where, " needs \"class\", one of \"N\", \"S\", \"V\", \"Q\"");
  return it->get<std::string>()[0];
}

const json& list_at(const json& object, const char* key, const std::string& name) {
  static const json none = json::array();
  const auto it = object.find(key);
  if (it == object.end()) return none;
  if (!it->is_array()) ZF_THROW(parse_error, name, ": \"", key, "\" must be a list");
  return *it;
}

std::vector<beat_span> spans_at(const json& object, const char* key, const std::string& name) {
  std::vector<beat_span> out;
  const auto& list = list_at(object, key, name);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = std::string("af_episodes.") + key + "[" + std::to_string(i) + "]";
    only_keys(list[i], {"first_beat", "last_beat", "onset_seconds", "duration_seconds"}, name, where);
    const beat_span s{index_at(list[i], "first_beat", name, where), index_at(list[i], "last_beat", name, where)};
    if (s.first_beat > s.last_beat) ZF_THROW(parse_error, name, ": ", where, ": first_beat is after last_beat");
    out.push_back(s);
  }
  return out;
}

// ---- the run's results -------------------------------------------------------------------------

/// An episode list of summary.json's "classes" as beat spans.
std::vector<classify::episode> episodes_of(const json& list, const std::vector<std::int64_t>& peaks, const char* rhythm,
                                           const fs::path& path) {
  std::vector<classify::episode> out;
  for (const auto& e : list) {
    const auto first = e.value("first_beat", std::int64_t{-1}), last = e.value("last_beat", std::int64_t{-1});
    if (first < 0 || last < first || last >= static_cast<std::int64_t>(peaks.size()))
      ZF_THROW(error, path.string(), ": an episode names beats ", first, "..", last, ", not beats of its beats.csv (",
               peaks.size(), " beats)");
    out.push_back({rhythm, first, last, peaks[static_cast<std::size_t>(first)], peaks[static_cast<std::size_t>(last)]});
  }
  return out;
}

/// The Holter analysis's parameters as the run recorded them (a count must be a whole number).
holter::holter_params params_of(const json& p, const fs::path& path) {
  holter::holter_params out;
  if (!p.is_object()) ZF_THROW(error, path.string(), ": holter.parameters must be an object, got ", p.type_name());
  const auto real = [&](const char* key, double& into) {
    if (!p.contains(key)) return;
    if (!p[key].is_number()) ZF_THROW(error, path.string(), ": holter.parameters.", key, " must be a number");
    into = p[key].get<double>();
  };
  const auto count = [&](const char* key, std::int64_t& into) {
    if (!p.contains(key)) return;
    if (!p[key].is_number_integer())
      ZF_THROW(error, path.string(), ": holter.parameters.", key, " must be a whole number");
    into = p[key].get<std::int64_t>();
  };
  auto& e = out.events;
  auto& h = out.hrv;
  real("pause_seconds", e.pause_seconds);
  real("bradycardia_bpm", e.bradycardia_bpm);
  real("tachycardia_bpm", e.tachycardia_bpm);
  count("run_beats", e.run_beats);
  count("rate_intervals", e.rate_intervals);
  count("pattern_cycles", e.pattern_cycles);
  real("segment_seconds", h.segment_seconds);
  real("min_segment_coverage", h.min_segment_coverage);
  real("successive_difference_ms", h.successive_difference_ms);
  return out;
}

/// A library exception's reason without its "[json.exception.…] " tag.
std::string json_reason(const json::exception& e) {
  std::string_view what = e.what();
  if (what.starts_with('[') && what.find("] ") != std::string_view::npos) what.remove_prefix(what.find("] ") + 2);
  return std::string(what);
}

/// AF episodes after removing and adding spans; added spans merge with what they overlap or touch.
std::vector<classify::episode> corrected_episodes(std::vector<classify::episode> episodes, const corrections& fix,
                                                  const std::vector<std::int64_t>& peaks) {
  for (const auto& r : fix.remove_af) {
    const auto it = std::find_if(episodes.begin(), episodes.end(), [&](const classify::episode& e) {
      return e.first_beat == r.first_beat && e.last_beat == r.last_beat;
    });
    if (it == episodes.end())
      ZF_THROW(error, fix.name, ": the run has no AF episode from beat ", r.first_beat, " to beat ", r.last_beat,
               " to remove");
    episodes.erase(it);
  }
  const auto n = static_cast<std::int64_t>(peaks.size());
  for (const auto& a : fix.add_af) {
    if (a.last_beat >= n)
      ZF_THROW(error, fix.name, ": an AF episode to add ends at beat ", a.last_beat, "; the run has ", n, " beats");
    episodes.push_back({"AFIB", a.first_beat, a.last_beat, 0, 0});
  }
  std::sort(episodes.begin(), episodes.end(),
            [](const classify::episode& a, const classify::episode& b) { return a.first_beat < b.first_beat; });
  std::vector<classify::episode> merged;
  for (auto& e : episodes) {
    if (!merged.empty() && e.first_beat <= merged.back().last_beat + 1)
      merged.back().last_beat = std::max(merged.back().last_beat, e.last_beat);
    else
      merged.push_back(e);
  }
  for (auto& e : merged) {
    e.onset = peaks[static_cast<std::size_t>(e.first_beat)];
    e.offset = peaks[static_cast<std::size_t>(e.last_beat)];
  }
  return merged;
}

json corrections_json(const corrections& fix, const correction_outcome& done) {
  json families = json::array(), beats = json::array(), removed = json::array(), added = json::array();
  for (const auto& f : fix.families)
    families.push_back({{"family", f.family}, {"class", std::string(1, f.beat_class)}});
  for (const auto& b : fix.beats) beats.push_back({{"beat", b.beat}, {"class", std::string(1, b.beat_class)}});
  for (const auto& s : fix.remove_af) removed.push_back({{"first_beat", s.first_beat}, {"last_beat", s.last_beat}});
  for (const auto& s : fix.add_af) added.push_back({{"first_beat", s.first_beat}, {"last_beat", s.last_beat}});
  return {{"families", families},
          {"beats", beats},
          {"af_episodes", {{"remove", removed}, {"add", added}}},
          {"beats_relabelled", done.beats_relabelled},
          {"episodes_before", done.episodes_before},
          {"episodes_after", done.episodes_after}};
}

/// report.html with its data element's summary, classes and events replaced; strips follow their
/// event where it is still there (same kind and beats) and go where it is not.
std::string corrected_report_of(const std::string& html, const json& summary, const pipeline::run_result& r,
                                const json& events, const fs::path& path) {
  const auto open = html.find(detail::data_element_open);
  const auto begin = open == std::string::npos ? open : open + detail::data_element_open.size();
  const auto end = begin == std::string::npos ? begin : html.find('<', begin);
  if (end == std::string::npos) ZF_THROW(error, path.string(), ": not a zeroflow report (no data element)");
  json data = json::parse(html.begin() + static_cast<std::ptrdiff_t>(begin),
                          html.begin() + static_cast<std::ptrdiff_t>(end), nullptr, false);
  if (data.is_discarded() || !data.contains("candidates"))
    ZF_THROW(error, path.string(), ": its data element is not a zeroflow report's");
  data["summary"] = summary;
  std::vector<std::uint8_t> codes(r.beat_class.size());
  for (std::size_t b = 0; b < codes.size(); ++b) codes[b] = detail::class_code(r.beat_class[b]);
  data["candidates"]["class"] = detail::encode_u8(codes);
  if (data.contains("strips") && data.contains("holter_events")) {
    std::map<std::tuple<std::string, std::int64_t, std::int64_t>, std::size_t> now;
    for (std::size_t i = 0; i < events.size(); ++i)
      now[{events[i]["kind"], events[i]["first_beat"], events[i]["last_beat"]}] = i;
    json kept = json::array();
    for (auto& s : data["strips"]) {
      const auto& was = data["holter_events"][s["event"].get<std::size_t>()];
      const auto it = now.find({was["kind"], was["first_beat"], was["last_beat"]});
      if (it == now.end()) continue;
      s["event"] = it->second;
      kept.push_back(s);
    }
    data["strips"] = kept;
  }
  data["holter_events"] = events;
  return html.substr(0, begin) + detail::script_safe_json(data) + html.substr(end);
}

std::string corrected_report(const std::string& html, const json& summary, const pipeline::run_result& r,
                             const json& events, const fs::path& path) {
  try {
    return corrected_report_of(html, summary, r, events, path);
  } catch (const json::exception& e) {
    ZF_THROW(error, path.string(), ": its data element is not as `zeroflow run` writes it (", json_reason(e), ")");
  }
}

}  // namespace

corrections parse_corrections(std::string_view text, const std::string& name) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) ZF_THROW(parse_error, name, ": not JSON; expected a zeroflow corrections file");
  corrections out;
  out.name = name;
  only_keys(j, {"zeroflow_corrections", "recording", "samples", "families", "beats", "af_episodes"}, name, "the file");
  if (!j.contains("zeroflow_corrections") || j["zeroflow_corrections"] != 1)
    ZF_THROW(parse_error, name, ": not a zeroflow corrections file (it needs \"zeroflow_corrections\": 1)");
  if (j.contains("samples")) out.samples = index_at(j, "samples", name, "the file");
  const auto& families = list_at(j, "families", name);
  for (std::size_t i = 0; i < families.size(); ++i) {
    const std::string where = "families[" + std::to_string(i) + "]";
    only_keys(families[i], {"family", "class"}, name, where);
    const auto family = index_at(families[i], "family", name, where);
    if (family > std::numeric_limits<std::int32_t>::max())
      ZF_THROW(parse_error, name, ": ", where, ": family ", family, " is no family number");
    out.families.push_back({static_cast<std::int32_t>(family), class_at(families[i], name, where)});
  }
  const auto& beats = list_at(j, "beats", name);
  for (std::size_t i = 0; i < beats.size(); ++i) {
    const std::string where = "beats[" + std::to_string(i) + "]";
    only_keys(beats[i], {"beat", "class"}, name, where);
    out.beats.push_back({index_at(beats[i], "beat", name, where), class_at(beats[i], name, where)});
  }
  if (j.contains("af_episodes")) {
    only_keys(j["af_episodes"], {"remove", "add"}, name, "af_episodes");
    out.remove_af = spans_at(j["af_episodes"], "remove", name);
    out.add_af = spans_at(j["af_episodes"], "add", name);
  }
  return out;
}

corrections read_corrections(const fs::path& path) {
  return parse_corrections(read_text(path, "a zeroflow corrections file (JSON)"), path.string());
}

const std::vector<std::string>& corrected_result_names() {
  static const std::vector<std::string> names = {"beats.csv",  "beats.atr",    "episodes.csv",
                                                 "events.csv", "summary.json", "report.html"};
  return names;
}

correction_outcome write_corrected_results(const fs::path& results, const corrections& fix, const fs::path& to) {
  const auto summary_path = results / "summary.json";
  json summary = json::parse(read_text(summary_path, "the summary.json of `zeroflow run`"), nullptr, false);
  if (summary.is_discarded() || !summary.is_object() || !summary.contains("holter") || !summary.contains("classes"))
    ZF_THROW(error, summary_path.string(),
             ": not the summary of a run with classes (no \"classes\" and \"holter\"); corrections apply to the "
             "results of `zeroflow run` or `score` with the robust segmentation");
  const auto beats_path = results / "beats.csv";
  auto beats = parse_beats_table(read_text(beats_path, "the beats.csv of `zeroflow run`"), beats_path.string());
  const auto peak_col = beats.column("peak"), class_col = beats.column("class"), af_col = beats.column("af"),
             score_col = beats.column("score"), clarity_col = beats.column("clarity");
  const auto family_col = beats.find("family");
  const bool has_family = family_col.has_value();

  pipeline::run_result r;
  holter::holter_params params;
  const std::size_t n = beats.rows.size();
  try {
    r.sample_rate = summary.at("sample_rate").get<double>();
    r.samples = summary.at("samples").get<std::int64_t>();
    params = params_of(summary.at("holter").value("parameters", json::object()), summary_path);
    if (summary.contains("beats_found") && summary["beats_found"] != n)
      ZF_THROW(error, beats_path.string(), " has ", n, " beats where ", summary_path.string(), " counts ",
               summary["beats_found"].dump(), "; the results are not one run's");
  } catch (const json::exception& e) {
    ZF_THROW(error, summary_path.string(), ": not as `zeroflow run` writes it (", json_reason(e), ")");
  }
  if (fix.samples >= 0 && fix.samples != r.samples)
    ZF_THROW(error, fix.name, ": made for a recording of ", fix.samples, " samples; ", results.string(),
             " holds the results of one of ", r.samples);
  for (std::size_t b = 0; b < n; ++b) {
    const auto& row = beats.rows[b];
    r.peak.push_back(beats.sample(b, peak_col));
    const std::string& c = row[class_col];
    if (c.size() != 1 || std::string_view("NSVQ").find(c[0]) == std::string_view::npos)
      ZF_THROW(parse_error, beats_path.string(), ':', beats.lines[b], ": class '", c, "' is not N, S, V or Q");
    r.beat_class.push_back(c[0]);
    r.score.push_back(static_cast<float>(beats.number(b, score_col)));
    r.clarity.push_back(static_cast<float>(beats.number(b, clarity_col)));
    if (has_family) {
      const auto family = beats.sample(b, *family_col);
      if (family > std::numeric_limits<std::int32_t>::max())
        ZF_THROW(parse_error, beats_path.string(), ':', beats.lines[b], ": family ", family, " is no family number");
      r.family.push_back(static_cast<std::int32_t>(family));
    }
  }
  try {
    r.episodes = episodes_of(summary.at("classes").value("af_episodes", json::array()), r.peak, "AFIB", summary_path);
    r.unreadable = episodes_of(summary.at("classes").value("unreadable", json::array()), r.peak, "noise", summary_path);
  } catch (const json::exception& e) {
    ZF_THROW(error, summary_path.string(), ": not as `zeroflow run` writes it (", json_reason(e), ")");
  }
  // What the analysis needs of the run's files, said in their terms.
  try {
    holter::check_holter_params(params);
    holter::check_beat_record(pipeline::holter_record(r));
  } catch (const invalid_argument& e) {
    ZF_THROW(error, summary_path.string(), " and ", beats_path.string(), " do not fit together: ", e.what());
  }

  correction_outcome done;
  done.episodes_before = static_cast<std::int64_t>(r.episodes.size());
  const std::vector<char> before = r.beat_class;
  for (const auto& f : fix.families) {
    if (!has_family) ZF_THROW(error, beats_path.string(), ": no family column; re-run to re-label families");
    if (std::find(r.family.begin(), r.family.end(), f.family) == r.family.end())
      ZF_THROW(error, fix.name, ": the run has no shape family ", f.family);
    for (std::size_t b = 0; b < n; ++b)
      if (r.family[b] == f.family) r.beat_class[b] = f.beat_class;
  }
  for (const auto& c : fix.beats) {
    if (c.beat >= static_cast<std::int64_t>(n))
      ZF_THROW(error, fix.name, ": beat ", c.beat, " does not exist; the run has ", n, " beats");
    r.beat_class[static_cast<std::size_t>(c.beat)] = c.beat_class;
  }
  r.episodes = corrected_episodes(std::move(r.episodes), fix, r.peak);
  done.episodes_after = static_cast<std::int64_t>(r.episodes.size());
  for (std::size_t b = 0; b < n; ++b) done.beats_relabelled += before[b] != r.beat_class[b];

  const auto analysis = holter::analyse(pipeline::holter_record(r), params);
  summary["classes"] = detail::classes_json(r);
  summary["holter"] = holter_json(analysis, r.sample_rate);
  if (!summary.contains("corrections") || !summary["corrections"].is_array()) summary["corrections"] = json::array();
  summary["corrections"].push_back(corrections_json(fix, done));

  // Each file whole or not at all; the caller moves the set in.
  const auto in_af = holter::beats_inside(r.episodes, n);
  for (std::size_t b = 0; b < n; ++b) {
    beats.rows[b][class_col] = std::string(1, r.beat_class[b]);
    beats.rows[b][af_col] = in_af[b] ? "1" : "0";
  }
  io::write_atomically(to / "beats.csv", [&](std::ostream& out) {
    // Cells as they were read; one with a comma or a quote (never in zeroflow's own) quoted again.
    const auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        const auto& c = cells[i];
        out << (i ? "," : "");
        if (c.find_first_of(",\"") == std::string::npos) {
          out << c;
          continue;
        }
        out << '"';
        for (const char ch : c) out << (ch == '"' ? "\"\"" : std::string(1, ch));
        out << '"';
      }
      out << '\n';
    };
    line(beats.header);
    for (const auto& row : beats.rows) line(row);
  });
  write_beats_atr(r, to / "beats.atr");
  write_episodes_csv(r, to / "episodes.csv");
  write_events_csv(analysis, r.sample_rate, to / "events.csv");
  detail::write_json_file(summary, to / "summary.json");
  if (fs::exists(results / "report.html")) {
    const auto html = read_text(results / "report.html", "the report.html of `zeroflow run`");
    const auto text =
        corrected_report(html, summary, r, events_json_list(analysis, r.sample_rate), results / "report.html");
    io::write_atomically(to / "report.html", [&](std::ostream& out) { out << text; });
  }
  return done;
}

}  // namespace zeroflow::report
