#pragma once
/// @file gpu_light_vae_trainer.hpp
/// Internal, torch-free: the LightVAE's training on a GPU with zeroflow's own kernels only — the
/// fused step (fused_vae_step.hpp), an Adam kernel, shuffles and noise from a counter-based
/// generator (counter_rng.hpp) — every optimisation step captured once in a CUDA graph and
/// replayed. No LibTorch symbol is touched: the parameters are one packed float array (slot
/// order, light_vae_init.hpp) and every buffer comes from zeroflow's memory manager.
///
/// The mathematics is the eager LibTorch path's (vae::train with torch::optim::Adam): the same
/// split, per-epoch permutations of the training rows cut into batches, the same loss, the same
/// Adam. The random draws differ (Philox here, LibTorch's generators there), so losses agree in
/// distribution, not number for number; one step on the same batch and noise agrees to float
/// rounding (tests/model/gpu_light_vae_trainer_cuda_test.cpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "zeroflow/core/stream.hpp"

namespace zeroflow::model {
class gradient_group;
}

namespace zeroflow::model::detail {

/// Adam's moments and the step counters: with the weights, everything a resumed training needs
/// to take the steps an uninterrupted one would.
struct optimiser_state {
  std::vector<float> exp_avg, exp_avg_sq;  ///< one per parameter, packed like the weights
  float adam_step = 0;                     ///< Adam's step count
  std::uint64_t noise_step = 0;            ///< steps taken (keys the noise)
};

/// How gpu_light_vae_trainer::train runs (vae::train's options that concern the steps).
struct gpu_training_options {
  int epochs = 30;            ///< train epochs first_epoch … epochs − 1
  std::int64_t batch = 1024;  ///< rows per step of this process
  std::uint64_t seed = 42;    ///< keys the shuffles and the noise
  /// Data parallelism: this process is `group`'s rank r of R and takes rows r·batch … (r+1)·batch − 1
  /// of every global batch of R·batch rows (with those positions' noise); the group sums the
  /// gradients inside every step. Null: one process.
  gradient_group* group = nullptr;
  /// Whole global batches only: the rows a batch would leave over wait for the next epoch's
  /// shuffle (always so with a group, whose processes must take equal slices).
  bool drop_last = false;
  /// Resume: start at this epoch (its shuffle) with `resume_from`'s optimiser instead of a fresh one.
  int first_epoch = 0;
  const optimiser_state* resume_from = nullptr;
  /// After every epoch with its loss (one synchronisation each; without it the losses are read
  /// once, after the last epoch). The trainer's state may be saved from inside it (optimiser()).
  std::function<void(int epoch, double loss)> on_epoch;
};

/// What train did.
struct gpu_training_report {
  std::vector<double> epoch_loss;  ///< per epoch trained: Σ batch losses (over the group) / rows trained
  int graphs = 0;                  ///< captured steps: 1, or 2 with a smaller last batch
  std::int64_t replays = 0;        ///< graph launches (= optimisation steps)
  int host_syncs = 0;              ///< waits for the GPU to read losses
};

class gpu_light_vae_trainer {
 public:
  /// @param params packed parameters on the current GPU (light_vae_slot_offsets(width)), trained
  ///        in place. @param data rows × width contiguous float32 on the same GPU.
  /// @param stream the caller's stream: work starts after what it queued, and it waits for the
  ///        training before its next work.
  /// @throws invalid_argument for a width the fused kernels do not handle, a bad learning rate.
  gpu_light_vae_trainer(float* params, std::int64_t width, const float* data, std::int64_t rows, double learning_rate,
                        stream_view stream);
  ~gpu_light_vae_trainer();
  gpu_light_vae_trainer(const gpu_light_vae_trainer&) = delete;
  gpu_light_vae_trainer& operator=(const gpu_light_vae_trainer&) = delete;

  /// Trains options.epochs epochs on the rows `train_index` (n_train int64 indices into the rows,
  /// on the GPU), continuing from the current parameters with a fresh Adam.
  gpu_training_report train(const std::int64_t* train_index, std::int64_t n_train, const gpu_training_options& options);

  /// Adam's moments and the counters now (waits for the trainer's work).
  [[nodiscard]] optimiser_state optimiser() const;

  /// One Adam step on the batch `rows` (int64 indices on the GPU) with reparameterisation noise
  /// `eps` (batch × 2 floats on the GPU), queued on the caller's stream, no graph: for the tests
  /// that compare a step with LibTorch's. Returns the batch's loss (reads it back).
  double step(const std::int64_t* rows, const float* eps, std::int64_t batch);

  /// The seed's loss over `rows` (n int64 indices) with noise from (seed, test stream), per row
  /// summed and divided by n: vae::train's test loss. Reads it back.
  [[nodiscard]] double mean_loss(const std::int64_t* rows, std::int64_t n, std::uint64_t seed) const;

  struct state;

 private:
  std::unique_ptr<state> state_;
};

}  // namespace zeroflow::model::detail
