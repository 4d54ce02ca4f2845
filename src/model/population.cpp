/// @file population.cpp
/// train_population (population.hpp): vae::train's split and loss on zeroflow's own trainers (the
/// CPU's or the GPU's: the same steps), with a group's slices of every global batch, checkpoints
/// between epochs and resumption.
#include "zeroflow/model/population.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "cpu_light_vae_trainer.hpp"
#include "cpu_threads.hpp"
#include "finite_rows.hpp"
#include "light_vae_init.hpp"
#include "model_stream.hpp"
#include "population_checkpoint.hpp"
#include "row_order.hpp"
#include "vae_state.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime_api.h>

#include "gpu_light_vae_trainer.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::model {

namespace {

void check_options(const population_options& o, int ranks) {
  ZF_EXPECTS(o.epochs >= 1, "population training: epochs must be >= 1, got ", o.epochs);
  ZF_EXPECTS(o.batch >= 1 && o.batch % ranks == 0, "population training: the batch (", o.batch,
             " rows per step over all processes) must be a positive multiple of the ", ranks, " processes");
  ZF_EXPECTS(o.test_fraction >= 0 && o.test_fraction < 1, "population training: test_fraction must be in [0, 1), got ",
             o.test_fraction);
  ZF_EXPECTS(std::isfinite(o.learning_rate) && o.learning_rate > 0,
             "population training: learning_rate must be > 0, got ", o.learning_rate);
  ZF_EXPECTS(o.checkpoint_every >= 0, "population training: checkpoint_every must be >= 0, got ", o.checkpoint_every);
  ZF_EXPECTS(!o.resume || !o.checkpoint.empty(), "population training: resuming needs the checkpoint's path");
}

/// Trains with `trainer` (cpu_light_vae_trainer or gpu_light_vae_trainer: the same steps) from the
/// split onwards: checkpoints, resumption and the test loss alike on both devices.
template <class Trainer>
void train_with(Trainer& trainer, vae::impl& m, stream_view stream, const detail::row_split& split,
                const std::int64_t* train_index, const population_options& options, gradient_group* group,
                const detail::population_settings& settings, population_result& result) {
  const int ranks = group != nullptr ? group->size() : 1;
  const int rank = group != nullptr ? group->rank() : 0;
  const std::int64_t params = m.params.size();
  const auto param_bytes = static_cast<std::size_t>(params) * sizeof(float);
  std::vector<double> losses;
  detail::optimiser_state resumed;
  if (options.resume) {
    detail::population_checkpoint c = detail::read_population_checkpoint(options.checkpoint, settings);
    ZF_EXPECTS(static_cast<std::int64_t>(c.weights.size()) == params, options.checkpoint.string(), ": it holds ",
               c.weights.size(), " weights, the model ", params);
    ZF_EXPECTS(c.epochs_done <= options.epochs, options.checkpoint.string(), ": it has done ", c.epochs_done,
               " epochs, more than the ", options.epochs, " asked for");
    copy_bytes(m.params.data(), m.place, c.weights.data(), cpu_device, param_bytes, stream);
    losses = std::move(c.epoch_loss);
    resumed = std::move(c.optimiser);
    result.first_epoch = c.epochs_done;
  }
  detail::trainer_options o;
  o.epochs = options.epochs;
  o.batch = options.batch / ranks;
  o.seed = options.seed;
  o.group = group;
  o.drop_last = true;
  o.first_epoch = result.first_epoch;
  o.resume_from = options.resume ? &resumed : nullptr;
  const bool saves = rank == 0 && !options.checkpoint.empty() && options.checkpoint_every > 0;
  if (rank == 0 && (saves || options.on_epoch)) {
    o.on_epoch = [&](int epoch, double loss) {
      ZF_EXPECTS(std::isfinite(loss), "population training diverged at epoch ", epoch + 1, " (loss ", loss,
                 "); lower the learning rate");
      losses.push_back(loss);
      if (saves && ((epoch + 1) % options.checkpoint_every == 0 || epoch + 1 == options.epochs)) {
        detail::population_checkpoint c;
        c.settings = settings;
        c.epochs_done = epoch + 1;
        c.epoch_loss = losses;
        c.weights.resize(static_cast<std::size_t>(params));
        c.optimiser = trainer.optimiser();
        copy_bytes(c.weights.data(), cpu_device, m.params.data(), m.place, param_bytes, stream);
        detail::write_population_checkpoint(options.checkpoint, c);
        ++result.host_syncs;
      }
      if (options.on_epoch) options.on_epoch(epoch, loss);
    };
  }
  const auto t0 = std::chrono::steady_clock::now();
  const detail::trainer_report report = trainer.train(train_index, result.train_rows, o);
  result.train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.steps = report.replays;
  result.host_syncs += report.host_syncs;
  // Rank 0's callback has kept the losses as they came; the others take the report's.
  if (!o.on_epoch) losses.insert(losses.end(), report.epoch_loss.begin(), report.epoch_loss.end());
  result.epoch_loss = std::move(losses);
  for (std::size_t e = 0; e < result.epoch_loss.size(); ++e)
    ZF_EXPECTS(std::isfinite(result.epoch_loss[e]), "population training diverged at epoch ", e + 1, " (loss ",
               result.epoch_loss[e], "); lower the learning rate");
  if (result.test_rows > 0) {
    const array test_index = detail::indices_on(split.test, m.place, stream);
    result.test_loss =
        trainer.mean_loss(static_cast<const std::int64_t*>(test_index.data()), result.test_rows, options.seed);
  } else {
    result.test_loss = std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace

population_result train_population(vae& model, const array& rows, const population_options& options,
                                   gradient_group* group) {
  const int ranks = group != nullptr ? group->size() : 1;
  check_options(options, ranks);
  vae::impl& m = *model.impl_;
  ZF_EXPECTS(rows.valid() && rows.type() == float32 && rows.ndim() == 2 && rows.is_contiguous(),
             "population rows must be one contiguous float32 N x W array");
  ZF_EXPECTS(rows.shape(1) == m.width, "population rows have width ", rows.shape(1), ", the model ", m.width);
  ZF_EXPECTS(rows.where() == m.place, "population rows must be on the model's device (", m.place.name(),
             m.place.type == device_type::cuda ? ", or mapped into it)" : ")");
#if ZEROFLOW_HAS_CUDA
  std::optional<zeroflow::detail::cuda_device_guard> on;
  if (m.place.type == device_type::cuda) on.emplace(m.place.id);
#endif
  const stream_view stream = detail::model_stream(m.place);
  const std::int64_t n = rows.shape(0);
  const detail::non_finite_count bad =
      detail::count_non_finite(static_cast<const float*>(rows.data()), m.place, n, m.width, m.width, 1, stream);
  ZF_EXPECTS(bad.count == 0, "population rows hold ", bad.count, " NaN or infinite values (the first in row ",
             bad.first / m.width, "); the model needs finite rows");

  population_result result;
  const auto n_train = static_cast<std::int64_t>(std::floor((1.0 - options.test_fraction) * static_cast<double>(n)));
  ZF_EXPECTS(n_train >= options.batch, "population training: ", n_train, " training rows make no whole batch of ",
             options.batch, " rows; give more recordings or a smaller batch");
  result.train_rows = n_train;
  result.test_rows = n - n_train;
  const detail::row_split split = detail::split_rows(n, options.test_fraction, options.seed);
  const array train_index = detail::indices_on(split.train, m.place, stream);
  const auto* train = static_cast<const std::int64_t*>(train_index.data());
  const detail::population_settings settings{.width = m.width,
                                             .rows = n,
                                             .rows_identity = options.rows_identity,
                                             .seed = options.seed,
                                             .batch = options.batch,
                                             .learning_rate = options.learning_rate,
                                             .test_fraction = options.test_fraction};
  auto* params = static_cast<float*>(m.params.data());
  const auto* data = static_cast<const float*>(rows.data());
  if (m.place.type == device_type::cpu) {
    detail::cpu_light_vae_trainer trainer(params, m.width, data, n, options.learning_rate, detail::kernel_threads());
    train_with(trainer, m, stream, split, train, options, group, settings, result);
  } else {
#if ZEROFLOW_HAS_CUDA
    detail::gpu_light_vae_trainer trainer(params, m.width, data, n, options.learning_rate, stream);
    train_with(trainer, m, stream, split, train, options, group, settings, result);
    ZF_CUDA_TRY(cudaStreamSynchronize(stream.value()));
#endif
  }
  m.history.train_seed = options.seed;
  m.history.epochs += options.epochs;
  return result;
}

}  // namespace zeroflow::model
