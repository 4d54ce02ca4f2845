#pragma once
/// @file model_file.hpp
/// zeroflow's model files: safetensors (io/safetensors.hpp) whose tensors are the model's weights
/// under PyTorch's state_dict names, and whose "__metadata__" says what model it is and how its
/// rows were made, sealed with a checksum of the whole content (io::content_checksum).
///
///   format          "zeroflow-model"
///   format_version  "3" (format 2, a LibTorch archive with a trailer, is recognised and refused)
///   model           "lightvae" or "mlp" (as `zeroflow run --model` names them)
///   width           row width W (LightVAE) or features F (MLP)
///   rows.*          how the training rows were made (absent when never described):
///                   rows.sample_rate (Hz, 17 significant digits), rows.segmentation ("robust" or
///                   "gate-to-gate"; "seed", its earlier name, reads as gate-to-gate), rows.normalized
///                   ("1" robust z-scores, "0" raw), rows.window_before, rows.window_after,
///                   rows.min_length, rows.max_length (samples)
///   init_seed       the seed of the initial weights
///   train_seed      the last training's seed (absent when never trained)
///   epochs          epochs trained, over all trainings
///   checksum        io::content_checksum of everything else
///
/// Kinds add their own entries (the MLP's hidden and code widths). Every value is a string, as
/// the format requires; integers are written in decimal.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "zeroflow/io/safetensors.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model {

inline constexpr std::string_view model_file_format_name = "zeroflow-model";
inline constexpr std::string_view model_file_version = "3";

/// The metadata every kind shares.
struct model_file_header {
  std::string model;  ///< "lightvae" or "mlp"
  std::int64_t width = 0;
  std::optional<row_provenance> rows;
  training_history history;
};

/// The metadata entries that record `header` (no checksum yet).
[[nodiscard]] std::map<std::string, std::string> model_file_metadata(const model_file_header& header);

/// Parses a model file of format 3 and checks its format name, version and checksum, then reads
/// the shared metadata (a row provenance a run could make, a width > 0, epochs >= 0).
/// @throws zeroflow::error saying what is wrong (the caller names the file).
[[nodiscard]] std::pair<io::safetensors_content, model_file_header> open_model_file(std::string_view bytes);

/// The float32 tensor `name` of `content` with exactly `shape`, its values copied out; refuses
/// NaN and infinity. @throws zeroflow::error saying what is wrong.
[[nodiscard]] std::vector<float> read_float_tensor(const io::safetensors_content& content, const std::string& name,
                                                   const std::vector<std::int64_t>& shape);

}  // namespace zeroflow::model
