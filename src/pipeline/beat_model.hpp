#pragma once
// The model that scores the beats' shapes in a run, whichever kind was chosen (`zeroflow run
// --model`): the seed's LightVAE, or the seed-004 MLP autoencoder on min-max scaled rows. Private
// to the pipeline; it also reads and writes the model file, so that `zeroflow score` takes either
// kind.
//
// Both kinds write format 3, safetensors (model/model_file.hpp); the LightVAE's file is
// model::vae's (model/vae.hpp), the MLP autoencoder's is written here (mlp_file_bytes). An MLP
// file of format 2, which earlier zeroflows wrote (a LibTorch archive, JSON metadata and a
// trailer ending in "ZFMLPAE\0"), is recognised and refused with a reason.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#include "zeroflow/model/vae.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"

namespace zeroflow::pipeline::detail {

/// The last 8 bytes, and the trailer's length, of an MLP autoencoder's model file of format 2 (a
/// LibTorch archive and JSON metadata before a trailer), which earlier builds wrote: recognised,
/// to be refused with a reason.
inline constexpr std::string_view mlp_file_magic{"ZFMLPAE\0", 8};
inline constexpr std::size_t mlp_trailer_bytes = 40;

/// The min-max autoencoder and the scaling of its input rows.
struct scaled_mlp {
  model::mlp_autoencoder net;
  array scale, offset;  ///< float32 (W) on the model's device
  std::optional<model::row_provenance> rows;
  std::uint64_t seed = 42;
  std::int64_t epochs = 0;
};

/// What training reports, for either kind (as model::train_result).
using trained_model = model::train_result;

class beat_model {
 public:
  /// A new model of `kind` for rows of `row_width` samples on `where`.
  [[nodiscard]] static beat_model create(model_kind kind, std::int64_t row_width, device where, std::uint64_t seed);
  /// A model file written by save() (either kind), onto `where`.
  /// @throws zeroflow::error naming the file and what is wrong with it.
  [[nodiscard]] static beat_model load(const std::filesystem::path& file, device where);

  /// Trains on `rows` (N × W). The LightVAE as model::vae::train (75/25 split); the MLP
  /// autoencoder learns the rows' min-max scaling, then trains on every scaled row (the seed-004
  /// notebook holds none out: train_index is every row, test_index empty, test_loss NaN).
  /// @param batch rows per step; 0: all of them (MLP only).
  trained_model train(const array& rows, int epochs, int batch, std::uint64_t seed,
                      const std::function<void(int, double)>& on_epoch, stream_view stream);

  /// Per row: the reconstruction error (score) and, for the LightVAE, the latent mean (mu, N × 2;
  /// an invalid array for the MLP autoencoder, which has no 2-D latent).
  [[nodiscard]] model::scores score(const array& rows, stream_view stream) const;
  /// The LightVAE's 5 × 5 latent grid decoded; an invalid array for the MLP autoencoder.
  [[nodiscard]] array decode_grid() const;

  void describe_rows(const model::row_provenance& rows);
  [[nodiscard]] std::optional<model::row_provenance> described_rows() const;
  [[nodiscard]] std::int64_t width() const;
  [[nodiscard]] model_kind kind() const;
  /// Writes the model file atomically.
  void save(const std::filesystem::path& path, stream_view stream) const;
  /// Name, layers and parameters, for summary.json.
  [[nodiscard]] model_summary summary() const;

 private:
  explicit beat_model(std::variant<model::vae, scaled_mlp> m) : model_{std::move(m)} {}
  std::variant<model::vae, scaled_mlp> model_;
};

/// The model file's bytes (format 3, model/model_file.hpp) for an MLP autoencoder and its scaling
/// (host vectors of W floats): the network's weights, "scale" and "offset" (W floats each), and
/// the hidden and code widths in the metadata.
[[nodiscard]] std::string mlp_file_bytes(const model::mlp_autoencoder& net, const std::vector<float>& scale,
                                         const std::vector<float>& offset,
                                         const std::optional<model::row_provenance>& rows, std::uint64_t seed,
                                         std::int64_t epochs);

/// True when `bytes` end as an MLP autoencoder's model file of format 2 does (the magic only; not verified).
[[nodiscard]] bool is_mlp_file(std::string_view bytes);

}  // namespace zeroflow::pipeline::detail
