#pragma once
/// @file population_training.hpp
/// A population model from recordings to its model file, on the CPU or GPUs: the rows of every
/// recording (population_rows.hpp), the training (model/population.hpp), and on rank 0 the model
/// file with the rows' provenance (what `zeroflow score` checks) and the checkpoint removed once the
/// model is written. What the CLI's `train-population` and Python's zeroflow.population run.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "zeroflow/core/device.hpp"
#include "zeroflow/model/population.hpp"
#include "zeroflow/pipeline/population_rows.hpp"

namespace zeroflow::pipeline {

struct population_job {
  population_input input;              ///< the recordings and how to read them
  std::filesystem::path out;           ///< the model file rank 0 writes (replaced when it exists)
  model::population_options training;  ///< epochs, batch, seed, checkpoint, …; rows_identity is set here
  std::function<void(const std::string&)> progress;  ///< lines for a person (rank 0)
};

struct population_job_result {
  model::population_result training;
  std::int64_t beats = 0;            ///< rows of all recordings
  std::int64_t recordings = 0;       ///< that gave rows
  std::vector<std::string> skipped;  ///< "PATH: why", for the recordings this process read
  std::int64_t width = 0;
  double sample_rate = 0;
  bool mapped = false;  ///< rows in host memory mapped into the GPU
};

/// @param where the device of this process (the CPU or a GPU). @param group the processes training together (null:
/// alone).
/// @throws as load_population_rows and model::train_population do; error when the model file
///         cannot be written.
[[nodiscard]] population_job_result train_population_model(const population_job& job, device where,
                                                           model::gradient_group* group = nullptr);

}  // namespace zeroflow::pipeline
