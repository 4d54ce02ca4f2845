#pragma once
/// @file mlp_autoencoder.hpp
/// The seed-004 notebook's MLP autoencoder (docs/architecture.md, the seed pipelines): F → hidden → code → hidden → F,
/// ReLU after the first three layers and a sigmoid on the output (so it reconstructs values in [0, 1], i.e. min-max
/// scaled data), trained with Adam (learning rate 0.01, L2 weight decay 1e-5) on the mean squared error. With the
/// defaults (F = 1, hidden = code = 32, the whole series as one batch, 100 epochs) it is the notebook's model and
/// training loop. The reconstruction error of a row is its anomaly score.
///
/// It trains and scores with zeroflow's own kernels on either device (the fused_kernels training
/// path; LibTorch is never loaded): on the CPU every model, on a GPU a model of the widths the fused
/// step's shared memory takes (2·features + 2·hidden + code up to about 760: the seed's, and a
/// 256-sample beat row's). Rows reach the model without a copy when they already live on its device, and results
/// come back on the rows' device.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/io/safetensors.hpp"
#include "zeroflow/model/training_path.hpp"

namespace zeroflow::model {

/// The layer widths of an mlp_autoencoder.
struct mlp_shape {
  std::int64_t features = 1;  ///< F: values per row (1 for a single time series)
  std::int64_t hidden = 32;   ///< width of the first and third layer
  std::int64_t code = 32;     ///< width of the middle layer (the encoding)
};

/// How mlp_autoencoder::train runs; the defaults are the seed notebook's.
struct mlp_train_options {
  int epochs = 100;        ///< passes over the rows (0 is allowed: no step)
  std::int64_t batch = 0;  ///< rows per Adam step; 0: every row in one step, as the notebook
  double learning_rate = 0.01;
  double weight_decay = 1e-5;  ///< L2 penalty added to the gradients (torch.optim.Adam's weight_decay)
  std::uint64_t seed = 42;     ///< seeds the per-epoch shuffles when batch > 0 and below the rows' count
  /// The kernels of a step, as for the LightVAE (training_path.hpp). On a GPU forward, loss and
  /// backward are two kernels of our own (no cuBLAS, whose start-up alone costs more than the
  /// seed's 100 epochs), then Adam as one more (the same mathematics as PyTorch's in another
  /// summation order: losses agree to ~1e-4); on the CPU each row's forward pass, loss and
  /// backward pass run in one go, rows over threads, then Adam. Batched trainings visit the rows in
  /// the same Philox order of the seed on both devices (epoch_order), so both take the same steps.
  training_path path = training_path::automatic;
  /// Called after every epoch with its index (from 0) and its loss. Without it a GPU run reads
  /// the losses once, after the last epoch.
  std::function<void(int epoch, double loss)> on_epoch;
};

/// What mlp_autoencoder::train reports.
struct mlp_train_result {
  /// Per epoch: the mean squared error over every value of the epoch's rows, weighted by batch
  /// size (with one batch: the notebook's loss before that epoch's step).
  std::vector<double> epoch_loss;
  training_path path = training_path::fused_kernels;  ///< the path the steps took (never automatic)
};

/// @brief The one place the MLP's training path is decided (choose_training_path decides the
///        LightVAE's): fused_kernels on the CPU, and on a GPU when the fused step takes the widths
///        (fused_mlp_step.hpp).
/// @param where the model's device. @param shape its widths. @param requested the caller's choice.
/// @throws invalid_argument, saying what would work, for a GPU model in a build without CUDA or
///         of widths the GPU kernels do not take.
[[nodiscard]] training_path choose_mlp_training_path(device where, const mlp_shape& shape,
                                                     training_path requested = training_path::automatic);

/// An MLP autoencoder on one device, with its weights (the optimiser is made per train call).
class mlp_autoencoder {
 public:
  /// A freshly initialised model (LibTorch's default Linear initialisation, drawn on the CPU
  /// from `seed`, so the same on every device).
  /// @throws invalid_argument for widths < 1, a device a model cannot live on or widths its
  ///         kernels there do not take; cuda_error when CUDA is asked for and no GPU is available.
  [[nodiscard]] static mlp_autoencoder create(const mlp_shape& shape, device where = cpu_device,
                                              std::uint64_t seed = 42);

