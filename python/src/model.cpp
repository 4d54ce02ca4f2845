// The models (the VAE and the MLP autoencoder: train, score, decode, save/load) and the whole
// pipeline (run), on zeroflow's own kernels. Long calls release the GIL; progress callbacks take it back.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "results.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#include "zeroflow/model/vae.hpp"
#include "zeroflow/pipeline/chunked.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/pipeline/run_option_table.hpp"
#include "zeroflow/report/outputs.hpp"
#include "zeroflow/report/png_figures.hpp"
#include "zeroflow/report/summary_json.hpp"
#include "zeroflow/signal/params.hpp"

namespace zeroflow::python {

namespace {

nb::dict train_result_dict(model::train_result r) {
  nb::dict d;
  d["epoch_loss"] = r.epoch_loss;
  d["test_loss"] = r.test_loss;
  d["train_index"] = py_array{r.train_index, legacy_stream};
  d["test_index"] = py_array{r.test_index, legacy_stream};
  return d;
}

/// A row description as a dict (the keys of model::row_provenance), or None.
nb::object rows_dict(const std::optional<model::row_provenance>& rows) {
  if (!rows) return nb::none();
  nb::dict d;
  d["sample_rate"] = rows->sample_rate;
  d["segmentation"] = rows->segmentation;
  d["normalized"] = rows->normalized;
  d["window_before"] = rows->window_before;
  d["window_after"] = rows->window_after;
  d["min_length"] = rows->min_length;
  d["max_length"] = rows->max_length;
  return d;
}

nb::dict result_dict(pipeline::run_result r, const pipeline::run_options& options) {
  nb::dict d;
  d["summary"] = json_to_python(report::summary_json(r, options));
  d["input"] = r.input;
  d["device"] = r.where.name();
  d["samples"] = r.samples;
  d["sample_rate"] = r.sample_rate;
  d["row_width"] = r.sizes.row_width;
  d["norm"] = r.norm;
  d["epoch_loss"] = r.epoch_loss;
  d["test_loss"] = r.test_loss;
  d["trained"] = r.trained;
  d["peak_host_bytes"] = r.peak_host_bytes;
  d["peak_device_bytes"] = r.peak_device_bytes;
  d["model_file"] = r.model_file.string();
  nb::dict stages;
  for (const auto& s : r.stages) stages[s.name.c_str()] = s.milliseconds;
  d["stages_ms"] = stages;
  std::vector<std::int8_t> split(r.split.size());
  for (std::size_t i = 0; i < split.size(); ++i) split[i] = r.split[i] == 't' ? 1 : r.split[i] == 'v' ? 2 : 0;
  const auto decoded = static_cast<std::int64_t>(r.decoded_grid.size());
  d["start"] = host_array(std::move(r.start), int64);
  d["peak"] = host_array(std::move(r.peak), int64);
  d["length"] = host_array(std::move(r.length), int64);
  d["kept"] = host_array(std::move(r.kept), bool8);
  d["split"] = host_array(std::move(split), int8);
  d["score"] = host_array(std::move(r.score), float32);
  d["mu0"] = host_array(std::move(r.mu0), float32);
  d["mu1"] = host_array(std::move(r.mu1), float32);
  d["histogram"] = host_array(std::move(r.histogram), int64);
  d["detected_peaks"] = host_array(std::move(r.detected_peaks), int64);
  py_array grid = host_array(std::move(r.decoded_grid), float32);
  if (r.sizes.row_width > 0 && decoded % r.sizes.row_width == 0)
    grid.value = grid.value.reshape({decoded / r.sizes.row_width, r.sizes.row_width});
  d["decoded_grid"] = grid;
  return d;
}

}  // namespace

void bind_model(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<model::vae>(m, "VAE",
                         "The seed's LightVAE on one device: train on beat rows, score them (reconstruction error "
                         "from the latent mean), decode a latent grid, save and load.")
      .def(nb::new_([](std::int64_t width, nb::handle device, std::uint64_t seed) {
             return model::vae::create(width, parse_device(device), seed);
           }),
           "width"_a, "device"_a = "cpu", "seed"_a = 42,
           "A freshly initialised model for rows of `width` samples (a power of two >= 16).")
      .def_static(
          "load",
          [](const std::string& path, nb::handle device) { return model::vae::load(path, parse_device(device)); },
          "path"_a, "device"_a = "cpu", "Reads a model written by save() (or `zeroflow run`'s model.safetensors).")
      .def(
          "_train",
          [](model::vae& self, const py_array& rows, int epochs, int batch, double test_fraction, std::uint64_t seed,
             double learning_rate, nb::handle on_epoch) {
            model::train_options o;
            o.epochs = epochs;
            o.batch = batch;
            o.test_fraction = test_fraction;
            o.seed = seed;
            o.learning_rate = learning_rate;
            if (!on_epoch.is_none()) o.on_epoch = python_callback<int, double>(on_epoch);
            model::train_result r;
            {
              nb::gil_scoped_release release;
              r = self.train(rows.value, o);
            }
            return train_result_dict(std::move(r));
          },
          "rows"_a, "epochs"_a, "batch"_a, "test_fraction"_a, "seed"_a, "learning_rate"_a, "on_epoch"_a.none())
      .def(
          "_score",
          [](const model::vae& self, const py_array& rows, std::int64_t batch) {
            model::scores s;
            {
              nb::gil_scoped_release release;
              s = self.score(rows.value, batch);
            }
            return nb::make_tuple(py_array{s.score, legacy_stream}, py_array{s.mu, legacy_stream});
          },
          "rows"_a, "batch"_a)
      .def(
          "decode_grid",
          [](const model::vae& self, int n, double extent) {
            nb::gil_scoped_release release;
            return py_array{self.decode_grid(n, extent), legacy_stream};
          },
          "n"_a = 5, "extent"_a = 2.0,
          "Decodes the n x n latent grid linspace(-extent, extent, n)^2: an (n*n, width) float32 array.")
      .def(
          "save", [](const model::vae& self, const std::string& path) { self.save(path); }, "path"_a,
          "Writes the model atomically (a safetensors model file).")
      .def(
          "_describe_rows",
          [](model::vae& self, double sample_rate, const std::string& method, bool normalized, double min_beat,
             double max_beat, double before, double after) {
            // Described exactly as `zeroflow run` describes its rows, so that `zeroflow score` compares
            // like with like (windows in samples from the same rounding).
            signal::segment_params p;
            const auto named = signal::segmentation_named(method);
            ZF_EXPECTS(named.has_value(), "method must be 'robust' or 'gate-to-gate', not '", method, "'");
            p.method = *named;
            p.sample_rate = sample_rate;
            p.normalize_rows = normalized;
            p.min_beat_seconds = min_beat;
            p.max_beat_seconds = max_beat;
            p.window_before_seconds = before;
            p.window_after_seconds = after;
            const auto sizes = signal::sizes_for(p);
            ZF_EXPECTS(sizes.row_width == self.width(), "rows made this way are ", sizes.row_width,
                       " samples wide, but the model's are ", self.width(),
                       ": describe the rows it was trained on (the segmentation's sample rate and windows)");
            self.describe_rows(pipeline::rows_made_by(p, sizes));
          },
          "sample_rate"_a, "method"_a, "normalized"_a, "min_beat_seconds"_a, "max_beat_seconds"_a,
          "window_before_seconds"_a, "window_after_seconds"_a)
      .def_prop_ro("described_rows", [](const model::vae& self) { return rows_dict(self.described_rows()); })
      .def_prop_ro("width", &model::vae::width)
      .def_prop_ro("device", [](const model::vae& self) { return self.where().name(); })
      .def_prop_ro("parameter_count", &model::vae::parameter_count);

  nb::class_<model::mlp_autoencoder>(
      m, "MLPAutoencoder",
      "The seed-004 MLP autoencoder (features -> hidden -> code -> hidden -> features, ReLU, sigmoid output) on one "
      "device: train with Adam on the mean squared error, score rows by their reconstruction error.")
      .def(nb::new_([](std::int64_t features, std::int64_t hidden, std::int64_t code, nb::handle device,
                       std::uint64_t seed) {
             return model::mlp_autoencoder::create({features, hidden, code}, parse_device(device), seed);
           }),
           "features"_a = 1, "hidden"_a = 32, "code"_a = 32, "device"_a = "cpu", "seed"_a = 42,
           "A freshly initialised model (the notebook's initial weights for the same seed).")
      .def_static(
          "from_bytes",
          [](nb::bytes data, nb::handle device, const std::string& what) {
            const std::string copy(data.c_str(), data.size());
            nb::gil_scoped_release release;
            return model::mlp_autoencoder::from_bytes(copy, parse_device(device), what);
          },
          "data"_a, "device"_a = "cpu", "what"_a = "the model bytes", "A model from to_bytes().")
      .def_static(
          "load",
          [](const std::string& path, nb::handle device) {
            return model::mlp_autoencoder::load(path, parse_device(device));
          },
          "path"_a, "device"_a = "cpu", "Reads a model written by save().")
      .def(
          "_train",
          [](model::mlp_autoencoder& self, const py_array& rows, int epochs, std::int64_t batch, double learning_rate,
             double weight_decay, std::uint64_t seed, nb::handle on_epoch) {
            model::mlp_train_options o;
            o.epochs = epochs;
            o.batch = batch;
            o.learning_rate = learning_rate;
            o.weight_decay = weight_decay;
            o.seed = seed;
            if (!on_epoch.is_none()) o.on_epoch = python_callback<int, double>(on_epoch);
            if (rows.value.where().type == device_type::cuda)
              stream_wait(legacy_stream, rows.stream, rows.value.where().id);
            nb::gil_scoped_release release;
            return self.train(rows.value, o).epoch_loss;
          },
          "rows"_a, "epochs"_a, "batch"_a, "learning_rate"_a, "weight_decay"_a, "seed"_a, "on_epoch"_a.none())
      .def(
          "_score",
          [](const model::mlp_autoencoder& self, const py_array& rows) {
            if (rows.value.where().type == device_type::cuda)
              stream_wait(legacy_stream, rows.stream, rows.value.where().id);
            nb::gil_scoped_release release;
            return py_array{self.score(rows.value), legacy_stream};
          },
          "rows"_a, "Per row: mean of (reconstruction - row)^2, float32, on the rows' device.")
      .def(
          "_reconstruct",
          [](const model::mlp_autoencoder& self, const py_array& rows) {
            if (rows.value.where().type == device_type::cuda)
              stream_wait(legacy_stream, rows.stream, rows.value.where().id);
            nb::gil_scoped_release release;
            return py_array{self.reconstruct(rows.value), legacy_stream};
          },
          "rows"_a)
      .def(
          "to_bytes",
          [](const model::mlp_autoencoder& self) {
            const std::string data = self.to_bytes();
            return nb::bytes(data.data(), data.size());
          },
          "The widths and weights as bytes (for pickle).")
      .def(
          "save", [](const model::mlp_autoencoder& self, const std::string& path) { self.save(path); }, "path"_a,
          "Writes the model atomically.")
      .def_prop_ro("features", [](const model::mlp_autoencoder& self) { return self.shape().features; })
      .def_prop_ro("hidden", [](const model::mlp_autoencoder& self) { return self.shape().hidden; })
      .def_prop_ro("code", [](const model::mlp_autoencoder& self) { return self.shape().code; })
      .def_prop_ro("device", [](const model::mlp_autoencoder& self) { return self.where().name(); })
      .def_prop_ro("parameter_count", &model::mlp_autoencoder::parameter_count);

  m.def("set_cpu_threads", &model::set_cpu_threads, "threads"_a,
        "Threads of the models' own CPU kernels (process-wide); a training's result is the same bits for any count.");
  m.def("cpu_threads", &model::cpu_threads);
  m.def(
      "_run",
      [](const std::string& input, const std::vector<std::pair<std::string, std::string>>& given, nb::handle progress,
         const std::string& model_out, nb::handle out, bool png_figures) {
        pipeline::run_options o = pipeline::make_run_options(given);
        o.input = input;
        if (!progress.is_none()) o.progress = python_callback<const std::string&>(progress);
        const std::string folder = out.is_none() ? std::string() : nb::cast<std::string>(nb::str(out));
        pipeline::run_result r;
        {
          nb::gil_scoped_release release;
          r = pipeline::run(o, model_out);
          if (!folder.empty()) {
            report::write_all(r, o, folder);
            if (png_figures) (void)report::write_png_figures(r, o, std::filesystem::path(folder) / "figures");
          }
        }
        return result_dict(std::move(r), o);
      },
      "input"_a, "given"_a, "progress"_a.none(), "model_out"_a, "out"_a.none(), "png_figures"_a = false);
}

}  // namespace zeroflow::python
