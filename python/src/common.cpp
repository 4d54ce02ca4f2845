// Argument parsing, the stream hand-off and Python-owned buffers (see common.hpp).
#include "common.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>

#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::python {

std::uintptr_t stream_handle(nb::handle h) {
  if (h.is_none()) return legacy_stream;
  if (!PyLong_Check(h.ptr())) {
    if (nb::hasattr(h, "cuda_stream")) return stream_handle(h.attr("cuda_stream"));
    if (nb::hasattr(h, "ptr")) {
      const auto value = nb::cast<std::int64_t>(h.attr("ptr"));
      return value == 0 ? legacy_stream : static_cast<std::uintptr_t>(value);  // CuPy's null stream
    }
    throw nb::type_error("a stream is None, an int handle, or a torch/CuPy stream object");
  }
  const auto value = nb::cast<std::int64_t>(h);
  if (value == 0)
    throw nb::value_error(
        "stream 0 is ambiguous and refused (as in DLPack): pass 1 (or None) for the legacy "
        "default stream, 2 for the per-thread default stream");
  if (value < 0) throw nb::value_error("a stream handle must be positive");
  return static_cast<std::uintptr_t>(value);
}

stream_view to_stream_view(std::uintptr_t handle) {
  return stream_view{reinterpret_cast<stream_view::handle_type>(handle)};
}

device parse_device(nb::handle h) {
  if (nb::isinstance<nb::tuple>(h)) {
    auto t = nb::borrow<nb::tuple>(h);
    if (t.size() != 2) throw nb::value_error("a device tuple is (dlpack_device_type, device_id)");
    const auto type = nb::cast<int>(t[0]);
    const auto id = nb::cast<int>(t[1]);
    switch (type) {
      case 1:
        return cpu_device;
      case 2:
        return {device_type::cuda, id};
      case 3:
        return {device_type::cuda_host, 0};
      case 13:
        return {device_type::cuda_managed, id};
      default:
        throw nb::value_error(("unsupported DLPack device type " + std::to_string(type)).c_str());
    }
  }
  if (!nb::isinstance<nb::str>(h)) {
    // torch.device and friends print as "cuda:0" / "cpu".
    if (nb::hasattr(h, "type") && nb::hasattr(h, "index")) return parse_device(nb::str(h));
    throw nb::type_error("a device is a string (\"cpu\", \"cuda\", \"cuda:1\") or a (dlpack_type, id) tuple");
  }
  const std::string text = nb::cast<std::string>(h);
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  int id = 0;
  if (colon != std::string::npos) {
    const char* first = text.data() + colon + 1;
    const char* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(first, last, id);
    if (ec != std::errc{} || end != last || id < 0)
      throw nb::value_error(("bad device id in \"" + text + "\"").c_str());
  }
  if (kind == "cpu") return cpu_device;
  if (kind == "cuda" || kind == "gpu") return {device_type::cuda, id};
  if (kind == "cuda_host" || kind == "pinned") return {device_type::cuda_host, 0};
  if (kind == "cuda_managed") return {device_type::cuda_managed, id};
  throw nb::value_error(("unknown device \"" + text + "\" (cpu, cuda[:N], cuda_host, cuda_managed[:N])").c_str());
}

namespace {
struct named_dtype {
  std::string_view name;
  dtype type;
};
constexpr named_dtype dtype_names[] = {
    {"float32", float32},
    {"float64", float64},
    {"float16", float16},
    {"bfloat16", bfloat16},
    {"int8", int8},
    {"int16", int16},
    {"int32", int32},
    {"int64", int64},
    {"uint8", uint8},
    {"uint16", uint16},
    {"uint32", uint32},
    {"uint64", uint64},
    {"bool", bool8},
    {"complex64", {type_code::complex, 64, 1}},
    {"complex128", {type_code::complex, 128, 1}},
};
}  // namespace

dtype parse_dtype(nb::handle h) {
  std::string name;
  if (nb::isinstance<nb::str>(h))
    name = nb::cast<std::string>(h);
  else if (nb::hasattr(h, "dtype") && nb::hasattr(h, "__name__"))  // NumPy scalar types: numpy.float32
    name = nb::cast<std::string>(h.attr("__name__"));
  else if (nb::hasattr(h, "name") && nb::isinstance<nb::str>(h.attr("name")))  // numpy.dtype
    name = nb::cast<std::string>(h.attr("name"));
  else
    name = nb::cast<std::string>(nb::str(h));  // torch.float32 prints as "torch.float32"
  if (name.rfind("torch.", 0) == 0) name = name.substr(6);
  if (name == "float") name = "float64";  // Python's float, as NumPy reads it
  if (name == "bool_") name = "bool";
  for (const auto& n : dtype_names)
    if (n.name == name) return n.type;
  throw nb::type_error(("unsupported dtype \"" + name +
                        "\"; zeroflow takes float16/32/64, bfloat16, "
                        "int8-64, uint8-64, bool, complex64/128")
                           .c_str());
}

