/// @file gpu_mlp_engine.cu
/// The MLP autoencoder's own GPU engine (gpu_mlp_engine.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "adam_update.hpp"
#include "cpu_threads.hpp"
#include "epoch_order.hpp"
#include "finite_rows.hpp"
#include "fused_mlp_step.hpp"
#include "gpu_mlp_engine.hpp"
#include "mlp_checks.hpp"
#include "mlp_init.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/safetensors.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::model::detail {

namespace {

template <class T>
T* pointer(const array& a) {
  return static_cast<T*>(a.data());
}

/// out[r·F + c] = x[order[first + r]·F + c] for the m rows of one batch: the batch's rows in the
/// epoch's order, contiguous for the fused step.
__global__ void gather_rows(const float* __restrict__ x, const std::int64_t* __restrict__ order, std::int64_t first,
                            std::int64_t m, std::int64_t features, float* __restrict__ out) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m * features) return;
  const std::int64_t r = i / features;
  out[i] = x[order[first + r] * features + (i - r * features)];
}

class gpu_mlp final : public mlp_engine {
 public:
  gpu_mlp(const mlp_shape& shape, device gpu, const std::vector<float>& params)
      : shape_{shape}, gpu_{gpu}, offsets_{mlp_slot_offsets(shape)} {
    ZF_EXPECTS(static_cast<std::int64_t>(params.size()) == offsets_.back(), "the MLP needs ", offsets_.back(),
               " parameters, got ", params.size());
    array host = empty({offsets_.back()}, float32, cpu_device);
    std::copy(params.begin(), params.end(), pointer<float>(host));
    params_ = copy_to(host, gpu_, {});  // from pageable memory: staged before it returns
  }

