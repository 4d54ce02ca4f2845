// zeroflow.Array: properties, indexing and copies, the export protocols (DLPack, CUDA Array
// Interface, NumPy array interface) and the matching imports. docs/architecture.md has the rules.
#include <nanobind/stl/string.h>

#include <bit>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "zeroflow/core/checked_size.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/interop/dlpack.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::python {
namespace {

constexpr const char* versioned_name = "dltensor_versioned";
constexpr const char* legacy_name = "dltensor";
constexpr const char* used_versioned_name = "used_dltensor_versioned";
constexpr const char* used_legacy_name = "used_dltensor";

// A capsule that dies unconsumed still owns its tensor; a consumer renames it "used_..." when it
// takes the tensor, and then the capsule must leave it alone.
void versioned_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, versioned_name)) return;
  auto* t = static_cast<dlpack::DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, versioned_name));
  if (t != nullptr && t->deleter != nullptr) t->deleter(t);
}

void legacy_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, legacy_name)) return;
  auto* t = static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(capsule, legacy_name));
  if (t != nullptr && t->deleter != nullptr) t->deleter(t);
}

nb::tuple to_tuple(const shape_t& values) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(values.size()));
  if (t == nullptr) throw nb::python_error();
  for (std::size_t i = 0; i < values.size(); ++i) {
    PyObject* v = PyLong_FromLongLong(values[i]);
    if (v == nullptr) {
      Py_DECREF(t);
      throw nb::python_error();
    }
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), v);
  }
  return nb::steal<nb::tuple>(t);
}

/// An extent or stride: any Python integer (or __index__ object) that fits in 64 bits; a larger one
/// is a ValueError, as NumPy says of a dimension it cannot hold.
std::int64_t to_int64(nb::handle v) {
  const nb::object i = nb::steal(PyNumber_Index(v.ptr()));
  if (!i.is_valid()) throw nb::python_error();
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow != 0)
    throw nb::value_error(
        ("the extent or stride " + nb::cast<std::string>(nb::str(i)) + " does not fit in 64 bits").c_str());
  if (value == -1 && PyErr_Occurred() != nullptr) throw nb::python_error();
  return value;
}

shape_t to_shape(nb::handle h) {
  shape_t out;
  if (PyLong_Check(h.ptr())) {
    out.push_back(to_int64(h));
    return out;
  }
  for (nb::handle v : h) out.push_back(to_int64(v));
  return out;
}

shape_t byte_strides_of(const array& a) {
  shape_t out = a.strides();
  for (auto& s : out) s *= static_cast<std::int64_t>(a.type().itemsize());
  return out;
}

/// The array interfaces' type string ("<f4", "|b1"...); the host is little-endian.
std::string typestr_of(dtype t) {
  static_assert(std::endian::native == std::endian::little, "zeroflow's type strings assume a little-endian host");
  char kind = 0;
  switch (t.code) {
    case type_code::int_:
      kind = 'i';
      break;
    case type_code::uint:
      kind = 'u';
      break;
    case type_code::float_:
      kind = 'f';
      break;
    case type_code::complex:
      kind = 'c';
      break;
    case type_code::bool_:
      kind = 'b';
      break;
    default:
      break;
  }
  if (kind == 0 || t.lanes != 1)
    throw nb::type_error(("dtype " + dtype_name(t) + " has no array-interface type string (use __dlpack__)").c_str());
  const std::size_t size = t.itemsize();
  return std::string(1, size == 1 ? '|' : '<') + kind + std::to_string(size);
}

dtype dtype_of_typestr(const std::string& s) {
  const auto bad = [&s]() {
    return nb::type_error(("unsupported array-interface type string \"" + s +
                           "\" (zeroflow takes little-endian int, uint, float, complex and bool)")
                              .c_str());
  };
  if (s.size() < 3) throw bad();
  const char order = s[0];
  const char kind = s[1];
  int size = 0;
  try {
    size = std::stoi(s.substr(2));
  } catch (const std::exception&) {
    throw bad();
  }
  if (order == '>' && size != 1) throw bad();
  if (order != '<' && order != '|' && order != '=' && order != '>') throw bad();
  const auto bits = static_cast<std::uint8_t>(size * 8);
  dtype t{};
  switch (kind) {
    case 'i':
      t = {type_code::int_, bits, 1};
      break;
    case 'u':
      t = {type_code::uint, bits, 1};
      break;
    case 'f':
      t = {type_code::float_, bits, 1};
      break;
    case 'c':
      t = {type_code::complex, bits, 1};
      break;
    case 'b':
      t = {type_code::bool_, bits, 1};
      break;
    default:
      throw bad();
  }
  if (size <= 0 || size > 16 || !is_valid(t)) throw bad();
  return t;
}

