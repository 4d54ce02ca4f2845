#pragma once
// zeroflow train-population with zeroflow's own trainers over the beats of every recording
// (model/population.hpp): on the CPU in this process (the kernels spread over its cores), or on
// GPUs data-parallel with NCCL, one process per GPU started by this one. No Python and no LibTorch.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::cli {

struct population_run_flags {
  std::vector<std::string> inputs;
  std::string out, lead;
  // The run's defaults are the library's (pipeline/run_types.hpp): written once.
  double sample_rate = pipeline::run_options{}.segmentation.sample_rate;
  bool sample_rate_given = false;
  int epochs = pipeline::run_options{}.epochs, gpus = 1, checkpoint_every = 1;
  bool cpu = false;                                    // train on the CPU (gpus and max_device_memory then unused)
  int threads = 0;                                     // the CPU kernels' threads; 0: every CPU this process may run on
  std::int64_t batch = pipeline::run_options{}.batch;  // rows per step over all GPUs
  std::uint64_t seed = pipeline::run_options{}.seed;
  std::string checkpoint;         // empty: OUT.checkpoint
  std::string max_device_memory;  // bytes the rows may take on a GPU (e.g. 40G); empty: its free memory less a quarter
  bool resume = false, force = false;
  // Set by the process that starts one process per GPU, for each of them.
  int rank = -1;
  std::string group;
};

/// Whether `path` is a safetensors file whose metadata names `format` ("zeroflow-model",
/// "zeroflow-population-checkpoint"): a file zeroflow wrote, read from its header alone.
[[nodiscard]] bool zeroflow_file_of_format(const std::filesystem::path& path, const std::string& format);

/// The checkpoint a run keeps: --checkpoint, else the model file's path with ".checkpoint" added.
[[nodiscard]] std::filesystem::path checkpoint_path(const population_run_flags& f);

/// Trains on the CPU (f.cpu) or a GPU (or, with gpus > 1 and no rank, starts one process per GPU
/// and waits for them). The command has refused an existing model file without --force already (a
/// usage error). Returns the exit status. @throws zeroflow::error on bad input or a failed training.
int train_population_own(const population_run_flags& f);

}  // namespace zeroflow::cli
