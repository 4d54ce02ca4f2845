#pragma once
/// @file params.hpp
/// A rule's parameters from Python keywords, by the library's own table of names
/// (classify::param_fields, holter::param_fields): one way to read them, one set of errors.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>

#include "common.hpp"
#include "zeroflow/classify/param_names.hpp"

namespace zeroflow::python {

/// Params with the values `given` by name (`fields_of(Params&)` lists them). A real takes any
/// number, a count a whole number only (no 3.7, no "3", no True).
/// @throws TypeError (as Python's for a keyword) for an unknown name or a value of the wrong
///         kind; ValueError for a number a count cannot hold.
template <typename Params, typename FieldsOf>
Params params_from(const nb::dict& given, const char* function, FieldsOf fields_of) {
  Params p;
  auto fields = fields_of(p);
  for (const auto& [key, value] : given) {
    const auto name = nb::cast<std::string>(key);
    classify::param_field* field = classify::find_param(fields, name);
    if (field == nullptr)
      throw nb::type_error((std::string(function) + "() got an unexpected parameter '" + name + "'").c_str());
    const bool truth = PyBool_Check(value.ptr());
    const bool whole = !truth && PyIndex_Check(value.ptr());
    const bool number = whole || (!truth && !PyUnicode_Check(value.ptr()) && PyNumber_Check(value.ptr()));
    if (field->real != nullptr ? !number : !whole)
      throw nb::type_error((std::string(function) + "(): " + name + " must be " +
                            (field->real != nullptr ? "a number" : "a whole number") + ", got " +
                            nb::cast<std::string>(nb::str(value.type().attr("__name__"))))
                               .c_str());
    try {
      if (field->real != nullptr)
        *field->real = nb::cast<double>(value);
      else
        *field->count = nb::cast<std::int64_t>(value);
    } catch (const nb::cast_error&) {
      throw nb::value_error((std::string(function) + "(): " + name + " is out of range").c_str());
    }
  }
  return p;
}

/// Every parameter of a default Params by name, with its value.
template <typename Params, typename FieldsOf>
nb::dict defaults_from(FieldsOf fields_of) {
  Params p;
  nb::dict d;
  for (const auto& f : fields_of(p)) {
    if (f.real != nullptr)
      d[f.name.c_str()] = *f.real;
    else
      d[f.name.c_str()] = *f.count;
  }
  return d;
}

}  // namespace zeroflow::python
