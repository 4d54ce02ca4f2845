#pragma once
/// @file vae.hpp
/// The seed's LightVAE (docs/architecture.md, the seed pipelines): a small 1-D convolutional
/// variational autoencoder of fixed-width beat rows, trained with Adam on the seed's loss, and
/// an anomaly score per row, on zeroflow's own kernels on either device (no LibTorch): the
/// weights are one packed float32 array on the model's device (src/model/light_vae_layout.hpp's order).
///
/// Rows reach the kernels without a copy when they already live on the model's device as one
/// C-contiguous array, and results come back on the rows' device. GPU work queues on the models'
/// stream of the calling thread (model/model_stream_scope.hpp); every call returns with it done.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/model/training_path.hpp"

namespace zeroflow::model {

struct population_options;
struct population_result;
class gradient_group;

/// How vae::train runs; the defaults are the seed's (30 epochs, batch 1024, 25 % test, seed 42,
/// Adam with its default learning rate and betas).
struct train_options {
  int epochs = 30;              ///< passes over the training split (0 is allowed: no step)
  int batch = 1024;             ///< rows per optimisation step; the last batch may be smaller
  double test_fraction = 0.25;  ///< share of rows held out, in [0, 1); train gets floor((1-f)·N)
  std::uint64_t seed = 42;      ///< seeds the split, the per-epoch shuffles and the VAE's noise
  double learning_rate = 1e-3;  ///< Adam's step size
  /// The kernels of a step (training_path.hpp): zeroflow's own on either device.
  training_path path = training_path::automatic;
  /// Called after every epoch with its index (from 0) and its loss (as train_result::epoch_loss).
  std::function<void(int epoch, double train_loss)> on_epoch;
};

/// What vae::train reports.
struct train_result {
  /// Per epoch, the seed's figure: Σ over the epoch's batches of the batch loss / train rows.
  std::vector<double> epoch_loss;
  /// The same over the test split after training (the forward pass samples z, as the seed's
  /// does); NaN when the test split is empty.
  double test_loss = 0.0;
  array train_index;  ///< int64 row indices of the training split, ascending, on the rows' device
  array test_index;   ///< int64 row indices of the test split, ascending, on the rows' device
  training_path path = training_path::fused_kernels;  ///< the path the steps and the test loss took (never automatic)
};

/// Per-row output of vae::score, on the rows' device.
struct scores {
  /// float32 (N): anomaly score, higher = more anomalous (see vae::score).
  array score;
  /// float32 (N×2): latent mean μ of each row.
  array mu;
};

/// How the rows a model was trained on were made: what scoring must reproduce for the model's
/// scores to mean anything (a model of beats at 360 Hz reads beats at 250 Hz as other shapes).
/// The pipeline describes its rows with it; save() records it and load() gives it back, so that
/// `zeroflow score` can refuse a model trained on rows made differently.
struct row_provenance {
  double sample_rate = 0;          ///< samples per second of the training recording (> 0)
  std::string segmentation;        ///< how beats were found and embedded: "robust" or "gate-to-gate"
  bool normalized = true;          ///< rows were robust z-scores of their recording (false: raw samples)
  std::int64_t window_before = 0;  ///< robust: samples of a row before its R peak
  std::int64_t window_after = 0;   ///< robust: samples of a row from its R peak on
  std::int64_t min_length = 0;     ///< seed: shortest kept beat, samples
  std::int64_t max_length = 0;     ///< seed: longest kept beat, samples
  friend bool operator==(const row_provenance&, const row_provenance&) = default;
};

/// How a model's weights came to be, recorded in its file (for a person reproducing a run).
struct training_history {
  std::uint64_t init_seed = 42;             ///< vae::create's seed (the initial weights)
  std::optional<std::uint64_t> train_seed;  ///< train_options::seed of the last vae::train call, if any
  std::int64_t epochs = 0;                  ///< epochs trained, over all vae::train calls
  friend bool operator==(const training_history&, const training_history&) = default;
};

/// Sets how many CPU threads the model's CPU work uses, for the whole process: zeroflow's own CPU
/// kernels (training, scoring, decoding). Until this is called, the CPUs this process may run on (or OMP_NUM_THREADS).
/// A training step's result does not depend on the thread count (the kernels sum a batch's gradients in a fixed order).
/// @param threads at least 1.
/// @throws invalid_argument when threads < 1.
void set_cpu_threads(int threads);
/// The number of CPU threads the model's CPU work uses now.
[[nodiscard]] int cpu_threads();
/// The instruction set zeroflow's own CPU kernels run with on this CPU: "baseline", or
/// "x86-64-v3 (AVX2, FMA)" (chosen at run time; the two differ by rounding only).
[[nodiscard]] const char* cpu_instruction_set();

/// A LightVAE of one row width on one device, with its training state.
class vae {
 public:
  /// A freshly initialised model.
  /// @param width row width W: a power of two, at least 16.
  /// @param where cpu_device or cuda_device(id).
  /// @param seed draws the initial weights as LibTorch's default initialisation after
  ///        torch::manual_seed(seed) would (on the CPU, then moved), so they depend on the seed alone.
  /// @throws invalid_argument for a bad width or device; cuda_error when CUDA is asked for and
  ///         there is no GPU.
  [[nodiscard]] static vae create(std::int64_t width, device where = cpu_device, std::uint64_t seed = 42);

