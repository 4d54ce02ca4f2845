/// @file mlp_engine.cpp
/// The MLP autoencoder's engine (mlp_engine.hpp): one training loop and scoring pass, each
/// batch's step on the model's device.
#include "mlp_engine.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "adam_update.hpp"
#include "cpu_mlp_step.hpp"
#include "cpu_threads.hpp"
#include "finite_rows.hpp"
#include "mlp_forward.hpp"
#include "model_checks.hpp"
#include "row_order.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

#if ZEROFLOW_HAS_CUDA
#include "fused_mlp_step.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::model::detail {

namespace {

/// Rows a thread scores at a time on the CPU (each row's result depends on that row alone).
constexpr std::int64_t scoring_chunk_rows = 256;

/// The model's GPU current for a call's lifetime; on the CPU no CUDA call at all.
class on_model_device {
 public:
  explicit on_model_device(device where) {
#if ZEROFLOW_HAS_CUDA
    if (where.is_cuda()) guard_.emplace(where.id);
#else
    (void)where;
#endif
  }

 private:
#if ZEROFLOW_HAS_CUDA
  std::optional<zeroflow::detail::cuda_device_guard> guard_;
#endif
};

}  // namespace

mlp_engine::mlp_engine(const mlp_shape& shape, device where, const std::vector<float>& params)
    : shape_{shape}, where_{where}, offsets_{(check_mlp_shape(shape), mlp_slot_offsets(shape))} {
  ZF_EXPECTS(static_cast<std::int64_t>(params.size()) == offsets_.back(), "the MLP needs ", offsets_.back(),
             " parameters, got ", params.size());
  array host = empty({offsets_.back()}, float32, cpu_device);
  std::copy(params.begin(), params.end(), host.data_as<float>());
  if (!where_.is_cuda()) {
    params_ = std::move(host);
    return;
  }
#if ZEROFLOW_HAS_CUDA
  ZF_EXPECTS(fused_mlp::supported(shape.features, shape.hidden, shape.code),
             "the GPU MLP engine takes the widths its fused step takes (fused_mlp_step.hpp)");
  const on_model_device on(where_);
  params_ = copy_to(host, where_, {});  // from pageable memory: staged before it returns
#else
  // A build without CUDA holds no model on a GPU, so train() and forward() need no such case.
  ZF_THROW(cuda_error, "an MLP on a GPU needs a CUDA build of zeroflow");
#endif
}

mlp_train_result mlp_engine::train(const array& rows, const mlp_train_options& options, stream_view stream) {
  const bool on_gpu = where_.is_cuda();
  const on_model_device on(where_);
  const array x = rows_here(rows, stream);
  const std::int64_t n = x.shape(0), features = shape_.features;
  ZF_EXPECTS(n >= 1, "no rows to train on");
  mlp_train_result result;
  if (options.epochs == 0) return result;
  const std::int64_t batch = options.batch == 0 || options.batch >= n ? n : options.batch;
  const std::int64_t batches = (n + batch - 1) / batch;
  const std::int64_t count = offsets_.back();
  const array grads = empty({count}, float32, where_, stream);
  const array exp_avg = zeros({count}, float32, where_, stream);
  const array exp_avg_sq = zeros({count}, float32, where_, stream);
  const array step = zeros({1}, float32, where_, stream);
  const array losses = zeros({options.epochs * batches}, float64, where_, stream);  // one per batch
  const adam_update update{.params = params_.data_as<float>(),
                           .grads = grads.data_as<float>(),
                           .exp_avg = exp_avg.data_as<float>(),
                           .exp_avg_sq = exp_avg_sq.data_as<float>(),
                           .step = step.data_as<float>(),
                           .count = count,
                           .learning_rate = options.learning_rate,
                           .weight_decay = options.weight_decay};
  // Batches visit the rows in epoch_order's order, drawn on the host; a GPU gathers each batch
  // into one contiguous block for its fused step.
  std::vector<std::int64_t> all(batch < n ? static_cast<std::size_t>(n) : 0), order_here;
  std::iota(all.begin(), all.end(), std::int64_t{0});
  const array order = on_gpu && batch < n ? empty({n}, int64, where_, stream) : array{};
  const array batch_rows = on_gpu && batch < n ? empty({batch, features}, float32, where_, stream) : array{};
#if ZEROFLOW_HAS_CUDA
  const array scratch =
      on_gpu ? empty({fused_mlp::scratch_floats(batch, features, shape_.hidden, shape_.code)}, float32, where_, stream)
             : array{};
  const auto gradient = [&](int s) { return grads.data_as<float>() + offsets_[static_cast<std::size_t>(s)]; };
  fused_mlp::step_args gpu_step{
      .w = mlp_weights_at(params_.data_as<const float>(), shape_),
      .grads = {gradient(0), gradient(1), gradient(2), gradient(3), gradient(4), gradient(5), gradient(6), gradient(7)},
      .x = batch < n && on_gpu ? batch_rows.data_as<const float>() : x.data_as<const float>(),
      .rows = batch,
      .loss = nullptr,
      .scratch = on_gpu ? scratch.data_as<float>() : nullptr};
#endif
  const auto queue_step = [&](std::int64_t first, std::int64_t m, double* loss) {
    if (!on_gpu) {
      const std::int64_t* rows_of = batch < n ? order_here.data() + first : nullptr;
      *loss = cpu_mlp_step(shape_, offsets_, params_.data_as<const float>(), x.data_as<const float>(), rows_of, m,
                           grads.data_as<float>(), kernel_threads());
      *step.data_as<float>() += 1.0F;
      apply_adam_on_host(update);
      return;
    }
#if ZEROFLOW_HAS_CUDA
    if (batch < n)
      fused_mlp::gather_rows(x.data_as<const float>(), order.data_as<const std::int64_t>(), first, m, features,
                             batch_rows.data_as<float>(), stream);
    gpu_step.rows = m;
    gpu_step.loss = loss;
    fused_mlp::train_step(gpu_step, stream);
    queue_adam_step_count(step.data_as<float>(), stream);
    queue_adam_update(update, stream);
#endif
  };
  // An epoch's loss: its batches' losses weighted by their rows.
  const auto epoch_loss = [&](const double* batch_losses) {
    double sum = 0.0;
    for (std::int64_t b = 0; b < batches; ++b)
      sum += batch_losses[b] * static_cast<double>(std::min(batch, n - b * batch));
    return sum / static_cast<double>(n);
  };
  // A GPU's losses are read once at the end, or each epoch for someone watching; the host's are
  // at hand, so a diverged training stops at once.
  const bool read_each_epoch = !on_gpu || static_cast<bool>(options.on_epoch);
  std::vector<double> read(static_cast<std::size_t>(batches));
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    if (batch < n) {
      epoch_order(all.data(), n, options.seed, epoch, kernel_threads(), order_here);
      // From pageable memory: staged before the call returns, so order_here may change after.
      if (on_gpu) copy_bytes(order.data(), where_, order_here.data(), cpu_device, order.nbytes(), stream);
    }
    double* epoch_losses = losses.data_as<double>() + epoch * batches;
    for (std::int64_t b = 0; b < batches; ++b) queue_step(b * batch, std::min(batch, n - b * batch), epoch_losses + b);
    if (!read_each_epoch) continue;
    copy_bytes(read.data(), cpu_device, epoch_losses, where_, read.size() * sizeof(double), stream);
    const double loss = epoch_loss(read.data());
    if (!std::isfinite(loss)) throw_mlp_diverged(epoch, loss, options);
    if (options.on_epoch) options.on_epoch(epoch, loss);
  }
  const array host = on_gpu ? copy_to(losses, cpu_device, stream) : losses;
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    result.epoch_loss.push_back(epoch_loss(host.data_as<const double>() + epoch * batches));
    if (!std::isfinite(result.epoch_loss.back())) throw_mlp_diverged(epoch, result.epoch_loss.back(), options);
  }
  return result;
}

