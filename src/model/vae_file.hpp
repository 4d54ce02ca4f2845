#pragma once
// Private to src/model (and its tests): the model file's layout. A model file is a LibTorch
// archive (torch::serialize::OutputArchive) holding, beside the LightVAE's parameters and
// buffers, the metadata entries below and a checksum over all of them:
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
//   checksum           int64  model_checksum of the entries above and the weights (its bits)
//
// LibTorch's archive reader does not verify the zip's own CRCs, so a byte flipped inside a weight
// would load silently; the checksum catches it.
#include <torch/serialize/input-archive.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "zeroflow/model/detail/light_vae.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model::detail {

/// Format 1 recorded only the width; format 2 adds the row provenance, history and checksum.
inline constexpr std::int64_t model_file_format = 2;

/// What a model file says about its model besides the weights.
struct model_metadata {
  std::int64_t width = 0;
  std::optional<row_provenance> rows;
  training_history history;
};

/// Named metadata tensors (CPU), in the order the checksum takes them.
using metadata_entries = std::vector<std::pair<std::string, torch::Tensor>>;

/// The entries that record `meta` (the layout above, without the checksum).
[[nodiscard]] metadata_entries metadata_to_entries(const model_metadata& meta);

/// Reads the entries of the layout above from `archive`, in order; an entry that is missing or
/// has the wrong type or shape throws zeroflow::error (the caller names the file).
[[nodiscard]] metadata_entries read_metadata_entries(torch::serialize::InputArchive& archive);

/// The metadata the entries record. Entries that no save() writes (an unknown segmentation code,
/// a negative window, a sample rate that is not a positive number) throw zeroflow::error.
[[nodiscard]] model_metadata entries_to_metadata(const metadata_entries& entries);

/// FNV-1a (64-bit) over every entry (name, dtype, shape, bytes), then every parameter and buffer
/// of `module` (name, dtype, shape, bytes, as float32 on the host) in registration order.
[[nodiscard]] std::uint64_t model_checksum(const metadata_entries& entries, const light_vae& module);

/// Writes `module` with `meta` and their checksum to `file` (not atomically, no checks: vae::save
/// adds those). Tests use it to make files that save() would refuse to write.
void write_model_archive(const model_metadata& meta, const light_vae& module, std::ostream& file);

}  // namespace zeroflow::model::detail
