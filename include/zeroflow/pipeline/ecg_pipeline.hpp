#pragma once
/// @file ecg_pipeline.hpp
/// The ECG outlier pipeline of the seeds, end to end: load a CSV column, segment it into
/// beats, train the VAE, score every kept beat, and (when labels are known) evaluate.
/// Stages hand arrays to each other on one device; nothing crosses to the host between
/// loading and the final results except the scalars the control flow needs.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/model/vae.hpp"
#include "zeroflow/pipeline/run_types.hpp"
#include "zeroflow/signal/segment.hpp"

namespace zeroflow::pipeline {

[[nodiscard]] device resolve(device_choice choice);

/// How rows made with `params` (whose windows in samples are `sizes`) are described in a model
/// file: what a model must have been trained on for `zeroflow score` to use it on such rows.
[[nodiscard]] model::row_provenance rows_made_by(const signal::segment_params& params,
                                                 const signal::segment_sizes& sizes);

/// Runs the whole pipeline; saves the trained model to `model_out` when it is not empty.
/// Throws zeroflow::error (parse_error, invalid_argument, cuda_error...) with a clear message.
[[nodiscard]] run_result run(const run_options& options, const std::filesystem::path& model_out = {});

}  // namespace zeroflow::pipeline
