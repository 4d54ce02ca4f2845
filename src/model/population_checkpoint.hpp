#pragma once
/// @file population_checkpoint.hpp
/// Internal: the checkpoint of a population training (population.hpp), a safetensors
/// file sealed with io::content_checksum:
///
///   tensors   weights, exp_avg, exp_avg_sq (float32, packed in light_vae_layout.hpp's slot order),
///             epoch_loss (float64, one per epoch done)
///   metadata  format "zeroflow-population-checkpoint", format_version "1", epochs_done,
///             adam_step, noise_step, and the settings the steps depend on: width, rows,
///             rows_identity, seed, batch, learning_rate, test_fraction
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "trainer_options.hpp"

namespace zeroflow::model::detail {

/// The settings a checkpoint belongs to: a resumed run must have the same ones.
struct population_settings {
  std::int64_t width = 0;
  std::int64_t rows = 0;
  std::string rows_identity;
  std::uint64_t seed = 0;
  std::int64_t batch = 0;
  double learning_rate = 0;
  double test_fraction = 0;
};

struct population_checkpoint {
  population_settings settings;
  int epochs_done = 0;
  std::vector<double> epoch_loss;  ///< epochs_done values
  std::vector<float> weights;      ///< packed
  optimiser_state optimiser;
};

/// Writes `c` to `path` atomically (a temporary file beside it, flushed, renamed over it).
/// @throws error when the file cannot be written.
void write_population_checkpoint(const std::filesystem::path& path, const population_checkpoint& c);

/// Reads and verifies a checkpoint: its format, checksum and sizes, and that it belongs to
/// `expected` (the first setting that differs is named).
/// @throws invalid_argument naming the file and what is wrong.
[[nodiscard]] population_checkpoint read_population_checkpoint(const std::filesystem::path& path,
                                                               const population_settings& expected);

}  // namespace zeroflow::model::detail