std::string dtype_name(dtype t) {
  for (const auto& n : dtype_names)
    if (n.type == t) return std::string(n.name);
  return t.name();
}

void stream_wait(std::uintptr_t consumer, std::uintptr_t producer, int device_id) {
  if (consumer == producer || consumer == no_sync) return;
#if ZEROFLOW_HAS_CUDA
  detail::cuda_device_guard guard(device_id);
  cudaEvent_t event = nullptr;
  ZF_CUDA_TRY(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  const cudaError_t recorded = cudaEventRecord(event, reinterpret_cast<cudaStream_t>(producer));
  const cudaError_t waited =
      recorded == cudaSuccess ? cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(consumer), event, 0) : recorded;
  ZF_CUDA_REPORT(cudaEventDestroy(event));  // safe right away: the wait keeps what it needs
  ZF_CUDA_TRY(waited);
#else
  (void)device_id;
#endif
}

device device_of_pointer(const void* pointer) {
#if ZEROFLOW_HAS_CUDA
  cudaPointerAttributes attributes{};
  ZF_CUDA_TRY(cudaPointerGetAttributes(&attributes, pointer));
  switch (attributes.type) {
    case cudaMemoryTypeDevice:
      return cuda_device(attributes.device);
    case cudaMemoryTypeHost:
      return {device_type::cuda_host, 0};
    case cudaMemoryTypeManaged:
      return {device_type::cuda_managed, attributes.device};
    default:
      break;
  }
  throw nb::value_error("the pointer of this __cuda_array_interface__ is not CUDA memory");
#else
  (void)pointer;
  ZF_THROW(cuda_error, "importing CUDA memory (__cuda_array_interface__) needs a CUDA build of zeroflow");
#endif
}

void set_python_error(PyObject* type, const char* message) noexcept {
  // PyErr_SetString decodes the message as strict UTF-8 and, on a file or column name that is not
  // (Latin-1, raw bytes), raises UnicodeDecodeError instead of the error itself; those bytes are
  // kept as \xNN escapes here.
  PyObject* text = PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::strlen(message)), "backslashreplace");
  if (text == nullptr) return;  // out of memory: that error stands
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

nb::str text_to_python(const std::string& text) {
  // File names are bytes: surrogateescape gives them back as os.fsdecode would, and os.fsencode
  // turns them into the same bytes again.
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "surrogateescape");
  if (s == nullptr) throw nb::python_error();
  return nb::steal<nb::str>(s);
}

namespace {
/// Drops a reference from any thread; skipped once the interpreter is shutting down.
void release_reference(PyObject* owner) noexcept {
  if (!Py_IsInitialized()) return;
#if PY_VERSION_HEX >= 0x030D0000
  if (Py_IsFinalizing()) return;
#else
  if (_Py_IsFinalizing()) return;
#endif
  const PyGILState_STATE state = PyGILState_Ensure();
  Py_DECREF(owner);
  PyGILState_Release(state);
}
}  // namespace

std::shared_ptr<buffer> adopt_python(void* first_byte, std::size_t bytes, device where, nb::handle owner) {
  PyObject* o = owner.ptr();
  Py_XINCREF(o);
  try {
    return buffer::adopt(first_byte, bytes, where, [o](void*, std::size_t) {
      if (o != nullptr) release_reference(o);
    });
  } catch (...) {
    Py_XDECREF(o);
    throw;
  }
}

array view_of(void* element0, dtype type, const shape_t& shape, const shape_t& byte_strides, bool read_only,
              device where, nb::handle owner) {
  const auto item = static_cast<std::int64_t>(type.itemsize());
  shape_t strides(shape.size());
  bool empty = false;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) throw nb::value_error("negative extent in an array interface");
    empty = empty || shape[d] == 0;
    if (byte_strides[d] % item != 0)
      throw nb::value_error(("byte stride " + std::to_string(byte_strides[d]) + " is not a multiple of the item size " +
                             std::to_string(item) + "; zeroflow strides count elements (copy the array first)")
                                .c_str());
    strides[d] = byte_strides[d] / item;
  }
  if (empty) {
    auto owner_buffer = adopt_python(element0, 0, where, owner);
    return array(std::move(owner_buffer), type, shape, strides, 0, read_only);
  }
  if (element0 == nullptr) throw nb::value_error("an array interface with elements has a NULL data pointer");
  std::int64_t low = 0, high = 0;  // in elements from element 0
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::int64_t reach = (shape[d] - 1) * strides[d];
    (reach < 0 ? low : high) += reach;
  }
  char* first = static_cast<char*>(element0) + low * item;
  const auto span = static_cast<std::size_t>((high - low + 1) * item);
  auto owner_buffer = adopt_python(first, span, where, owner);
  return array(std::move(owner_buffer), type, shape, strides, -low * item, read_only);
}

std::string python_keyword(const pipeline::option_info& option) { return std::string(option.name) + '='; }

}  // namespace zeroflow::python
