#pragma once
/// @file population_rows.hpp
/// The training rows of many recordings for one population model (model/population.hpp): each
/// recording read and segmented as `zeroflow run` does (the robust segmentation's windows, robust
/// z-scores), on the CPU or a GPU, and every recording's rows in one array. Processes of a group share the
/// work: rank r reads recordings r, r + R, r + 2R, …, then each recording's rows are broadcast
/// from the process that read them, so that every process holds all rows (each process takes a
/// slice of every global batch, drawn from all recordings).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/model/population.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::pipeline {

struct population_input {
  std::vector<std::filesystem::path> recordings;
  io::recording_options read;         ///< the lead and the read method; `where` is set to the device
  double sample_rate = 250;           ///< of recordings that do not state theirs (CSV, raw)
  bool sample_rate_explicit = false;  ///< given by the user: a recording that states another rate is refused
  /// GPU only: bytes the rows may take on the GPU; beyond it they stay in page-locked host memory mapped
  /// into the GPU's address space (read across the bus by the training step). 0: the GPU's free
  /// memory less a quarter.
  std::size_t device_budget = 0;
  std::function<void(const std::string&)>
      progress;  ///< as recordings are read (rank 0): each when few, else every 20th
};

struct population_rows {
  array rows;                        ///< float32 N × W on the device (a GPU's: or mapped into it), recordings in order
  model::row_provenance provenance;  ///< how they were made (what `zeroflow score` checks)
  std::vector<std::int64_t> beats;   ///< per recording (0 for one that gave no rows)
  std::vector<std::string> skipped;  ///< "PATH: why", for the recordings this process read
  bool mapped = false;               ///< rows in host memory mapped into the GPU
  /// The recordings and their beat counts, hashed: what a checkpoint belongs to.
  std::string identity;
};

/// @param where the device this process trains on (the CPU or a GPU). @param group the processes
///        sharing the work (null: this process reads every recording).
/// @throws invalid_argument when no recording gives rows or the recordings' rows differ in width or
///         sample rate (one model scores only rows made like its training rows); a recording that
///         cannot be read or segmented is skipped and reported in `skipped`.
[[nodiscard]] population_rows load_population_rows(const population_input& input, device where,
                                                   model::gradient_group* group = nullptr);

}  // namespace zeroflow::pipeline