/// The same memory, described as living on `where` (host-accessible memory seen as "cpu").
array relabel(const array& a, device where) {
  const auto& owner = a.owner();
  auto keep = buffer::adopt(owner->data(), owner->size(), where, [owner](void*, std::size_t) {});
  return array(std::move(keep), a.type(), a.shape(), a.strides(), a.byte_offset(), a.read_only());
}

/// Waits for the array's producing stream before host code reads CUDA-owned host memory.
void sync_for_host(const py_array& self) {
  if (self.value.where().is_cuda()) synchronize(to_stream_view(self.stream));
}

nb::object dlpack_export(const py_array& self, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                         nb::handle copy) {
  const array& a = self.value;
  bool versioned = false;
  if (!max_version.is_none()) {
    if (!nb::isinstance<nb::tuple>(max_version)) throw nb::type_error("max_version is a (major, minor) tuple");
    versioned = nb::cast<int>(nb::borrow<nb::tuple>(max_version)[0]) >= 1;
  }
  std::optional<bool> want_copy;
  if (!copy.is_none()) want_copy = nb::cast<bool>(copy);
  const device target = dl_device.is_none() ? a.where() : parse_device(dl_device);
  const bool cuda_target = target.type == device_type::cuda || target.type == device_type::cuda_managed;
  std::uintptr_t consumer = legacy_stream;
  if (cuda_target) {
    if (!stream.is_none() && PyLong_Check(stream.ptr()) && nb::cast<std::int64_t>(stream) == -1)
      consumer = no_sync;
    else
      consumer = stream_handle(stream);
  } else if (!stream.is_none()) {
    throw nb::value_error("stream must be None when exporting to a device without streams (the CPU)");
  }

  array out = a;
  bool copied = false;
  if (target != a.where()) {
    if (target.type == device_type::cpu && a.where().host_accessible() && want_copy != true) {
      sync_for_host(self);
      out = relabel(a, cpu_device);  // pinned and managed memory is host memory to a CPU consumer
    } else {
      if (want_copy == false)
        throw nb::buffer_error(("exporting this " + a.where().name() + " array to " + target.name() +
                                " needs a copy, and copy=False was given")
                                   .c_str());
      out = as_buffer_error([&] { return copy_to(a, target, to_stream_view(self.stream)); });
      copied = true;
    }
  }
  if (want_copy == true && !copied) {
    out = as_buffer_error([&] { return copy_to(a, target, to_stream_view(self.stream)); });
    copied = true;
  }
  if (cuda_target)
    stream_wait(consumer, self.stream, target.id);
  else if (!copied && a.where().is_cuda())
    sync_for_host(self);

  if (versioned) {
    auto* t = as_buffer_error([&] { return to_dlpack_versioned(out); });
    if (copied) t->flags |= dlpack::flag_bitmask_is_copied;
    PyObject* capsule = PyCapsule_New(t, versioned_name, versioned_capsule_destructor);
    if (capsule == nullptr) {
      t->deleter(t);
      throw nb::python_error();
    }
    return nb::steal(capsule);
  }
  if (out.read_only())
    throw nb::buffer_error(
        "a read-only array cannot be exported as a legacy DLPack capsule (it has no read-only "
        "flag); the consumer must ask for max_version >= (1, 0), or pass copy=True");
  auto* t = as_buffer_error([&] { return to_dlpack(out); });
  PyObject* capsule = PyCapsule_New(t, legacy_name, legacy_capsule_destructor);
  if (capsule == nullptr) {
    t->deleter(t);
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

nb::tuple dlpack_device(const py_array& self) {
  const device d = self.value.where();
  return nb::make_tuple(static_cast<int>(d.type), d.type == device_type::cuda_host ? 0 : d.id);
}

nb::dict interface_dict(const array& a) {
  nb::dict d;
  const std::string typestr = typestr_of(a.type());
  d["shape"] = to_tuple(a.shape());
  d["typestr"] = typestr;
  nb::list descr;
  descr.append(nb::make_tuple("", typestr));
  d["descr"] = descr;
  const auto pointer = a.size() == 0 ? std::uintptr_t{0} : reinterpret_cast<std::uintptr_t>(a.data());
  d["data"] = nb::make_tuple(pointer, a.read_only());
  d["strides"] = a.is_contiguous() ? nb::none() : nb::object(to_tuple(byte_strides_of(a)));
  d["version"] = 3;
  return d;
}

nb::dict cuda_array_interface(const py_array& self) {
  const array& a = self.value;
  if (!a.where().is_cuda())
    throw nb::attribute_error("a host array has no __cuda_array_interface__ (it has __array_interface__)");
  nb::dict d = interface_dict(a);
  // CAI v3: the consumer synchronises with this stream; None would mean "ready now".
  d["stream"] = a.where().type == device_type::cuda_host ? nb::none() : nb::object(nb::int_(self.stream));
  d["mask"] = nb::none();
  return d;
}

nb::dict array_interface(const py_array& self) {
  const array& a = self.value;
  if (!a.where().host_accessible())
    throw nb::attribute_error(("an array on " + a.where().name() +
                               " has no __array_interface__ (it has __cuda_array_interface__ and __dlpack__)")
                                  .c_str());
  sync_for_host(self);
  nb::dict d = interface_dict(a);
  if (a.size() == 0) d["data"] = nb::make_tuple(std::uintptr_t{0}, a.read_only());
  return d;
}

/// An index expression (int, slice, Ellipsis-free tuple of them) applied as views.
array index(const array& a, nb::handle key) {
  std::vector<nb::handle> items;
  if (nb::isinstance<nb::tuple>(key))
    for (nb::handle k : key) items.push_back(k);
  else
    items.push_back(key);
  if (static_cast<std::int64_t>(items.size()) > a.ndim())
    throw nb::index_error(("too many indices for a " + std::to_string(a.ndim()) + "-D array").c_str());
  array out = a;
  std::int64_t dim = 0;
  for (nb::handle k : items) {
    const std::int64_t extent = out.shape(dim);
    if (PySlice_Check(k.ptr())) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(k.ptr(), &start, &stop, &step) < 0) throw nb::python_error();
      const Py_ssize_t count = PySlice_AdjustIndices(static_cast<Py_ssize_t>(extent), &start, &stop, step);
      if (count == 0) {
        const std::int64_t s =
            step > 0 ? std::min<std::int64_t>(start, extent) : std::min<std::int64_t>(start, extent - 1);
        out = out.slice(dim, s, s, step);
      } else {
        out = out.slice(dim, start, stop, step);
      }
      ++dim;
    } else if (PyLong_Check(k.ptr()) || PyIndex_Check(k.ptr())) {
      std::int64_t i = nb::cast<std::int64_t>(nb::int_(k));
      if (i < 0) i += extent;
      if (i < 0 || i >= extent)
        throw nb::index_error(
            ("index " + std::to_string(i) + " out of range for extent " + std::to_string(extent)).c_str());
      array one = out.slice(dim, i, i + 1);
      shape_t shape = one.shape();
      shape_t strides = one.strides();
      shape.erase(shape.begin() + dim);
      strides.erase(strides.begin() + dim);
      out = array(one.owner(), one.type(), shape, strides, one.byte_offset(), one.read_only());
    } else {
      throw nb::type_error("zeroflow arrays take integer and slice indices");
    }
  }
  return out;
}

