// Order statistics of scores (eval/quantile.hpp): the one quantile and Tukey's fence that
// `zeroflow timeseries` and zeroflow.sklearn's detectors use, on the scores' device.
#include <nanobind/nanobind.h>

#include "common.hpp"
#include "zeroflow/eval/quantile.hpp"

namespace zeroflow::python {

void bind_eval(nb::module_& m) {
  using namespace nb::literals;
  m.def(
      "_quantile",
      [](const py_array& scores, double q) {
        nb::gil_scoped_release release;
        return eval::quantile(scores.value, q, to_stream_view(scores.stream));
      },
      "scores"_a, "q"_a,
      "eval::quantile: the q-quantile of a 1-D float32/float64 array (numpy.quantile's linear method), computed "
      "on its device.");
  m.def(
      "_tukey_fence",
      [](const py_array& scores, double k) {
        eval::tukey_fence f;
        {
          nb::gil_scoped_release release;
          f = eval::tukey_fence_of(scores.value, k, to_stream_view(scores.stream));
        }
        return nb::make_tuple(f.q1, f.q3, f.lower(), f.upper());
      },
      "scores"_a, "k"_a = eval::tukey_k,
      "eval::tukey_fence_of: (q1, q3, lower fence q1 - k IQR, upper fence q3 + k IQR) of a 1-D float32/float64 "
      "array, computed on its device.");
}

}  // namespace zeroflow::python