  /// Reads a model written by save() onto `where`, verified: the file must be a zeroflow model
  /// file (model/model_file.hpp: safetensors) holding this format's metadata, sane (a power-of-two width, a known
  /// segmentation, a positive sample rate), a checksum that matches the metadata and every weight
  /// as read, and finite weights. A file cut short, overwritten in part or of another program is
  /// refused, never scored with; so is the LibTorch archive (format 2) of earlier zeroflows, with a
  /// line saying so.
  /// @throws zeroflow::error naming the file and what is wrong with it.
  [[nodiscard]] static vae load(const std::filesystem::path& path, device where = cpu_device);

  vae(vae&&) noexcept;
  vae& operator=(vae&&) noexcept;
  vae(const vae&) = delete;
  vae& operator=(const vae&) = delete;
  ~vae();

  /// Trains as the seed does, on the path choose_training_path gives for options.path: split the
  /// rows (shuffle from options.seed, first floor((1-test_fraction)·N) rows of the shuffle train),
  /// then per epoch a fresh random permutation of the training rows cut into batches, gathered on
  /// the model's device, Adam steps on
  ///   loss = Σ_batch mean_t (x̂−x)² − 0.1 Σ_batch mean_d (1 + log σ² − μ² − σ²).
  /// The shuffles and the noise come from a counter-based generator keyed by options.seed, the
  /// same on CPU and GPU, so both take the same steps (losses equal to float rounding); on the CPU
  /// the result is the same bits whatever the thread count. Continues from the current weights (a
  /// new optimiser each call).
  /// @param rows float32 N×W (any strides), on the host or on the model's GPU; rows on another
  ///        device than the model's are copied there once.
  /// Rows must be finite: a NaN or an infinity makes every loss NaN, so they are refused before
  /// the first step. The loss of every epoch is checked: when one is not finite (rows so large
  /// that their squares overflow, a learning rate that blows up), training stops there.
  /// @throws invalid_argument for a bad shape, dtype or option (a width this build and device
  ///         cannot take included), or rows that hold NaN or ±inf;
  ///         error ("training diverged at epoch N ...") when an epoch's loss is not finite (the
  ///         weights are then those of the failed epoch: create a new model to start again).
  train_result train(const array& rows, const train_options& options = {});

  /// The anomaly score of every row: the reconstruction error mean_t (decode(μ(x)) − x)², with
  /// z = μ (no sampling), so it is deterministic: one fused forward pass over every row (on the CPU
  /// rows over threads), each row's result its own.
  /// @param batch at least 1; the own kernels hold no batch's activations, so it bounds nothing.
  /// @param path as for train.
  /// @throws invalid_argument for a bad shape, dtype, batch or width, or rows that hold NaN or ±inf
  ///         (their scores would be NaN: no rank at all).
  [[nodiscard]] scores score(const array& rows, std::int64_t batch = 4096,
                             training_path path = training_path::automatic) const;

  /// Decodes an n×n grid of latents, g = linspace(−extent, extent, n): row i·n + j is
  /// decode((g[i], g[j])) (the seed's "meshgrid(indexing='ij')" figure).
  /// @param path as for train.
  /// @return float32 (n·n)×W on the model's device.
  /// @throws invalid_argument for a bad n, extent or path.
  [[nodiscard]] array decode_grid(int n = 5, double extent = 2.0, training_path path = training_path::automatic) const;

  /// Writes the model file (safetensors, model/model_file.hpp): the parameters and buffers under
  /// their PyTorch state_dict names, and in its metadata the format version, width, row
  /// provenance (when described), training history and a checksum over all of them. Written to a temporary file beside
  /// `path`, flushed, then renamed over `path`, so readers never see half a model.
  /// @throws zeroflow::error when the file cannot be written or a weight is NaN or infinite.
  void save(const std::filesystem::path& path) const;

  /// Records how the rows this model is trained on (or was) are made; save() writes it.
  /// @throws invalid_argument when the description is not sane (rate <= 0 or not finite, an
  ///         unknown segmentation, negative windows).
  void describe_rows(const row_provenance& rows);
  /// How the training rows were made: as described, or as read from the model file; empty for a
  /// model that was never described (e.g. saved from Python).
  [[nodiscard]] const std::optional<row_provenance>& described_rows() const;
  /// Seeds and epochs behind the current weights.
  [[nodiscard]] const training_history& history() const;

  /// Row width W.
  [[nodiscard]] std::int64_t width() const;
  /// Where the weights live.
  [[nodiscard]] device where() const;
  /// Number of learnable scalars (850 + 3·W for the seed's topology).
  [[nodiscard]] std::int64_t parameter_count() const;

  class impl;  ///< the weights and what describes them (src/model/vae_state.hpp)

 private:
  // Trains the packed weights in place (population.hpp).
  friend population_result train_population(vae& model, const array& rows, const population_options& options,
                                            gradient_group* group);

  explicit vae(std::unique_ptr<impl> state);
  std::unique_ptr<impl> impl_;
};

}  // namespace zeroflow::model
