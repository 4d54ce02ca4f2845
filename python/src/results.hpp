#pragma once
/// @file results.hpp
/// What the bindings of long calls share (model.cpp, timeseries.cpp): host arrays made from a
/// result's vectors without a copy, progress callbacks from worker code into Python, and JSON
/// summaries as Python objects.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "common.hpp"
#include "zeroflow/core/buffer.hpp"

namespace zeroflow::python {

/// A host array that owns `values` (moved in, no copy); not from a zeroflow resource.
template <class T>
py_array host_array(std::vector<T> values, dtype type) {
  auto* held = new std::vector<T>(std::move(values));
  const auto n = static_cast<std::int64_t>(held->size());
  auto owner =
      buffer::adopt(held->data(), held->size() * sizeof(T), cpu_device, [held](void*, std::size_t) { delete held; });
  return {array(std::move(owner), type, {n}), legacy_stream};
}

/// A callback from C++ worker code into Python (takes the GIL; a Python error stops the work).
template <class... Args>
auto python_callback(nb::handle f) {
  return [f = nb::borrow<nb::object>(f)](Args... args) {
    nb::gil_scoped_acquire acquire;
    f(args...);
  };
}

/// A JSON value as the Python object json.loads makes of it (dicts, lists, numbers, strings).
inline nb::object json_to_python(const nlohmann::json& j) {
  return nb::module_::import_("json").attr("loads")(j.dump());
}

}  // namespace zeroflow::python