std::string repr(const py_array& self) {
  const array& a = self.value;
  std::string shape = "(";
  for (std::size_t i = 0; i < a.shape().size(); ++i) shape += (i ? ", " : "") + std::to_string(a.shape()[i]);
  if (a.shape().size() == 1) shape += ",";
  shape += ")";
  return "zeroflow.Array(shape=" + shape + ", dtype=" + dtype_name(a.type()) + ", device=" + a.where().name() +
         (a.read_only() ? ", read_only" : "") + ")";
}

py_array from_dlpack_capsule(nb::handle capsule, nb::handle stream) {
  PyObject* c = capsule.ptr();
  if (!PyCapsule_CheckExact(c)) throw nb::type_error("expected a DLPack capsule (from __dlpack__ or to_dlpack)");
  const std::uintptr_t consumer = stream_handle(stream);
  if (PyCapsule_IsValid(c, versioned_name)) {
    auto* t = static_cast<dlpack::DLManagedTensorVersioned*>(PyCapsule_GetPointer(c, versioned_name));
    if (PyCapsule_SetName(c, used_versioned_name) != 0) throw nb::python_error();
    return {as_buffer_error([&] { return from_dlpack(t); }), consumer};
  }
  if (PyCapsule_IsValid(c, legacy_name)) {
    auto* t = static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(c, legacy_name));
    if (PyCapsule_SetName(c, used_legacy_name) != 0) throw nb::python_error();
    return {as_buffer_error([&] { return from_dlpack(t); }), consumer};
  }
  const char* name = PyCapsule_GetName(c);
  if (name == nullptr) PyErr_Clear();
  if (name != nullptr && std::strncmp(name, "used_", 5) == 0)
    throw nb::value_error(
        "this DLPack capsule was already consumed; a capsule can be consumed only once "
        "(call __dlpack__ again for a new one)");
  throw nb::type_error("not a DLPack capsule (its name is neither \"dltensor\" nor \"dltensor_versioned\")");
}

