// zeroflow.read_csv: CSV files (or text) into a Table of columns on the host or straight on a GPU;
// zeroflow.io.read_recording: one signal of a WFDB, EDF or CSV recording; WFDB beat annotations and
// EDF+ annotations.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <string>
#include <vector>

#include "common.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/io/edf.hpp"
#include "zeroflow/io/labels.hpp"
#include "zeroflow/io/output_names.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::python {
namespace {

io::column_ref column_of(nb::handle h) {
  if (nb::isinstance<nb::str>(h)) return io::column_ref(nb::cast<std::string>(h));
  const auto index = nb::cast<std::int64_t>(h);
  if (index < 0) throw nb::value_error("column indices are 0-based and not negative");
  return io::column_ref(index);
}

char single_char(nb::handle h, const char* what) {
  if (h.is_none()) return 0;
  const std::string s = nb::cast<std::string>(h);
  if (s.size() > 1) throw nb::value_error((std::string(what) + " must be one character").c_str());
  return s.empty() ? 0 : s[0];
}

io::csv_options options_of(nb::handle columns, nb::handle delimiter, const std::string& header, nb::handle dtype,
                           nb::handle dtypes, nb::handle comment, nb::handle quote, const std::string& na,
                           unsigned threads, nb::handle device, std::size_t chunk_bytes) {
  io::csv_options o;
  o.delimiter = single_char(delimiter, "delimiter");  // None: detect
  if (header == "auto")
    o.header = io::header_mode::auto_detect;
  else if (header == "yes" || header == "true")
    o.header = io::header_mode::yes;
  else if (header == "no" || header == "false")
    o.header = io::header_mode::no;
  else
    throw nb::value_error("header is \"auto\", \"yes\" or \"no\"");
  if (!columns.is_none()) {
    if (nb::isinstance<nb::str>(columns) || PyLong_Check(columns.ptr()))
      o.columns.push_back(column_of(columns));
    else
      for (nb::handle c : columns) o.columns.push_back(column_of(c));
  }
  o.default_type = parse_dtype(dtype);
  if (!dtypes.is_none()) {
    for (auto [key, value] : nb::borrow<nb::dict>(dtypes)) o.types.push_back({column_of(key), parse_dtype(value)});
  }
  o.comment = comment.is_none() ? std::string() : nb::cast<std::string>(comment);
  o.quote = single_char(quote, "quote");
  if (na == "error")
    o.na = io::na_policy::error;
  else if (na == "nan")
    o.na = io::na_policy::nan;
  else
    throw nb::value_error("na is \"error\" or \"nan\"");
  o.threads = threads;
  o.where = parse_device(device);
  o.chunk_bytes = chunk_bytes;
  return o;
}

}  // namespace

void bind_io(nb::module_& m) {
  using namespace nb::literals;
  m.def(
      "_read_recording",
      [](const std::string& path, const std::string& lead, nb::handle device, unsigned threads, nb::handle stream) {
        io::recording_options options;
        options.lead = lead;
        options.where = parse_device(device);
        options.threads = threads;
        const auto handle = stream_handle(stream);
        io::recording r;
        {
          nb::gil_scoped_release release;
          r = io::read_recording(path, options, to_stream_view(handle));
        }
        return nb::make_tuple(py_array{r.signal, handle}, r.sample_rate, r.lead, r.units, r.leads);
      },
      "path"_a, "lead"_a, "device"_a.none(), "threads"_a, "stream"_a.none());
  m.def(
      "_read_wfdb_annotations",
      [](const std::string& path) {
        io::beat_labels labels;
        {
          nb::gil_scoped_release release;
          labels = io::read_wfdb_annotations(path);
        }
        array samples = empty({static_cast<std::int64_t>(labels.samples.size())}, int64);
        if (!labels.samples.empty())
          std::memcpy(samples.data(), labels.samples.data(), labels.samples.size() * sizeof(std::int64_t));
        std::vector<std::string> classes;
        for (const char c : labels.classes) classes.emplace_back(1, c);
        return nb::make_tuple(py_array{samples}, labels.symbols, classes);
      },
      "path"_a);
  m.def(
      "_read_edf_annotations",
      [](const std::string& path) {
        std::vector<io::edf_annotation> annotations;
        {
          nb::gil_scoped_release release;
          annotations = io::read_edf_annotations(path);
        }
        nb::list out;
        for (const auto& a : annotations) out.append(nb::make_tuple(a.onset, a.duration, a.text));
        return out;
      },
      "path"_a);
  m.def(
      "_read_csv",
      [](const std::string& path, nb::handle columns, nb::handle delimiter, const std::string& header, nb::handle dtype,
         nb::handle dtypes, nb::handle comment, nb::handle quote, const std::string& na, unsigned threads,
         nb::handle device, nb::handle stream, std::size_t chunk_bytes) {
        const auto options =
            options_of(columns, delimiter, header, dtype, dtypes, comment, quote, na, threads, device, chunk_bytes);
        const auto handle = stream_handle(stream);
        nb::gil_scoped_release release;
        return py_table{io::read_csv(path, options, to_stream_view(handle)), handle};
      },
      "path"_a, "columns"_a.none(), "delimiter"_a.none(), "header"_a, "dtype"_a.none(), "dtypes"_a.none(),
      "comment"_a.none(), "quote"_a.none(), "na"_a, "threads"_a, "device"_a.none(), "stream"_a.none(), "chunk_bytes"_a);
  m.def(
      "_read_csv_buffer",
      [](const std::string& text, const std::string& name, nb::handle columns, nb::handle delimiter,
         const std::string& header, nb::handle dtype, nb::handle dtypes, nb::handle comment, nb::handle quote,
         const std::string& na, unsigned threads, nb::handle device, nb::handle stream, std::size_t chunk_bytes) {
        const auto options =
            options_of(columns, delimiter, header, dtype, dtypes, comment, quote, na, threads, device, chunk_bytes);
        const auto handle = stream_handle(stream);
        nb::gil_scoped_release release;
        return py_table{io::read_csv_buffer(text, name, options, to_stream_view(handle)), handle};
      },
      "text"_a, "name"_a, "columns"_a.none(), "delimiter"_a.none(), "header"_a, "dtype"_a.none(), "dtypes"_a.none(),
      "comment"_a.none(), "quote"_a.none(), "na"_a, "threads"_a, "device"_a.none(), "stream"_a.none(), "chunk_bytes"_a);
  // zeroflow.dask names each recording's folder exactly as `zeroflow run A B ...` does.
  m.def("_distinct_folder_names", &io::distinct_folder_names, "inputs"_a, "reserved"_a,
        "One output folder name per input: sanitised, distinct even where case is ignored, none of `reserved`.");
}

}  // namespace zeroflow::python
