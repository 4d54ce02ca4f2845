#pragma once
/// @file gpu_light_vae_trainer.hpp
/// Internal: the LightVAE's training on a GPU with zeroflow's own kernels only — the
/// fused step (fused_vae_step.hpp), an Adam kernel, shuffles and noise from a counter-based
/// generator (counter_rng.hpp) — every optimisation step captured once in a CUDA graph and
/// replayed. The parameters are one packed float array (slot order, light_vae_layout.hpp) and every
/// buffer comes from zeroflow's memory manager. The CPU trainer (cpu_light_vae_trainer.hpp) takes
/// the same batches and noise; one step agrees with LibTorch's autograd and torch::optim::Adam on
/// the same batch to float rounding (tests/model/gpu_light_vae_trainer_cuda_test.cpp).
#include <cstdint>
#include <memory>

#include "trainer_options.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail {

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
  trainer_report train(const std::int64_t* train_index, std::int64_t n_train, const trainer_options& options);

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
