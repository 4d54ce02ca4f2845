#pragma once
/// @file cpu_light_vae_trainer.hpp
/// Internal: the LightVAE's training on the CPU with zeroflow's own kernels
/// (cpu_vae_kernels.hpp) — the GPU trainer's steps (trainer_options.hpp: the same shuffles, batches,
/// noise, loss and Adam), so that a CPU and a GPU training of one seed take the same steps and
/// their losses agree to float rounding.
#include <cstdint>
#include <vector>

#include "trainer_options.hpp"

namespace zeroflow::model::detail {

class cpu_light_vae_trainer {
 public:
  /// @param params packed parameters on the host (light_vae_slot_offsets(width)), trained in
  ///        place. @param data rows × width contiguous float32 on the host.
  /// @param threads the kernels' threads (at least 1).
  /// @throws invalid_argument for a bad width, learning rate or thread count.
  cpu_light_vae_trainer(float* params, std::int64_t width, const float* data, std::int64_t rows, double learning_rate,
                        int threads);

  /// Trains options.epochs epochs on the rows `train_index` (n_train indices into the rows),
  /// continuing from the current parameters with a fresh Adam (or options.resume_from's). With a
  /// gradient group (options.group, drop_last) this process takes its slice of every global batch
  /// and the group sums the gradients (host memory) before every update, as the GPU trainer does.
  trainer_report train(const std::int64_t* train_index, std::int64_t n_train, const trainer_options& options);

  /// Adam's moments and the counters now.
  [[nodiscard]] optimiser_state optimiser() const { return state_; }

  /// One Adam step on the batch `rows` with reparameterisation noise `eps` (batch × 2), the
  /// gradients summed over `group` first when there is one. Returns this process's batch loss.
  double step(const std::int64_t* rows, const float* eps, std::int64_t batch, gradient_group* group = nullptr);

  /// The seed's loss over `rows` (n indices) with noise from (seed, the test stream), per row
  /// summed and divided by n: vae::train's test loss.
  [[nodiscard]] double mean_loss(const std::int64_t* rows, std::int64_t n, std::uint64_t seed) const;

 private:
  void adam();

  float* params_;
  std::int64_t width_;
  const float* data_;
  std::int64_t rows_;
  double learning_rate_;
  int threads_;
  std::vector<float> grads_;
  optimiser_state state_;
};

}  // namespace zeroflow::model::detail
