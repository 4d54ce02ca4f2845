/// @file cpu_light_vae_trainer.cpp
/// The LightVAE's training on the CPU (cpu_light_vae_trainer.hpp): the per-epoch order
/// (row_order.hpp), the batches and their noise as the GPU trainer draws them (counter_rng.hpp),
/// the fused step of cpu_vae_kernels.hpp and torch.optim.Adam's update (adam_update.hpp).
#include "cpu_light_vae_trainer.hpp"

#include <algorithm>

#include "adam_update.hpp"
#include "counter_rng.hpp"
#include "cpu_vae_kernels.hpp"
#include "light_vae_init.hpp"
#include "row_order.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/model/population.hpp"

namespace zeroflow::model::detail {

cpu_light_vae_trainer::cpu_light_vae_trainer(float* params, std::int64_t width, const float* data, std::int64_t rows,
                                             double learning_rate, int threads)
    : params_{params}, width_{width}, data_{data}, rows_{rows}, learning_rate_{learning_rate}, threads_{threads} {
  ZF_EXPECTS(is_light_vae_width(width), "the CPU training kernels take widths that are powers of two from 16, got ",
             width);
  check_trainer_learning_rate(learning_rate);
  ZF_EXPECTS(threads >= 1, "the CPU kernels need at least 1 thread, got ", threads);
  const auto n = static_cast<std::size_t>(light_vae_slot_offsets(width).back());
  grads_.assign(n, 0.0F);
  state_.exp_avg.assign(n, 0.0F);
  state_.exp_avg_sq.assign(n, 0.0F);
}

// torch::optim::Adam's update, as the GPU trainer's (adam_update.hpp).
void cpu_light_vae_trainer::adam() {
  state_.adam_step += 1.0F;
  ++state_.noise_step;
  apply_adam_on_host({.params = params_,
                      .grads = grads_.data(),
                      .exp_avg = state_.exp_avg.data(),
                      .exp_avg_sq = state_.exp_avg_sq.data(),
                      .step = &state_.adam_step,
                      .count = static_cast<std::int64_t>(grads_.size()),
                      .learning_rate = learning_rate_});
}

double cpu_light_vae_trainer::step(const std::int64_t* rows, const float* eps, std::int64_t batch,
                                   gradient_group* group) {
  const double loss = cpu_vae::train_step({.params = params_,
                                           .grads = grads_.data(),
                                           .data = data_,
                                           .width = width_,
                                           .rows = rows,
                                           .batch = batch,
                                           .eps = eps},
                                          threads_);
  // The group's gradients summed: every process then applies the same update to the same weights.
  if (group != nullptr) group->sum(grads_.data(), static_cast<std::int64_t>(grads_.size()), {});
  adam();
  return loss;
}

trainer_report cpu_light_vae_trainer::train(const std::int64_t* train_index, std::int64_t n_train,
                                            const trainer_options& options) {
  const batch_schedule plan = schedule_batches(n_train, options, "CPU training");
  for (std::int64_t i = 0; i < n_train; ++i)
    ZF_EXPECTS(train_index[i] >= 0 && train_index[i] < rows_, "CPU training: row index ", train_index[i],
               " outside the ", rows_, " rows");
  gradient_group* const group = options.group;
  trainer_report report;
  if (options.first_epoch == options.epochs) return report;
  if (options.resume_from != nullptr) {
    check_resume_state(*options.resume_from, static_cast<std::int64_t>(grads_.size()));
    state_ = *options.resume_from;
  } else {
    std::fill(state_.exp_avg.begin(), state_.exp_avg.end(), 0.0F);
    std::fill(state_.exp_avg_sq.begin(), state_.exp_avg_sq.end(), 0.0F);
    state_.adam_step = 0;
  }

  std::vector<std::int64_t> order;
  std::vector<float> eps(static_cast<std::size_t>(2 * std::min(options.batch, n_train)));
  const double trained = plan.rows_trained();
  for (int epoch = options.first_epoch; epoch < options.epochs; ++epoch) {
    epoch_order(train_index, n_train, options.seed, epoch, threads_, order);
    double sum = 0;
    // A full batch is this process's slice of a global batch, with those positions' noise.
    const auto take = [&](std::int64_t first, std::int64_t batch, std::int64_t position) {
#pragma omp parallel for schedule(static) num_threads(threads_)
      for (std::int64_t i = 0; i < batch; ++i) {
        const normal_pair n = normal2(options.seed, static_cast<std::uint32_t>(position + i), state_.noise_step,
                                      rng_stream::training_noise);
        eps[static_cast<std::size_t>(2 * i)] = n.a;
        eps[static_cast<std::size_t>(2 * i + 1)] = n.b;
      }
      sum += step(order.data() + first, eps.data(), batch, group);
    };
    for (std::int64_t k = 0; k < plan.full_steps; ++k)
      take(k * plan.global_batch + plan.offset, options.batch, plan.offset);
    if (plan.tail > 0) take(plan.full_steps * plan.global_batch, plan.tail, 0);
    report.replays += plan.steps();
    if (group != nullptr) group->sum(&sum, 1, {});
    report.epoch_loss.push_back(sum / trained);
    if (options.on_epoch) options.on_epoch(epoch, sum / trained);
  }
  return report;
}

double cpu_light_vae_trainer::mean_loss(const std::int64_t* rows, std::int64_t n, std::uint64_t seed) const {
  ZF_EXPECTS(n >= 1, "CPU test loss: no rows");
  std::vector<float> eps(static_cast<std::size_t>(2 * n)), losses(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const normal_pair r =
        normal2(seed, static_cast<std::uint32_t>(i), static_cast<std::uint64_t>(i >> 32), rng_stream::test_noise);
    eps[static_cast<std::size_t>(2 * i)] = r.a;
    eps[static_cast<std::size_t>(2 * i + 1)] = r.b;
  }
  cpu_vae::row_losses(params_, data_, width_, rows, n, eps.data(), losses.data(), threads_);
  double sum = 0;
  for (const float v : losses) sum += v;
  return sum / static_cast<double>(n);
}

}  // namespace zeroflow::model::detail
