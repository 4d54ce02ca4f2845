// zeroflow.population's path on a GPU: the library's population training (zeroflow's fused step,
// pipeline/population_training.hpp) from Python, one process and one GPU; several GPUs train
// through `zeroflow train-population --gpus N`. Releases the GIL; progress takes it back.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "results.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/pipeline/chunked.hpp"
#include "zeroflow/pipeline/population_training.hpp"

namespace zeroflow::python {

void bind_population(nb::module_& m) {
  using namespace nb::literals;
  m.def(
      "_train_population_on_gpu",
      [](const std::vector<std::string>& paths, const std::string& out, const std::string& lead,
         std::optional<double> sample_rate, int epochs, std::int64_t batch, std::uint64_t seed, double test_fraction,
         double learning_rate, const std::string& checkpoint, int checkpoint_every, bool resume,
         const std::string& max_device_memory, int gpu, nb::handle progress) {
        pipeline::population_job job;
        for (const auto& p : paths) job.input.recordings.emplace_back(p);
        job.input.read.lead = lead;
        if (sample_rate) {
          job.input.sample_rate = *sample_rate;
          job.input.sample_rate_explicit = true;
        }
        if (!max_device_memory.empty())
          job.input.device_budget = static_cast<std::size_t>(pipeline::parse_byte_size(max_device_memory));
        job.out = out;
        job.training.epochs = epochs;
        job.training.batch = batch;
        job.training.seed = seed;
        job.training.test_fraction = test_fraction;
        job.training.learning_rate = learning_rate;
        job.training.checkpoint = checkpoint;
        job.training.checkpoint_every = checkpoint_every;
        job.training.resume = resume;
        if (!progress.is_none()) {
          job.progress = python_callback<const std::string&>(progress);
          auto line = job.progress;
          job.training.on_epoch = [line, epochs](int epoch, double loss) {
            char text[96];
            std::snprintf(text, sizeof text, "epoch %d/%d  loss %.6f", epoch + 1, epochs, loss);
            line(text);
          };
        }
        pipeline::population_job_result r;
        {
          nb::gil_scoped_release release;
          r = pipeline::train_population_model(job, cuda_device(gpu));
        }
        nb::dict d;
        d["epoch_loss"] = r.training.epoch_loss;
        d["test_loss"] = r.training.test_loss;
        d["train_beats"] = r.training.train_rows;
        d["test_beats"] = r.training.test_rows;
        d["first_epoch"] = r.training.first_epoch;
        d["train_seconds"] = r.training.train_seconds;
        d["beats"] = r.beats;
        d["recordings"] = r.recordings;
        d["skipped"] = r.skipped;
        d["width"] = r.width;
        d["sample_rate"] = r.sample_rate;
        return d;
      },
      "paths"_a, "out"_a, "lead"_a, "sample_rate"_a.none(), "epochs"_a, "batch"_a, "seed"_a, "test_fraction"_a,
      "learning_rate"_a, "checkpoint"_a, "checkpoint_every"_a, "resume"_a, "max_device_memory"_a, "gpu"_a,
      "progress"_a.none(),
      "Trains one LightVAE on the beats of every recording with zeroflow's fused step on GPU `gpu` and writes "
      "`out` (zeroflow.population.train's GPU path). Returns the losses, counts and skipped recordings.");
}

}  // namespace zeroflow::python
