// The seed-004 pipeline in one call (pipeline/timeseries_pipeline.hpp).
// The call releases the GIL; progress callbacks take it back.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>

#include "common.hpp"
#include "results.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/pipeline/timeseries_pipeline.hpp"
#include "zeroflow/report/timeseries_outputs.hpp"

namespace zeroflow::python {

namespace {

nb::dict timeseries_dict(pipeline::timeseries_result r, const pipeline::timeseries_options& options) {
  nb::dict d;
  d["summary"] = json_to_python(report::timeseries_summary_json(r, options));
  d["column"] = r.column;
  d["device"] = r.where.name();
  d["threshold"] = r.threshold;
  d["q1"] = r.fence.q1;
  d["q3"] = r.fence.q3;
  d["epoch_loss"] = r.epoch_loss;
  nb::dict stages;
  for (const auto& s : r.stages) stages[s.name.c_str()] = s.milliseconds;
  d["stages_ms"] = stages;
  d["value"] = host_array(std::move(r.value), float32);
  d["scaled"] = host_array(std::move(r.scaled), float32);
  d["reconstruction"] = host_array(std::move(r.reconstruction), float32);
  d["score"] = host_array(std::move(r.score), float32);
  d["outlier"] = host_array(std::move(r.outlier), bool8);
  if (r.evaluation)
    d["label"] = host_array(std::move(r.evaluation->label), bool8);
  else
    d["label"] = nb::none();
  return d;
}

}  // namespace

void bind_timeseries(nb::module_& m) {
  using namespace nb::literals;
  m.def(
      "_run_timeseries",
      [](const std::string& input, const std::string& column, const std::string& device, int epochs, std::int64_t batch,
         double learning_rate, double weight_decay, std::uint64_t seed, nb::handle labels, nb::handle progress,
         const std::string& loading) {
        pipeline::timeseries_options o;
        o.input = input;
        o.column = column;
        o.where = pipeline::parse_device_choice(device);
        o.epochs = epochs;
        o.batch = batch;
        o.learning_rate = learning_rate;
        o.weight_decay = weight_decay;
        o.seed = seed;
        o.io = io::parse_io_method(loading);
        if (!labels.is_none()) o.labels = nb::cast<std::string>(nb::str(labels));
        if (!progress.is_none()) o.progress = python_callback<const std::string&>(progress);
        pipeline::timeseries_result r;
        {
          nb::gil_scoped_release release;
          r = pipeline::run_timeseries(o);
        }
        return timeseries_dict(std::move(r), o);
      },
      "input"_a, "column"_a, "device"_a, "epochs"_a, "batch"_a, "learning_rate"_a, "weight_decay"_a, "seed"_a,
      "labels"_a.none(), "progress"_a.none(), "io"_a = "auto");
}

}  // namespace zeroflow::python
