#pragma once
/// @file common.hpp
/// What the binding files share: the Python-side array and table objects, argument parsing
/// (streams, devices, dtypes), the stream hand-off rule, and buffers that keep a Python
/// producer alive.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <string>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/core/table.hpp"
#include "zeroflow/pipeline/run_option_table.hpp"

namespace nb = nanobind;

namespace zeroflow::python {

/// Python's spelling of a run option before its value: "max_device_memory=" (the options'
/// names are Python's keywords; pipeline::spell_options).
[[nodiscard]] std::string python_keyword(const pipeline::option_info& option);

/// The legacy default stream's integer handle (DLPack and the CUDA Array Interface say 1).
inline constexpr std::uintptr_t legacy_stream = 1;
/// "Do not synchronise" (DLPack's stream=-1).
inline constexpr std::uintptr_t no_sync = static_cast<std::uintptr_t>(-1);

/// A zeroflow array as Python holds it: the array, and the CUDA stream whose queued work
/// produces its values. Exports make the consumer's stream wait on that stream (DLPack,
/// Arrow's sync_event) or name it (the CUDA Array Interface's `stream`). Host arrays keep 1.
struct py_array {
  array value;
  std::uintptr_t stream = legacy_stream;
};

/// A table of columns, with the stream that produces them (as py_array).
struct py_table {
  table value;
  std::uintptr_t stream = legacy_stream;
};

/// A stream argument: None is the legacy default (1); an int is a handle (1 legacy default,
/// 2 per-thread default, anything else a cudaStream_t); an object with `cuda_stream`
/// (torch.cuda.Stream) or `ptr` (cupy.cuda.Stream, whose null stream 0 is the legacy default)
/// gives its handle. 0 and negative integers are refused (ValueError), as DLPack does.
[[nodiscard]] std::uintptr_t stream_handle(nb::handle h);
[[nodiscard]] stream_view to_stream_view(std::uintptr_t handle);

/// A device argument: "cpu", "cuda", "cuda:1", "cuda_host", "cuda_managed:0", or a DLPack
/// (device_type, device_id) pair. Raises ValueError on anything else.
[[nodiscard]] device parse_device(nb::handle h);
/// A dtype argument: a name ("float32", "bool"...), a NumPy dtype or scalar type, a torch dtype.
[[nodiscard]] dtype parse_dtype(nb::handle h);
/// NumPy's name of a dtype ("float32", "bool", "bfloat16").
[[nodiscard]] std::string dtype_name(dtype t);

/// Makes `consumer` wait for the work queued so far on `producer` on GPU `device_id` (an event
/// recorded on one, waited on by the other). No-op when they are the same stream, when
/// `consumer` is no_sync, and in builds without CUDA.
void stream_wait(std::uintptr_t consumer, std::uintptr_t producer, int device_id);

/// The device and device id of CUDA-accessible memory at `pointer` (cudaPointerGetAttributes):
/// cuda:N, cuda_host or cuda_managed:N. Raises zeroflow::cuda_error without CUDA.
[[nodiscard]] device device_of_pointer(const void* pointer);

/// A buffer over [first_byte, first_byte + bytes) on `where` that keeps the Python object
/// `owner` alive until the last view goes (the reference is dropped with the GIL held; at
/// interpreter exit it is left, as Python's own objects are).
[[nodiscard]] std::shared_ptr<buffer> adopt_python(void* first_byte, std::size_t bytes, device where, nb::handle owner);

/// A view of foreign memory described the way the array interfaces describe it: element 0 at
/// `element0`, extents, strides in BYTES. Returns the array over the span its elements reach.
/// Raises ValueError when a byte stride is not a multiple of the item size.
[[nodiscard]] array view_of(void* element0, dtype type, const shape_t& shape, const shape_t& byte_strides,
                            bool read_only, device where, nb::handle owner);

/// Throws nb::buffer_error with the message of the zeroflow::error `f` throws (exports).
template <class F>
auto as_buffer_error(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const zeroflow::error& e) {
    throw nb::buffer_error(e.what());
  }
}

/// zeroflow.CopyWarning (a UserWarning), created by the module.
extern PyObject* copy_warning_type;

void bind_array(nb::module_& m);
/// Adds the Arrow PyCapsule methods to zeroflow.Array (arrow.cpp).
void bind_array_arrow(nb::class_<py_array>& cls);
void bind_arrow(nb::module_& m);
void bind_memory(nb::module_& m);
void bind_io(nb::module_& m);
void bind_signal(nb::module_& m);
void bind_model(nb::module_& m);
void bind_model_file(nb::module_& m);
void bind_eval(nb::module_& m);
/// classify/af_rhythm.hpp: the AF rule on beat times (classify.cpp).
void bind_classify(nb::module_& m);
void bind_holter(nb::module_& m);
void bind_timeseries(nb::module_& m);
void bind_synth(nb::module_& m);
void bind_run_options(nb::module_& m);
void bind_population(nb::module_& m);

/// Messages and names as Python text that never fails to decode: for the exception translator
/// (module.cpp) and the names the io bindings return.
void set_python_error(PyObject* type, const char* message) noexcept;
nb::str text_to_python(const std::string& text);

}  // namespace zeroflow::python