  mlp_train_result train(const array& rows, const mlp_train_options& options, stream_view stream) override {
    const zeroflow::detail::cuda_device_guard on(gpu_.id);
    const array x = rows_here(rows, stream);
    const std::int64_t n = x.shape(0);
    ZF_EXPECTS(n >= 1, "no rows to train on");
    mlp_train_result result;
    if (options.epochs == 0) return result;
    // Batched: every epoch visits the rows in the CPU engine's order (epoch_order, drawn on the
    // host and uploaded: n indices an epoch), each batch gathered into one contiguous block.
    const std::int64_t batch = options.batch == 0 || options.batch >= n ? n : options.batch;
    const std::int64_t batches = (n + batch - 1) / batch;
    const std::int64_t count = offsets_.back();
    const array grads = empty({count}, float32, gpu_, stream);
    const array exp_avg = zeros({count}, float32, gpu_, stream);
    const array exp_avg_sq = zeros({count}, float32, gpu_, stream);
    const array step = zeros({1}, float32, gpu_, stream);
    const array losses = zeros({options.epochs * batches}, float64, gpu_, stream);
    const array scratch =
        empty({fused_mlp::scratch_floats(batch, shape_.features, shape_.hidden, shape_.code)}, float32, gpu_, stream);
    const array order = batch < n ? empty({n}, int64, gpu_, stream) : array{};
    const array batch_rows = batch < n ? empty({batch, shape_.features}, float32, gpu_, stream) : array{};
    std::vector<std::int64_t> all(batch < n ? static_cast<std::size_t>(n) : 0), order_here;
    std::iota(all.begin(), all.end(), std::int64_t{0});
    const auto at = [&](int s) { return pointer<float>(grads) + offsets_[static_cast<std::size_t>(s)]; };
    fused_mlp::step_args args{.w = mlp_weights_at(pointer<float>(params_), shape_),
                              .grads = {at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7)},
                              .x = batch < n ? pointer<float>(batch_rows) : pointer<float>(x),
                              .rows = batch,
                              .loss = nullptr,
                              .scratch = pointer<float>(scratch)};
    const adam_update update{.params = pointer<float>(params_),
                             .grads = pointer<float>(grads),
                             .exp_avg = pointer<float>(exp_avg),
                             .exp_avg_sq = pointer<float>(exp_avg_sq),
                             .step = pointer<float>(step),
                             .count = count,
                             .learning_rate = options.learning_rate,
                             .weight_decay = options.weight_decay};
    // An epoch's loss as the CPU engine's: its batches' losses weighted by their rows.
    const auto epoch_loss = [&](const double* batch_losses) {
      double sum = 0.0;
      for (std::int64_t b = 0; b < batches; ++b)
        sum += batch_losses[b] * static_cast<double>(std::min(batch, n - b * batch));
      return sum / static_cast<double>(n);
    };
    for (int epoch = 0; epoch < options.epochs; ++epoch) {
      if (batch < n) {
        epoch_order(all.data(), n, options.seed, epoch, kernel_threads(), order_here);
        // From pageable memory: staged before the call returns, so order_here may change after.
        ZF_CUDA_TRY(cudaMemcpyAsync(order.data(), order_here.data(), static_cast<std::size_t>(n) * sizeof(std::int64_t),
                                    cudaMemcpyHostToDevice, stream.value()));
      }
      for (std::int64_t b = 0; b < batches; ++b) {
        args.rows = std::min(batch, n - b * batch);
        args.loss = pointer<double>(losses) + epoch * batches + b;
        if (batch < n) {
          constexpr int threads = 256;
          const std::int64_t values = args.rows * shape_.features;
          gather_rows<<<static_cast<unsigned>((values + threads - 1) / threads), threads, 0, stream.value()>>>(
              pointer<float>(x), pointer<std::int64_t>(order), b * batch, args.rows, shape_.features,
              pointer<float>(batch_rows));
          ZF_CUDA_TRY(cudaGetLastError());
        }
        fused_mlp::train_step(args, stream);
        queue_adam_step_count(pointer<float>(step), stream);
        queue_adam_update(update, stream);
      }
      if (options.on_epoch) {  // one read an epoch only for someone watching
        std::vector<double> batch_losses(static_cast<std::size_t>(batches));
        ZF_CUDA_TRY(cudaMemcpyAsync(batch_losses.data(), pointer<double>(losses) + epoch * batches,
                                    batch_losses.size() * sizeof(double), cudaMemcpyDeviceToHost, stream.value()));
        ZF_CUDA_TRY(cudaStreamSynchronize(stream.value()));
        const double loss = epoch_loss(batch_losses.data());
        if (!std::isfinite(loss)) throw_mlp_diverged(epoch, loss, options);
        options.on_epoch(epoch, loss);
      }
    }
    const array host = copy_to(losses, cpu_device, stream);
    for (int epoch = 0; epoch < options.epochs; ++epoch)
      result.epoch_loss.push_back(epoch_loss(pointer<double>(host) + epoch * batches));
    for (int epoch = 0; epoch < options.epochs; ++epoch)
      if (!std::isfinite(result.epoch_loss[static_cast<std::size_t>(epoch)]))
        throw_mlp_diverged(epoch, result.epoch_loss[static_cast<std::size_t>(epoch)], options);
    return result;
  }

  [[nodiscard]] array reconstruct(const array& rows, stream_view stream) const override {
    const zeroflow::detail::cuda_device_guard on(gpu_.id);
    const array x = rows_here(rows, stream);
    const array out = empty(rows.shape(), float32, gpu_, stream);
    mlp_forward::forward_rows_cuda(mlp_weights_at(pointer<float>(params_), shape_), pointer<float>(x), x.shape(0),
                                   nullptr, pointer<float>(out), stream);
    return rows.where() == gpu_ ? out : copy_to(out, rows.where(), stream);
  }

  [[nodiscard]] array score(const array& rows, stream_view stream) const override {
    const zeroflow::detail::cuda_device_guard on(gpu_.id);
    const array x = rows_here(rows, stream);
    const array out = empty({x.shape(0)}, float32, gpu_, stream);
    mlp_forward::forward_rows_cuda(mlp_weights_at(pointer<float>(params_), shape_), pointer<float>(x), x.shape(0),
                                   pointer<float>(out), nullptr, stream);
    return rows.where() == gpu_ ? out : copy_to(out, rows.where(), stream);
  }

  [[nodiscard]] std::vector<io::safetensor> weights() const override {
    const array host = copy_to(params_, cpu_device, {});
    std::vector<io::safetensor> out;
    for (int s = 0; s < mlp_slots; ++s)
      out.push_back(io::make_safetensor(mlp_slot_names[static_cast<std::size_t>(s)], mlp_slot_shape(s, shape_),
                                        pointer<float>(host) + offsets_[static_cast<std::size_t>(s)]));
    return out;
  }

  [[nodiscard]] const mlp_shape& shape() const override { return shape_; }
  [[nodiscard]] device where() const override { return gpu_; }
  [[nodiscard]] std::int64_t parameter_count() const override { return offsets_.back(); }

 private:
  /// The rows as a contiguous N × F array on this GPU (a view when they already are), checked
  /// finite by one kernel.
  array rows_here(const array& rows, stream_view stream) const {
    check_mlp_rows(rows, shape_.features);
    const array x = rows.where() == gpu_ && rows.is_contiguous() ? rows : copy_to(rows, gpu_, stream);
    const std::int64_t n = x.shape(0);
    const non_finite_count bad =
        count_non_finite_on_gpu(pointer<float>(x), n, shape_.features, shape_.features, 1, stream);
    if (bad.count > 0) throw_mlp_non_finite(bad.count, bad.first / shape_.features);
    return x;
  }

  mlp_shape shape_;
  device gpu_;
  std::array<std::int64_t, mlp_slots + 1> offsets_;
  array params_;
};

}  // namespace

std::unique_ptr<mlp_engine> make_gpu_mlp(const mlp_shape& shape, device gpu, const std::vector<float>& params) {
  check_mlp_shape(shape);
  ZF_EXPECTS(gpu.is_cuda(), "the GPU MLP engine needs a CUDA device, got ", gpu.name());
  ZF_EXPECTS(fused_mlp::supported(shape.features, shape.hidden, shape.code),
             "the GPU MLP engine takes the widths its fused step takes (fused_mlp_step.hpp)");
  const zeroflow::detail::cuda_device_guard on(gpu.id);
  return std::make_unique<gpu_mlp>(shape, gpu, params);
}

}  // namespace zeroflow::model::detail
