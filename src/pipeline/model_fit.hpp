#pragma once
// Private to the pipeline: whether a model file given to `run` scores rows made as this run's.
#include <cstdint>
#include <string>

#include "beat_model.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::pipeline::detail {

/// Refuses a model whose rows were made differently from this run's: its scores would rank
/// shapes it never saw (another rate, window or scaling), silently wrong. One line: what
/// differs, and the options that would make this run match the model.
/// @param file the model's name in the message.
/// @throws invalid_argument saying so.
void check_model_fits(const beat_model& scorer, const model::row_provenance& run, std::int64_t row_width,
                      const std::string& file);

}  // namespace zeroflow::pipeline::detail
