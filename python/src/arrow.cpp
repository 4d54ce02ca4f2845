// The Arrow PyCapsule interface: zeroflow.Array and zeroflow.Table export themselves through
// __arrow_c_schema__ / __arrow_c_array__ / __arrow_c_device_array__ (and tables through
// __arrow_c_stream__), and Arrow capsules from any producer (pyarrow, pandas, polars...) import
// without copying. Capsule lifetimes follow the spec: the capsule's destructor releases a
// struct that no consumer moved out, then frees the struct's memory.
#include "zeroflow/interop/arrow.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "zeroflow/interop/arrow_owner.hpp"

namespace zeroflow::python {
namespace {

using arrow::ArrowArray;
using arrow::ArrowArrayStream;
using arrow::ArrowDeviceArray;
using arrow::ArrowSchema;

constexpr const char* schema_name = "arrow_schema";
constexpr const char* array_name = "arrow_array";
constexpr const char* device_array_name = "arrow_device_array";
constexpr const char* stream_name = "arrow_array_stream";

template <class T>
void capsule_destructor(PyObject* capsule, const char* name) {
  auto* s = static_cast<T*>(PyCapsule_GetPointer(capsule, name));
  if (s == nullptr) {
    PyErr_Clear();
    return;
  }
  // Back into its box: released unless a consumer moved it out (and marked it released), then freed.
  arrow::unique_box<T> box(s);
}

void schema_destructor(PyObject* c) { capsule_destructor<ArrowSchema>(c, schema_name); }
void array_destructor(PyObject* c) { capsule_destructor<ArrowArray>(c, array_name); }
void device_array_destructor(PyObject* c) { capsule_destructor<ArrowDeviceArray>(c, device_array_name); }
void stream_destructor(PyObject* c) { capsule_destructor<ArrowArrayStream>(c, stream_name); }

/// A capsule around a new, released (release == NULL) struct that `fill` then fills; if `fill`
/// throws, the capsule frees the struct.
template <class T, class Fill>
nb::object make_capsule(const char* name, PyCapsule_Destructor destructor, Fill&& fill) {
  auto box = arrow::make_box<T>();
  T* s = box.get();
  PyObject* capsule = PyCapsule_New(s, name, destructor);
  if (capsule == nullptr) throw nb::python_error();  // the box frees the struct
  (void)box.release();                               // the capsule's destructor owns it now
  nb::object owner = nb::steal(capsule);
  as_buffer_error([&] { fill(s); });
  return owner;
}

template <class T>
T* capsule_pointer(nb::handle capsule, const char* name) {
  if (!PyCapsule_IsValid(capsule.ptr(), name))
    throw nb::type_error((std::string("expected a PyCapsule named \"") + name + "\"").c_str());
  return static_cast<T*>(PyCapsule_GetPointer(capsule.ptr(), name));
}

void warn_copy(const char* message) {
  // stacklevel 1: the innermost Python frame, i.e. the code that called the consumer (pa.array...).
  if (PyErr_WarnEx(copy_warning_type, message, 1) != 0) throw nb::python_error();
}

/// requested_schema is best effort (spec): zeroflow has one representation of each array, so
/// it only checks that what was passed is a schema capsule.
void check_requested(nb::handle requested) {
  if (!requested.is_none()) (void)capsule_pointer<ArrowSchema>(requested, schema_name);
}

void check_device_kwargs(const nb::kwargs& kwargs) {
  std::string unknown;
  for (auto [key, value] : kwargs)
    if (!value.is_none()) unknown += (unknown.empty() ? "" : ", ") + nb::cast<std::string>(nb::str(key));
  if (!unknown.empty()) {
    // The PyCapsule interface asks for NotImplementedError, so that new keywords can be probed.
    PyErr_SetString(PyExc_NotImplementedError,
                    ("unsupported keyword argument(s) of __arrow_c_device_array__: " + unknown).c_str());
    throw nb::python_error();
  }
}

nb::tuple array_capsules(const py_array& self, nb::handle requested) {
  check_requested(requested);
  if (arrow_export_copies(self.value)) warn_copy("Arrow stores booleans as bits: exporting a bool array packs a copy");
  auto schema = make_capsule<ArrowSchema>(schema_name, schema_destructor,
                                          [&](ArrowSchema* s) { export_arrow_schema(self.value, "", s); });
  auto data =
      make_capsule<ArrowArray>(array_name, array_destructor, [&](ArrowArray* a) { export_arrow_array(self.value, a); });
  return nb::make_tuple(schema, data);
}

nb::tuple device_array_capsules(const py_array& self, nb::handle requested, const nb::kwargs& kwargs) {
  check_device_kwargs(kwargs);
  check_requested(requested);
  if (arrow_export_copies(self.value)) warn_copy("Arrow stores booleans as bits: exporting a bool array packs a copy");
  auto schema = make_capsule<ArrowSchema>(schema_name, schema_destructor,
                                          [&](ArrowSchema* s) { export_arrow_schema(self.value, "", s); });
  auto data = make_capsule<ArrowDeviceArray>(device_array_name, device_array_destructor, [&](ArrowDeviceArray* a) {
    export_arrow_device_array(self.value, a, to_stream_view(self.stream));
  });
  return nb::make_tuple(schema, data);
}

bool table_copies(const table& t) {
  for (const array& c : t.columns)
    if (arrow_export_copies(c)) return true;
  return false;
}

nb::tuple table_capsules(const py_table& self, nb::handle requested) {
  check_requested(requested);
  if (table_copies(self.value)) warn_copy("Arrow stores booleans as bits: exporting a bool column packs a copy");
  auto schema = make_capsule<ArrowSchema>(schema_name, schema_destructor,
                                          [&](ArrowSchema* s) { export_arrow_schema(self.value, s); });
  auto data =
      make_capsule<ArrowArray>(array_name, array_destructor, [&](ArrowArray* a) { export_arrow_array(self.value, a); });
  return nb::make_tuple(schema, data);
}

nb::tuple table_device_capsules(const py_table& self, nb::handle requested, const nb::kwargs& kwargs) {
  check_device_kwargs(kwargs);
  check_requested(requested);
  if (table_copies(self.value)) warn_copy("Arrow stores booleans as bits: exporting a bool column packs a copy");
  auto schema = make_capsule<ArrowSchema>(schema_name, schema_destructor,
                                          [&](ArrowSchema* s) { export_arrow_schema(self.value, s); });
  auto data = make_capsule<ArrowDeviceArray>(device_array_name, device_array_destructor, [&](ArrowDeviceArray* a) {
    export_arrow_device_array(self.value, a, to_stream_view(self.stream));
  });
  return nb::make_tuple(schema, data);
}

nb::object table_stream_capsule(const py_table& self, nb::handle requested) {
  check_requested(requested);
  if (table_copies(self.value)) warn_copy("Arrow stores booleans as bits: exporting a bool column packs a copy");
  return make_capsule<ArrowArrayStream>(stream_name, stream_destructor,
                                        [&](ArrowArrayStream* s) { export_arrow_stream(self.value, s); });
}

// ---- imports ----------------------------------------------------------------------------

std::string format_of(nb::handle schema) { return capsule_pointer<ArrowSchema>(schema, schema_name)->format; }

py_array from_arrow_array(nb::handle schema, nb::handle data) {
  const auto* s = capsule_pointer<ArrowSchema>(schema, schema_name);
  auto* a = capsule_pointer<ArrowArray>(data, array_name);
  return {import_arrow_array(*s, a, cpu_device), legacy_stream};
}

py_array from_arrow_device_array(nb::handle schema, nb::handle data, nb::handle stream) {
  const auto* s = capsule_pointer<ArrowSchema>(schema, schema_name);
  auto* a = capsule_pointer<ArrowDeviceArray>(data, device_array_name);
  const auto handle = stream_handle(stream);
  return {import_arrow_device_array(*s, a, to_stream_view(handle)), handle};
}

py_table from_arrow_table(nb::handle schema, nb::handle data) {
  const auto* s = capsule_pointer<ArrowSchema>(schema, schema_name);
  auto* a = capsule_pointer<ArrowArray>(data, array_name);
  return {import_arrow_table(*s, a, cpu_device), legacy_stream};
}

py_table from_arrow_device_table(nb::handle schema, nb::handle data, nb::handle stream) {
  const auto* s = capsule_pointer<ArrowSchema>(schema, schema_name);
  auto* a = capsule_pointer<ArrowDeviceArray>(data, device_array_name);
  const auto handle = stream_handle(stream);
  return {import_arrow_device_table(*s, a, to_stream_view(handle)), handle};
}

/// Every batch of an ArrowArrayStream (consumed), as tables ("+s" schemas) or arrays.
nb::list from_arrow_stream(nb::handle capsule) {
  auto* stream = capsule_pointer<ArrowArrayStream>(capsule, stream_name);
  if (!arrow::is_live(*stream)) throw nb::value_error("this Arrow stream was already consumed");
  arrow::unique_struct<ArrowArrayStream> owned(stream);  // taken: the capsule keeps a released struct
  const auto fail = [&](int rc) {
    const char* message = owned->get_last_error ? owned->get_last_error(owned.get()) : nullptr;
    throw nb::value_error(
        ("Arrow stream failed (" + std::to_string(rc) + "): " + (message ? message : "no message")).c_str());
  };
  arrow::unique_struct<ArrowSchema> schema;
  if (const int rc = owned->get_schema(owned.get(), schema.get()); rc != 0) fail(rc);
  const bool is_table = std::string_view(schema->format) == "+s";
  nb::list batches;
  while (true) {
    arrow::unique_struct<ArrowArray> batch;
    if (const int rc = owned->get_next(owned.get(), batch.get()); rc != 0) fail(rc);
    if (!batch) break;  // the end of the stream
    if (is_table)
      batches.append(py_table{import_arrow_table(*schema, batch.get(), cpu_device), legacy_stream});
    else
      batches.append(py_array{import_arrow_array(*schema, batch.get(), cpu_device), legacy_stream});
  }
  return batches;
}

std::string table_repr(const py_table& self) {
  std::string out = "zeroflow.Table(" + std::to_string(self.value.num_rows()) + " rows: ";
  for (std::size_t i = 0; i < self.value.names.size(); ++i)
    out += (i ? ", " : "") + self.value.names[i] + " " + dtype_name(self.value.columns[i].type());
  return out + ")";
}

const array& column_of(const py_table& self, nb::handle key) {
  if (nb::isinstance<nb::str>(key)) return self.value.column(nb::cast<std::string>(key));
  auto index = nb::cast<std::int64_t>(key);
  if (index < 0) index += static_cast<std::int64_t>(self.value.num_columns());
  if (index < 0 || index >= static_cast<std::int64_t>(self.value.num_columns()))
    throw nb::index_error("column index out of range");
  return self.value.column(static_cast<std::size_t>(index));
}

}  // namespace

void bind_array_arrow(nb::class_<py_array>& cls) {
  using namespace nb::literals;
  cls.def(
         "__arrow_c_schema__",
         [](const py_array& self) {
           return make_capsule<ArrowSchema>(schema_name, schema_destructor,
                                            [&](ArrowSchema* s) { export_arrow_schema(self.value, "", s); });
         },
         "Arrow PyCapsule interface: the array's Arrow type (an \"arrow_schema\" capsule).")
      .def("__arrow_c_array__", &array_capsules, "requested_schema"_a = nb::none(),
           "Arrow PyCapsule interface (host arrays): (\"arrow_schema\", \"arrow_array\") capsules viewing this "
           "array. 1-D arrays are primitive columns, 2-D C-contiguous arrays fixed-size lists of rows. Strided "
           "views raise BufferError (use zeroflow.ascontiguousarray); bool arrays are packed into bits (a copy, "
           "with a CopyWarning).")
      .def("__arrow_c_device_array__", &device_array_capsules, "requested_schema"_a = nb::none(), "kwargs"_a,
           "Arrow C Device interface: (\"arrow_schema\", \"arrow_device_array\") capsules. For GPU memory the "
           "struct's sync_event is a CUDA event recorded on the array's stream.");
}

void bind_arrow(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<py_table>(m, "Table",
                       "Named 1-D columns of equal length (read_csv's result), in Arrow's columnar layout. Exports "
                       "through the Arrow PyCapsule interface (a struct array / a stream of one batch).")
      .def_prop_ro(
          "names", [](const py_table& t) { return t.value.names; }, "Column names, in order.")
      .def_prop_ro(
          "columns",
          [](const py_table& t) {
            std::vector<py_array> out;
            for (const array& c : t.value.columns) out.push_back({c, t.stream});
            return out;
          },
          "The columns, as zeroflow arrays (views).")
      .def_prop_ro("num_rows", [](const py_table& t) { return t.value.num_rows(); })
      .def_prop_ro("num_columns", [](const py_table& t) { return t.value.num_columns(); })
      .def(
          "__len__", [](const py_table& t) { return t.value.num_rows(); }, "Number of rows.")
      .def(
          "__getitem__",
          [](const py_table& t, nb::handle key) {
            return py_array{column_of(t, key), t.stream};
          },
          "A column by name or position.")
      .def("__contains__",
           [](const py_table& t, const std::string& name) {
             for (const auto& n : t.value.names)
               if (n == name) return true;
             return false;
           })
      .def("__repr__", &table_repr)
      .def("__arrow_c_schema__",
           [](const py_table& self) {
             return make_capsule<ArrowSchema>(schema_name, schema_destructor,
                                              [&](ArrowSchema* s) { export_arrow_schema(self.value, s); });
           })
      .def("__arrow_c_array__", &table_capsules, "requested_schema"_a = nb::none(),
           "(\"arrow_schema\", \"arrow_array\") capsules of a struct array with one child per column.")
      .def("__arrow_c_device_array__", &table_device_capsules, "requested_schema"_a = nb::none(), "kwargs"_a,
           "The same through the C Device interface (GPU tables carry a CUDA sync event).")
      .def("__arrow_c_stream__", &table_stream_capsule, "requested_schema"_a = nb::none(),
           "An \"arrow_array_stream\" capsule yielding the table as one batch (host tables).");

  m.def(
      "_make_table",
      [](std::vector<std::string> names, std::vector<py_array> columns) {
        py_table t;
        t.value.names = std::move(names);
        for (auto& c : columns) {
          t.value.columns.push_back(c.value);
          t.stream = c.stream;
        }
        t.value.validate();
        return t;
      },
      "names"_a, "columns"_a);
  m.def("_arrow_format", &format_of, "schema"_a, "The format string of an \"arrow_schema\" capsule.");
  m.def(
      "_arrow_import_copies",
      [](nb::handle schema) { return arrow_import_copies(*capsule_pointer<ArrowSchema>(schema, schema_name)); },
      "schema"_a);
  m.def("_from_arrow_array", &from_arrow_array, "schema"_a, "array"_a);
  m.def("_from_arrow_device_array", &from_arrow_device_array, "schema"_a, "array"_a, "stream"_a = nb::none());
  m.def("_from_arrow_table", &from_arrow_table, "schema"_a, "array"_a);
  m.def("_from_arrow_device_table", &from_arrow_device_table, "schema"_a, "array"_a, "stream"_a = nb::none());
  m.def("_from_arrow_stream", &from_arrow_stream, "stream"_a,
        "Every batch of an \"arrow_array_stream\" capsule, as Tables (struct batches) or Arrays.");
}

}  // namespace zeroflow::python
