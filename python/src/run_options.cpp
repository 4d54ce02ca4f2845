// The library's table of run options (zeroflow/pipeline/run_option_table.hpp), for zeroflow.pipeline
// to build run()'s keyword arguments, their docstrings and RunOptions from, and zeroflow.dask its
// command line: an option or a default is written once, in C++.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "common.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/pipeline/run_option_table.hpp"

namespace zeroflow::python {

using namespace nb::literals;

namespace {

const char* kind_name(pipeline::option_kind kind) {
  switch (kind) {
    case pipeline::option_kind::number:
    case pipeline::option_kind::beat_seconds:
      return "float";
    case pipeline::option_kind::integer:
    case pipeline::option_kind::seed:
      return "int";
    case pipeline::option_kind::choice:
      return "choice";
    case pipeline::option_kind::byte_size:
      return "bytes";
    case pipeline::option_kind::path:
      return "path";
    case pipeline::option_kind::flag:
      return "bool";
    case pipeline::option_kind::text:
      break;
  }
  return "str";
}

const char* use_name(pipeline::option_use use) {
  switch (use) {
    case pipeline::option_use::training:
      return "training";
    case pipeline::option_use::scoring:
      return "scoring";
    case pipeline::option_use::library:
      return "library";
    case pipeline::option_use::both:
      break;
  }
  return "both";
}

}  // namespace

void bind_run_options(nb::module_& m) {
  m.def(
      "_run_option_table",
      [] {
        nb::list rows;
        for (const auto& o : pipeline::run_option_table()) {
          nb::dict d;
          d["name"] = std::string(o.name);
          d["flag"] = pipeline::option_flag(o);
          d["kind"] = kind_name(o.kind);
          d["use"] = use_name(o.use);
          d["default"] = std::string(o.default_text);
          d["range"] = pipeline::option_range_text(o);
          d["unit"] = std::string(o.unit);
          std::vector<std::string> choices(o.choices.begin(), o.choices.end());
          d["choices"] = choices;
          d["help"] = pipeline::spell_options(std::string(o.help), python_keyword);
          d["group"] = std::string(o.group);
          rows.append(d);
        }
        return rows;
      },
      "Every option of a run, as the library describes it: a list of dicts (name, flag, kind, use, default, "
      "range, unit, choices, help, group).");
  m.def(
      "_run_options_problem",
      [](const std::vector<std::pair<std::string, std::string>>& given) -> nb::object {
        try {
          (void)pipeline::make_run_options(given);
          return nb::none();
        } catch (const invalid_argument& e) {
          // zeroflow.dask's command line takes the library's flags.
          return nb::str(pipeline::spell_options(e.what(), pipeline::flag_before_value).c_str());
        }
      },
      "given"_a,
      "What a run would refuse in (name, value text) pairs, in the library's flags (zeroflow.dask's command "
      "line); None when nothing.");
  m.def(
      "_labels_beside",
      [](const std::string& input) {
        const auto found = pipeline::labels_beside(input);
        return found ? nb::object(nb::str(found->string().c_str())) : nb::none();
      },
      "input"_a, "The reference labels beside a recording (NAME.atr, else NAME.labels.csv), or None.");
}

}  // namespace zeroflow::python
