#pragma once
/// @file trainer_options.hpp
/// Internal: what the LightVAE's own trainers take, refuse and report — on a GPU
/// (gpu_light_vae_trainer.hpp) and on the CPU (cpu_light_vae_trainer.hpp) the same options, the
/// same optimiser state and so the same checkpoints.
///
/// Both trainers take the same steps for the same options: per epoch the training rows ordered
/// by a 32-bit Philox key each (counter_rng.hpp: row position, epoch, the shuffle stream; ties in
/// position order), cut into batches; each batch's reparameterisation noise from (seed, position
/// in the global batch, steps taken, the training-noise stream); the seed's loss; torch.optim.Adam.
#include <cstdint>
#include <functional>
#include <vector>

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

/// How a trainer's train() runs (vae::train's options that concern the steps).
struct trainer_options {
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
  /// After every epoch with its loss. The trainer's state may be saved from inside it (optimiser()).
  std::function<void(int epoch, double loss)> on_epoch;
};

/// How train() cuts every epoch's training rows into steps (schedule_batches).
struct batch_schedule {
  std::int64_t global_batch = 0;  ///< rows per step over the group (batch × ranks)
  std::int64_t offset = 0;        ///< where this process's slice of a global batch starts
  std::int64_t full_steps = 0;    ///< whole global batches per epoch
  std::int64_t tail = 0;          ///< rows of the smaller last batch (0: none, or drop_last)

  [[nodiscard]] std::int64_t steps() const { return full_steps + (tail > 0 ? 1 : 0); }
  /// Rows an epoch trains on over the group: what its summed batch losses are divided by.
  [[nodiscard]] double rows_trained() const { return static_cast<double>(full_steps * global_batch + tail); }
};

/// The steps of an epoch of n_train rows under `options`, checked the same way for every
/// trainer. @param trainer names it in the messages ("GPU training").
/// @throws invalid_argument for epochs or a batch out of range, no rows, or no whole batch.
batch_schedule schedule_batches(std::int64_t n_train, const trainer_options& options, const char* trainer);

/// @throws invalid_argument for a learning rate that is not a positive number.
void check_trainer_learning_rate(double learning_rate);

/// @throws invalid_argument when `resume_from` does not hold one pair of moments per parameter.
void check_resume_state(const optimiser_state& resume_from, std::int64_t parameters);

/// What train() did.
struct trainer_report {
  std::vector<double> epoch_loss;  ///< per epoch trained: Σ batch losses (over the group) / rows trained
  int graphs = 0;                  ///< GPU: captured steps: 1, or 2 with a smaller last batch
  std::int64_t replays = 0;        ///< optimisation steps (GPU: graph launches)
  int host_syncs = 0;              ///< GPU: waits for the GPU to read losses
};

}  // namespace zeroflow::model::detail