  /// A model from to_bytes() / save(), onto `where`. The bytes must be this format's: widths,
  /// every weight with the right shape, all finite. The LibTorch archives (zip files) that earlier
  /// zeroflows wrote are refused with a line saying so.
  /// @param what names the source in error messages (a file name, "the pickled model").
  /// @throws zeroflow::error saying what is wrong with the bytes.
  [[nodiscard]] static mlp_autoencoder from_bytes(std::string_view bytes, device where = cpu_device,
                                                  const std::string& what = "the model bytes");
  /// from_bytes() of a file written by save().
  [[nodiscard]] static mlp_autoencoder load(const std::filesystem::path& path, device where = cpu_device);

  mlp_autoencoder(mlp_autoencoder&&) noexcept;
  mlp_autoencoder& operator=(mlp_autoencoder&&) noexcept;
  mlp_autoencoder(const mlp_autoencoder&) = delete;
  mlp_autoencoder& operator=(const mlp_autoencoder&) = delete;
  ~mlp_autoencoder();

  /// Trains on `rows` from the current weights, on the path choose_mlp_training_path gives for
  /// options.path: per epoch (in a fresh random order from options.seed when batched) Adam steps
  /// on mean((x̂ − x)²).
  /// @param rows float32 N×F (or 1-D N when F = 1), any strides, finite, on the host or the
  ///        model's device (other devices are copied to the model's once).
  /// @throws invalid_argument for a bad shape, dtype, option (a path that is not possible) or
  ///         non-finite rows; error when an epoch's loss is not finite (training diverged).
  mlp_train_result train(const array& rows, const mlp_train_options& options = {});

  /// x̂ for every row: float32 of `rows`' shape, on `rows`' device (computed in double and
  /// rounded once, so a row's result does not depend on the rows beside it).
  /// @throws invalid_argument as train.
  [[nodiscard]] array reconstruct(const array& rows) const;

  /// The anomaly score of every row: mean over its F values of (x̂ − x)², float32 (N), on
  /// `rows`' device. Computed in double and rounded once: each row's score depends only on that
  /// row and the weights, not on how many rows are scored together.
  /// @throws invalid_argument as train.
  [[nodiscard]] array score(const array& rows) const;

  /// The weights as float32 tensors under their state_dict names (first_layer_encoder.weight,
  /// ..., second_layer_decoder.bias), for model files (model/model_file.hpp).
  [[nodiscard]] std::vector<io::safetensor> weights() const;
  /// A model of `shape` on `where` with the weights of a model file: every tensor weights()
  /// writes, float32, of its layer's shape, finite (other tensors are the caller's).
  /// @throws zeroflow::error saying which weight is missing or wrong; invalid_argument for widths < 1.
  [[nodiscard]] static mlp_autoencoder from_weights(const mlp_shape& shape, const io::safetensors_content& content,
                                                    device where = cpu_device);

  /// The weights and widths as bytes, for pickling and files: a safetensors file whose metadata
  /// names the format ("zeroflow_mlp_autoencoder", version 2), the widths and a content checksum.
  [[nodiscard]] std::string to_bytes() const;
  /// Writes to_bytes() to `path` atomically (a temporary beside it, renamed into place).
  void save(const std::filesystem::path& path) const;

  [[nodiscard]] const mlp_shape& shape() const;
  [[nodiscard]] device where() const;
  /// Number of learnable scalars: 2·F·h + 2·h·c + 2·h + c + F for hidden h and code c (2209 for the seed's).
  [[nodiscard]] std::int64_t parameter_count() const;

  class impl;

 private:
  explicit mlp_autoencoder(std::unique_ptr<impl> state);
  std::unique_ptr<impl> impl_;
};

}  // namespace zeroflow::model