array mlp_engine::reconstruct(const array& rows, stream_view stream) const {
  const on_model_device on(where_);
  const array x = rows_here(rows, stream);
  const array out = empty(x.shape(), float32, where_, stream);
  forward(x, nullptr, out.data_as<float>(), stream);
  return on_rows_device(out, rows, stream);
}

array mlp_engine::score(const array& rows, stream_view stream) const {
  const on_model_device on(where_);
  const array x = rows_here(rows, stream);
  const array out = empty({x.shape(0)}, float32, where_, stream);
  forward(x, out.data_as<float>(), nullptr, stream);
  return on_rows_device(out, rows, stream);
}

std::vector<io::safetensor> mlp_engine::weights() const {
  const array host = where_.is_cuda() ? copy_to(params_, cpu_device, {}) : params_;
  std::vector<io::safetensor> out;
  for (int s = 0; s < mlp_slots; ++s)
    out.push_back(io::make_safetensor(mlp_slot_names[static_cast<std::size_t>(s)], mlp_slot_shape(s, shape_),
                                      host.data_as<const float>() + offsets_[static_cast<std::size_t>(s)]));
  return out;
}

array mlp_engine::on_rows_device(const array& out, const array& rows, stream_view stream) const {
  if (rows.where() == where_) return out;
  array there = copy_to(out, rows.where(), stream);
  if (rows.where().is_cuda()) synchronize(stream);
  return there;
}

array mlp_engine::rows_here(const array& rows, stream_view stream) const {
  check_mlp_rows(rows, shape_.features);
  const array x = rows.where() == where_ && rows.is_contiguous() ? rows : copy_to(rows, where_, stream);
  const non_finite_count bad =
      count_non_finite(x.data_as<const float>(), where_, x.shape(0), shape_.features, shape_.features, 1, stream);
  if (bad.count > 0) throw_mlp_non_finite(bad.count, bad.first / shape_.features);
  return x;
}

void mlp_engine::forward(const array& x, float* score, float* recon, [[maybe_unused]] stream_view stream) const {
  const mlp_forward::weights w = mlp_weights_at(params_.data_as<const float>(), shape_);
  const float* rows = x.data_as<const float>();
  const std::int64_t n = x.shape(0);
#if ZEROFLOW_HAS_CUDA
  if (where_.is_cuda()) {
    mlp_forward::forward_rows_cuda(w, rows, n, score, recon, stream);
    return;
  }
#endif
  const std::int64_t chunks = (n + scoring_chunk_rows - 1) / scoring_chunk_rows;
#pragma omp parallel for schedule(static) num_threads(kernel_threads())
  for (std::int64_t c = 0; c < chunks; ++c)
    mlp_forward::forward_rows_host(w, rows, c * scoring_chunk_rows, std::min(n, (c + 1) * scoring_chunk_rows), score,
                                   recon);
}

}  // namespace zeroflow::model::detail