shape_t strides_or_contiguous(nb::handle strides, const shape_t& shape, std::size_t item) {
  if (!strides.is_none()) return to_shape(strides);
  shape_t out = contiguous_strides(shape);
  for (auto& s : out)
    s = multiply_sizes(s, static_cast<std::int64_t>(item), "a stride of this array interface in bytes");
  return out;
}

/// Refuses an imported shape and byte strides whose element offsets, or the byte span they cover,
/// do not fit in 64 bits: view_of measures that span before the array checks itself.
void check_interface_sizes(const shape_t& shape, const shape_t& byte_strides, std::size_t item) {
  if (byte_strides.size() != shape.size())
    throw nb::value_error(("an array interface with " + std::to_string(shape.size()) + " dimensions has " +
                           std::to_string(byte_strides.size()) + " strides")
                              .c_str());
  (void)element_count(shape);
  for (auto extent : shape)
    if (extent == 0) return;  // addresses nothing
  // The span from the lowest to one past the highest byte: the item, plus every dimension's reach.
  std::optional<std::int64_t> span = static_cast<std::int64_t>(item);
  for (std::size_t d = 0; d < shape.size() && span; ++d) {
    const auto reach = checked_mul(shape[d] - 1, byte_strides[d]);
    const auto size = reach ? checked_mul(*reach, *reach < 0 ? -1 : 1) : std::nullopt;
    span = size ? checked_add(*span, *size) : std::nullopt;
  }
  if (!span)
    throw nb::value_error("the shape and strides of this array interface reach offsets that do not fit in 64 bits");
}

py_array from_cuda_array_interface(nb::handle owner, nb::handle stream) {
  nb::dict d = nb::borrow<nb::dict>(owner.attr("__cuda_array_interface__"));
  if (d.contains("mask") && !d["mask"].is_none())
    throw nb::value_error("masked __cuda_array_interface__ arrays are not supported (zeroflow has no masks)");
  const dtype type = dtype_of_typestr(nb::cast<std::string>(d["typestr"]));
  const shape_t shape = to_shape(d["shape"]);
  nb::tuple data = nb::borrow<nb::tuple>(d["data"]);
  auto* pointer = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(data[0]));
  const bool read_only = nb::cast<bool>(data[1]);
  const shape_t strides =
      strides_or_contiguous(d.contains("strides") ? d["strides"] : nb::none(), shape, type.itemsize());
  check_interface_sizes(shape, strides, type.itemsize());
  const std::int64_t n = element_count(shape);
  const device where = n == 0 || pointer == nullptr ? cuda_device(0) : device_of_pointer(pointer);
  const std::uintptr_t consumer = stream_handle(stream);
  const int version = d.contains("version") ? nb::cast<int>(d["version"]) : 0;
  if (version >= 3 && d.contains("stream") && !d["stream"].is_none()) {
    const auto producer = nb::cast<std::int64_t>(d["stream"]);
    if (producer == 0) throw nb::value_error("__cuda_array_interface__ stream 0 is invalid (CAI v3 disallows it)");
    stream_wait(consumer, static_cast<std::uintptr_t>(producer), where.id);
  }
  return {view_of(pointer, type, shape, strides, read_only, where, owner), consumer};
}

