#pragma once
// Private to src/model (and its tests): the LightVAE's model files. save() writes format 3, a
// safetensors file (model/model_file.hpp) whose tensors are the module's parameters and buffers
// under their state_dict names (sigma.alpha, down.filter, conv0.weight, ..., restore.bias).
//
// load() also reads format 2, which earlier zeroflows wrote (model.pt): a LibTorch
// archive (the bytes of torch::serialize::OutputArchive::save_to) followed by a 32-byte trailer:
//
//   u64 LE  archive length in bytes (the file's size minus 32)
//   u64 LE  FNV-1a (64-bit) of the archive's bytes
//   u64 LE  model_file_format
//   8 bytes "ZEROFLOW"
//
// The archive is handed to LibTorch only after the trailer and the checksum match: LibTorch's
// reader checks no CRC, and a damaged pickle inside it can make it spend half a minute or
// allocate without bound before it fails. FNV-1a changes with every single changed byte. The
// archive holds the LightVAE's parameters and buffers and these metadata entries:
//
//   zeroflow_format    int64  model_file_format
//   width              int64  row width W
//   rows_described     int64  1 when the row provenance below is recorded, 0 when not
//   rows_sample_rate   double Hz
//   rows_segmentation  int64  1 robust, 2 seed (0 when not described)
//   rows_normalized    int64  1 robust z-scores, 0 raw samples
//   rows_window        int64  [window_before, window_after] (samples)
//   rows_lengths       int64  [min_length, max_length] (samples)
//   init_seed          int64  vae::create's seed (its bits)
//   train_seed         int64  [1 when trained, the last training's seed (its bits)]
//   epochs             int64  epochs trained
#include <torch/serialize/input-archive.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "light_vae.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model::detail {

/// Format 1 was a bare archive recording only the width; format 2 adds the trailer, the row
/// provenance and the history; format 3 is safetensors.
inline constexpr std::int64_t model_file_format = 2;
inline constexpr std::size_t trailer_bytes = 32;

/// What a model file says about its model besides the weights.
struct model_metadata {
  std::int64_t width = 0;
  std::optional<row_provenance> rows;
  training_history history;
};

/// Named metadata tensors (CPU), in the layout's order.
using metadata_entries = std::vector<std::pair<std::string, torch::Tensor>>;

/// The entries that record `meta`.
[[nodiscard]] metadata_entries metadata_to_entries(const model_metadata& meta);

/// Reads the layout's entries from `archive`; an entry that is missing or has the wrong type or
/// size throws zeroflow::error (the caller names the file).
[[nodiscard]] metadata_entries read_metadata_entries(torch::serialize::InputArchive& archive);

/// The metadata the entries record. Entries that no save() writes (an unknown segmentation code,
/// a negative window, a sample rate that is not a positive number) throw zeroflow::error.
[[nodiscard]] model_metadata entries_to_metadata(const metadata_entries& entries);

/// FNV-1a (64-bit) of `bytes`.
[[nodiscard]] std::uint64_t fnv1a(std::string_view bytes);

/// The bytes of a format-3 file of `module` with `meta` (no checks: vae::save adds those). Tests
/// use it to make files that save() would refuse to write.
[[nodiscard]] std::string model_file_bytes(const model_metadata& meta, const light_vae& module);

/// Writes `module` with `meta` as format 2 (the LibTorch archive and its trailer) to `file`: the
/// files earlier zeroflows wrote, for the tests that they are still read.
void write_format2_file(const model_metadata& meta, const light_vae& module, std::ostream& file);

/// The archive inside a model file's bytes, once the trailer and the checksum match.
/// @throws zeroflow::error saying what is wrong (the caller names the file).
[[nodiscard]] std::string_view verified_archive(std::string_view file);

}  // namespace zeroflow::model::detail
