// zeroflow.population's trainer: the library's population training (zeroflow's own trainers,
// pipeline/population_training.hpp) from Python, on the CPU or one GPU, alone or as one process of
// a group whose sums and broadcasts a Python object makes (zeroflow.population uses
// torch.distributed's gloo only as that transport). Several GPUs train through
// `zeroflow train-population --gpus N` (NCCL). Releases the GIL; progress and the group take it back.
#include "zeroflow/model/population.hpp"

#include <nanobind/ndarray.h>
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
#include "zeroflow/model/vae.hpp"
#include "zeroflow/pipeline/chunked.hpp"
#include "zeroflow/pipeline/population_training.hpp"

namespace zeroflow::python {

namespace {

/// A gradient group whose operations a Python object makes on NumPy views of the host data:
/// rank() and size(), sum(array) (in place, the group's sum) and broadcast(array, root). For CPU
/// models only: a GPU's sums are queued inside CUDA graphs, where no Python can run.
class python_group final : public model::gradient_group {
 public:
  explicit python_group(nb::object group)
      : group_{std::move(group)},
        rank_{nb::cast<int>(group_.attr("rank")())},
        size_{nb::cast<int>(group_.attr("size")())} {
    ZF_EXPECTS(size_ >= 1 && rank_ >= 0 && rank_ < size_, "the group says rank ", rank_, " of ", size_);
  }
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  void sum(float* data, std::int64_t n, stream_view) override { call("sum", data, n); }
  void sum(double* data, std::int64_t n, stream_view) override { call("sum", data, n); }
  void broadcast(float* data, std::int64_t n, int root, stream_view) override {
    const nb::gil_scoped_acquire gil;
    group_.attr("broadcast")(view_of(data, n), root);
  }

 private:
  /// A NumPy view of n values at `data`, valid for the call it is passed to. Its owner is a capsule
  /// that frees nothing: an ndarray without an owner would reach Python as a copy, and the
  /// group's in-place sums would be lost.
  template <class T>
  static nb::ndarray<nb::numpy, T, nb::ndim<1>> view_of(T* data, std::int64_t n) {
    const std::size_t shape[1] = {static_cast<std::size_t>(n)};
    const nb::capsule borrowed(data, [](void*) noexcept {});
    return nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, 1, shape, borrowed);
  }
  template <class T>
  void call(const char* name, T* data, std::int64_t n) {
    const nb::gil_scoped_acquire gil;
    group_.attr(name)(view_of(data, n));
  }

  nb::object group_;
  int rank_, size_;
};

}  // namespace

void bind_population(nb::module_& m) {
  using namespace nb::literals;
  m.def(
      "_train_population",
      [](const std::vector<std::string>& paths, const std::string& out, const std::string& lead,
         std::optional<double> sample_rate, int epochs, std::int64_t batch, std::uint64_t seed, double test_fraction,
         double learning_rate, const std::string& checkpoint, int checkpoint_every, bool resume,
         const std::string& max_device_memory, nb::handle where, int threads, nb::handle progress, nb::handle group) {
        const device on = parse_device(where);
        ZF_EXPECTS(group.is_none() || on.type == device_type::cpu,
                   "a group of Python processes trains on the CPU; several GPUs train with `zeroflow "
                   "train-population --gpus N` (NCCL)");
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
        if (threads > 0) model::set_cpu_threads(threads);
        std::optional<python_group> processes;
        if (!group.is_none()) processes.emplace(nb::borrow<nb::object>(group));
        pipeline::population_job_result r;
        {
          nb::gil_scoped_release release;
          r = pipeline::train_population_model(job, on, processes ? &*processes : nullptr);
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
      "learning_rate"_a, "checkpoint"_a, "checkpoint_every"_a, "resume"_a, "max_device_memory"_a, "device"_a,
      "threads"_a, "progress"_a.none(), "group"_a.none(),
      "Trains one LightVAE on the beats of every recording with zeroflow's own trainer on `device` (the CPU or "
      "a GPU) and writes `out` on rank 0 (zeroflow.population.train). `group`: None, or an object with rank(), "
      "size(), sum(array) and broadcast(array, root) over which CPU processes train together. Returns the "
      "losses, counts and skipped recordings.");
}

}  // namespace zeroflow::python