py_array from_array_interface(nb::handle owner) {
  nb::dict d = nb::borrow<nb::dict>(owner.attr("__array_interface__"));
  if (d.contains("mask") && !d["mask"].is_none())
    throw nb::value_error("masked arrays are not supported (zeroflow has no masks)");
  nb::handle data_entry = d["data"];
  if (!nb::isinstance<nb::tuple>(data_entry))
    throw nb::type_error(
        "this __array_interface__ exposes its data through the buffer protocol, not a pointer; "
        "pass numpy.asarray(x) instead");
  const dtype type = dtype_of_typestr(nb::cast<std::string>(d["typestr"]));
  const shape_t shape = to_shape(d["shape"]);
  nb::tuple data = nb::borrow<nb::tuple>(data_entry);
  auto* pointer = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(data[0]));
  const bool read_only = nb::cast<bool>(data[1]);
  const shape_t strides =
      strides_or_contiguous(d.contains("strides") ? d["strides"] : nb::none(), shape, type.itemsize());
  check_interface_sizes(shape, strides, type.itemsize());
  return {view_of(pointer, type, shape, strides, read_only, cpu_device, owner), legacy_stream};
}

}  // namespace

void bind_array(nb::module_& m) {
  using namespace nb::literals;
  auto cls =
      nb::class_<py_array>(m, "Array",
                           "A strided N-d view of zeroflow memory (host or GPU). Exports itself through DLPack "
                           "(__dlpack__), the CUDA Array Interface (device arrays), NumPy's array interface (host "
                           "arrays) and the Arrow PyCapsule interface, without copying.")
          .def_prop_ro(
              "shape", [](const py_array& s) { return to_tuple(s.value.shape()); }, "Extents, as a tuple.")
          .def_prop_ro(
              "strides", [](const py_array& s) { return to_tuple(byte_strides_of(s.value)); },
              "Strides in BYTES (NumPy's convention); may be negative or zero.")
          .def_prop_ro(
              "element_strides", [](const py_array& s) { return to_tuple(s.value.strides()); },
              "Strides in elements (zeroflow's and DLPack's convention).")
          .def_prop_ro(
              "dtype", [](const py_array& s) { return dtype_name(s.value.type()); },
              "Element type name (\"float32\", \"int64\", \"bool\"...); numpy.dtype() accepts it.")
          .def_prop_ro(
              "device", [](const py_array& s) { return s.value.where().name(); },
              "\"cpu\", \"cuda:N\", \"cuda_host\" or \"cuda_managed:N\".")
          .def_prop_ro("ndim", [](const py_array& s) { return s.value.ndim(); })
          .def_prop_ro(
              "size", [](const py_array& s) { return s.value.size(); }, "Number of elements.")
          .def_prop_ro("itemsize", [](const py_array& s) { return s.value.type().itemsize(); })
          .def_prop_ro("nbytes", [](const py_array& s) { return s.value.nbytes(); })
          .def_prop_ro("readonly", [](const py_array& s) { return s.value.read_only(); })
          .def_prop_ro(
              "is_contiguous", [](const py_array& s) { return s.value.is_contiguous(); },
              "True for C-contiguous arrays.")
          .def_prop_ro(
              "data_ptr", [](const py_array& s) { return reinterpret_cast<std::uintptr_t>(s.value.data()); },
              "Address of element 0 (an integer).")
          .def_prop_ro(
              "stream", [](const py_array& s) { return s.stream; },
              "Handle of the CUDA stream whose queued work produces this array (1: legacy default). "
              "Exports make their consumer wait on it.")
          .def("__len__",
               [](const py_array& s) {
                 if (s.value.ndim() == 0) throw nb::type_error("len() of a 0-d array");
                 return s.value.shape(0);
               })
          .def("__repr__", &repr)
          .def(
              "__getitem__",
              [](const py_array& s, nb::handle key) {
                return py_array{index(s.value, key), s.stream};
              },
              "Integer and slice indexing; the result is a view (no copy).")
          .def(
              "as_readonly",
              [](const py_array& s) {
                return py_array{s.value.as_read_only(), s.stream};
              },
              "The same memory as a read-only view (exports carry the read-only flag).")
          .def(
              "reshape",
              [](const py_array& s, nb::handle shape) {
                return py_array{s.value.reshape(to_shape(shape)), s.stream};
              },
              "shape"_a, "A view with another shape (contiguous arrays only).")
          .def(
              "copy",
              [](const py_array& s, nb::handle device) {
                const auto where = device.is_none() ? s.value.where() : parse_device(device);
                return py_array{copy_to(s.value, where, to_stream_view(s.stream)), s.stream};
              },
              "device"_a = nb::none(), "A C-contiguous copy, on `device` (default: the same device).")
          .def(
              "__dlpack__", &dlpack_export, nb::kw_only(), "stream"_a = nb::none(), "max_version"_a = nb::none(),
              "dl_device"_a = nb::none(), "copy"_a = nb::none(),
              "DLPack export (array API standard). Returns a \"dltensor_versioned\" capsule when max_version >= (1, 0) "
              "and a legacy \"dltensor\" capsule otherwise (read-only arrays cannot go legacy). `stream`: the "
              "consumer's CUDA stream (None = legacy default, 1 legacy, 2 per-thread, -1 no sync, 0 refused); it is "
              "made to wait on this array's stream. CPU exports take stream=None only. `dl_device`: export to "
              "another device (a copy, refused with copy=False; pinned and managed memory are seen as CPU memory "
              "without one). `copy=True` always copies and sets the IS_COPIED flag.")
          .def("__dlpack_device__", &dlpack_device, "(DLPack device type, device id).")
          .def_prop_ro("__cuda_array_interface__", &cuda_array_interface,
                       "CUDA Array Interface v3 (device arrays only): strides in bytes, `stream` is this array's "
                       "stream (the consumer synchronises with it).")
          .def_prop_ro("__array_interface__", &array_interface,
                       "NumPy array interface v3 (host-accessible arrays only).");
  bind_array_arrow(cls);

  m.def("_from_dlpack_capsule", &from_dlpack_capsule, "capsule"_a, "stream"_a = nb::none(),
        "Imports a DLPack capsule (consumes it: renamed \"used_...\"); `stream` is the stream the producer "
        "was asked to order the data on.");
  m.def("_from_cuda_array_interface", &from_cuda_array_interface, "obj"_a, "stream"_a = nb::none(),
        "Imports an object with __cuda_array_interface__ (kept alive by the array); `stream` waits for the "
        "producer's stream.");
  m.def("_from_array_interface", &from_array_interface, "obj"_a,
        "Imports an object with __array_interface__ (kept alive by the array).");
  m.def(
      "_stream_handle", [](nb::handle stream) { return stream_handle(stream); }, "stream"_a = nb::none(),
      "The integer handle of a stream argument (None -> 1, the legacy default stream).");
  m.def(
      "_dlpack_device",
      [](nb::handle device) {
        const zeroflow::device d = parse_device(device);
        return nb::make_tuple(static_cast<int>(d.type), d.id);
      },
      "device"_a, "A device argument as a DLPack (device_type, device_id) pair.");
  m.def(
      "_same_device", [](const py_array& a, nb::handle device) { return a.value.where() == parse_device(device); },
      "array"_a, "device"_a);
  m.def(
      "_dtype_name", [](nb::handle type) { return dtype_name(parse_dtype(type)); }, "dtype"_a,
      "The canonical name of a dtype argument.");
  m.def("cuda_available", &zeroflow::cuda_available, "True when this build has CUDA and a GPU answers.");
  m.def(
      "empty",
      [](nb::handle shape, nb::handle type, nb::handle device, nb::handle stream) {
        const auto handle = stream_handle(stream);
        auto extents = to_shape(shape);
        const dtype t = parse_dtype(type);
        (void)contiguous_bytes(extents, t);  // a size that wraps would allocate a few bytes for a huge shape
        return py_array{zeroflow::empty(std::move(extents), t, parse_device(device), to_stream_view(handle)), handle};
      },
      "shape"_a, "dtype"_a = "float32", "device"_a = "cpu", "stream"_a = nb::none(),
      "An uninitialised C-contiguous array from the device's current memory resource.");
  m.def(
      "zeros",
      [](nb::handle shape, nb::handle type, nb::handle device, nb::handle stream) {
        const auto handle = stream_handle(stream);
        auto extents = to_shape(shape);
        const dtype t = parse_dtype(type);
        (void)contiguous_bytes(extents, t);  // a size that wraps would allocate a few bytes for a huge shape
        return py_array{zeroflow::zeros(std::move(extents), t, parse_device(device), to_stream_view(handle)), handle};
      },
      "shape"_a, "dtype"_a = "float32", "device"_a = "cpu", "stream"_a = nb::none(),
      "A zero-filled C-contiguous array from the device's current memory resource.");
}

}  // namespace zeroflow::python
