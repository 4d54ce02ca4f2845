// The extension module zeroflow._zeroflow: exception types and the binding files.
#include "common.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/pipeline/run_option_table.hpp"

namespace zeroflow::python {
PyObject* copy_warning_type = nullptr;
}

namespace {
PyObject* error_type = nullptr;
PyObject* cuda_error_type = nullptr;
PyObject* parse_error_type = nullptr;

PyObject* new_exception(nb::module_& m, const char* name, PyObject* base, const char* doc) {
  const std::string qualified = std::string("zeroflow.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, nullptr);
  if (type == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(type);
  return type;
}
}  // namespace

NB_MODULE(_zeroflow, m) {
  m.doc() = "zeroflow's compiled core (import zeroflow, not this module).";
  error_type = new_exception(m, "Error", PyExc_RuntimeError, "Base of zeroflow's own errors.");
  cuda_error_type = new_exception(m, "CudaError", error_type, "A CUDA call failed, or CUDA is needed and absent.");
  parse_error_type = new_exception(m, "ParseError", PyExc_ValueError,
                                   "Input data that does not parse; the message names file, line and column.");
  zeroflow::python::copy_warning_type =
      new_exception(m, "CopyWarning", PyExc_UserWarning, "zeroflow copied data it could not use in place (copy=None).");
  // zeroflow's C++ exceptions, as Python's: bad arguments are ValueError, allocation failures
  // MemoryError, bad data ParseError (a ValueError), CUDA failures CudaError. The options a message
  // names are spelled as Python passes them (max_device_memory=).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    const auto set = [](PyObject* type, const char* what) {
      const auto text = zeroflow::pipeline::spell_options(what, zeroflow::python::python_keyword);
      zeroflow::python::set_python_error(type, text.c_str());
    };
    try {
      std::rethrow_exception(p);
    } catch (const zeroflow::parse_error& e) {
      set(parse_error_type, e.what());
    } catch (const zeroflow::invalid_argument& e) {
      set(PyExc_ValueError, e.what());
    } catch (const zeroflow::out_of_memory& e) {
      set(PyExc_MemoryError, e.what());
    } catch (const zeroflow::cuda_error& e) {
      set(cuda_error_type, e.what());
    } catch (const zeroflow::error& e) {
      set(error_type, e.what());
    }
  });
  m.attr("__version__") = ZEROFLOW_VERSION;
  m.attr("has_cuda") = bool{ZEROFLOW_HAS_CUDA};
  m.attr("has_torch") = bool{ZEROFLOW_HAS_TORCH};
  zeroflow::python::bind_array(m);
  zeroflow::python::bind_arrow(m);
  zeroflow::python::bind_memory(m);
  zeroflow::python::bind_io(m);
  zeroflow::python::bind_signal(m);
  zeroflow::python::bind_model(m);
  zeroflow::python::bind_model_file(m);
  zeroflow::python::bind_eval(m);
  zeroflow::python::bind_classify(m);
  zeroflow::python::bind_holter(m);
  zeroflow::python::bind_timeseries(m);
  zeroflow::python::bind_synth(m);
  zeroflow::python::bind_run_options(m);
  zeroflow::python::bind_population(m);
}
