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
#include "params.hpp"
#include "zeroflow/report/corrections.hpp"
#include "zeroflow/report/holter_outputs.hpp"

namespace zeroflow::python {

namespace {

const auto holter_fields = [](holter::holter_params& p) { return holter::param_fields(p); };

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
  m.def(
      "_holter_defaults", [] { return defaults_from<holter::holter_params>(holter_fields); },
      "The Holter analysis's parameters (holter::holter_params) by name, with their defaults.");
  m.def(
      "_holter_analyse",
      [](const std::vector<std::int64_t>& peaks, const std::string& classes, double sample_rate, std::int64_t samples,
         const std::vector<std::pair<std::int64_t, std::int64_t>>& af_episodes,
         const std::vector<std::pair<std::int64_t, std::int64_t>>& unreadable, const std::vector<std::int32_t>& family,
         const nb::dict& params) {
        const auto p = params_from<holter::holter_params>(params, "holter.analyse", holter_fields);
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
