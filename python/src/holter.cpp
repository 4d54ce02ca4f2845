// The Holter analysis (holter/holter.hpp) on beats from anywhere — a run's beats.csv, reference
// annotations, a reader's corrections — as the JSON a run writes into summary.json.
#include "zeroflow/holter/holter.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "zeroflow/report/corrections.hpp"
#include "zeroflow/report/holter_outputs.hpp"

namespace zeroflow::python {

namespace {

struct holter_field {
  const char* name;
  double* real = nullptr;
  std::int64_t* count = nullptr;
};

std::vector<holter_field> fields_of(holter::holter_params& p) {
  auto& e = p.events;
  auto& h = p.hrv;
  return {{"pause_seconds", &e.pause_seconds},
          {"bradycardia_bpm", &e.bradycardia_bpm},
          {"tachycardia_bpm", &e.tachycardia_bpm},
          {"run_beats", nullptr, &e.run_beats},
          {"rate_intervals", nullptr, &e.rate_intervals},
          {"pattern_cycles", nullptr, &e.pattern_cycles},
          {"segment_seconds", &h.segment_seconds},
          {"min_segment_coverage", &h.min_segment_coverage},
          {"successive_difference_ms", &h.successive_difference_ms}};
}

holter::holter_params params_from(const nb::dict& given) {
  holter::holter_params p;
  auto fields = fields_of(p);
  for (const auto& [key, value] : given) {
    const auto name = nb::cast<std::string>(key);
    holter_field* field = nullptr;
    for (auto& f : fields)
      if (name == f.name) field = &f;
    if (field == nullptr) throw nb::type_error(("holter.analyse() got an unexpected parameter '" + name + "'").c_str());
    // A number as the parameter wants it: a count only from a whole number (no 3.7, no "3").
    const bool whole = nb::isinstance<nb::int_>(value) && !nb::isinstance<nb::bool_>(value);
    const bool number = whole || nb::isinstance<nb::float_>(value);
    if (field->real != nullptr ? !number : !whole)
      throw nb::type_error(("holter.analyse(): " + name + " must be " +
                            (field->real != nullptr ? "a number" : "a whole number") + ", got " +
                            nb::cast<std::string>(nb::str(value.type().attr("__name__"))))
                               .c_str());
    try {
      if (field->real != nullptr)
        *field->real = nb::cast<double>(value);
      else
        *field->count = nb::cast<std::int64_t>(value);
    } catch (const nb::cast_error&) {
      throw nb::value_error(("holter.analyse(): " + name + " is out of range").c_str());
    }
  }
  return p;
}

std::vector<classify::episode> stretches_of(const std::vector<std::pair<std::int64_t, std::int64_t>>& beats,
                                            const std::vector<std::int64_t>& peaks, const char* rhythm) {
  std::vector<classify::episode> out;
  for (const auto& [first, last] : beats) {
    const bool inside = first >= 0 && last >= first && last < static_cast<std::int64_t>(peaks.size());
    out.push_back({rhythm, first, last, inside ? peaks[static_cast<std::size_t>(first)] : 0,
                   inside ? peaks[static_cast<std::size_t>(last)] : 0});
  }
  return out;
}

}  // namespace

void bind_holter(nb::module_& m) {
  using namespace nb::literals;
  m.def("_holter_defaults", [] {
    holter::holter_params p;
    nb::dict d;
    for (const auto& f : fields_of(p)) {
      if (f.real != nullptr)
        d[f.name] = *f.real;
      else
        d[f.name] = *f.count;
    }
    return d;
  });
  m.def(
      "_holter_analyse",
      [](const std::vector<std::int64_t>& peaks, const std::string& classes, double sample_rate, std::int64_t samples,
         const std::vector<std::pair<std::int64_t, std::int64_t>>& af_episodes,
         const std::vector<std::pair<std::int64_t, std::int64_t>>& unreadable, const std::vector<std::int32_t>& family,
         const nb::dict& params) {
        const auto p = params_from(params);
        const auto af = stretches_of(af_episodes, peaks, "AFIB");
        const auto noise = stretches_of(unreadable, peaks, "noise");
        nlohmann::json j;
        {
          nb::gil_scoped_release release;
          const holter::beat_record record{peaks, {classes.data(), classes.size()}, sample_rate, samples, af, noise,
                                           family};
          const auto a = holter::analyse(record, p);
          j = report::holter_json(a, sample_rate);
          j["event_list"] = report::events_json_list(a, sample_rate);
        }
        return j.dump();
      },
      "peaks"_a, "classes"_a, "sample_rate"_a, "samples"_a, "af_episodes"_a, "unreadable"_a, "family"_a, "params"_a,
      "holter::analyse: summary.json's \"holter\" object as JSON text, with every event under \"event_list\".");
  m.def(
      "_write_corrected_results",
      [](const std::string& results, const std::string& corrections_text, const std::string& name,
         const std::string& to) {
        const auto fix = report::parse_corrections(corrections_text, name);
        report::correction_outcome done;
        {
          nb::gil_scoped_release release;
          done = report::write_corrected_results(results, fix, to);
        }
        nb::dict d;
        d["beats_relabelled"] = done.beats_relabelled;
        d["episodes_before"] = done.episodes_before;
        d["episodes_after"] = done.episodes_after;
        return d;
      },
      "results"_a, "corrections"_a, "name"_a, "to"_a,
      "report::write_corrected_results: the corrected results of the run in `results`, written into `to`.");
  m.def("_corrected_result_names", [] { return report::corrected_result_names(); });
  m.def(
      "_check_corrections",
      [](const std::string& text, const std::string& name) { (void)report::parse_corrections(text, name); }, "text"_a,
      "name"_a, "report::parse_corrections: raises ParseError for a file that is not corrections.");
}

}  // namespace zeroflow::python
