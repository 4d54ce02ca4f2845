/// @file gpu_mlp_engine.cu
/// The MLP autoencoder's own GPU engine (gpu_mlp_engine.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "adam_update.hpp"
#include "finite_rows.hpp"
#include "fused_mlp_step.hpp"
#include "gpu_mlp_engine.hpp"
#include "mlp_checks.hpp"
#include "mlp_init.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/model/model_file.hpp"

namespace zeroflow::model::detail {

namespace {

template <class T>
T* pointer(const array& a) {
  return static_cast<T*>(a.data());
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

  [[nodiscard]] bool trains(const array& rows, const mlp_train_options& options) const override {
    if (options.epochs == 0 || !rows.valid() || rows.ndim() < 1) return true;  // nothing to run, or refusals
    return options.path == training_path::fused_kernels;                       // the rest is LibTorch's
  }

  mlp_train_result train(const array& rows, const mlp_train_options& options, stream_view stream) override {
    const zeroflow::detail::cuda_device_guard on(gpu_.id);
    const array x = rows_here(rows, stream);
    const std::int64_t n = x.shape(0);
    ZF_EXPECTS(n >= 1, "no rows to train on");
    mlp_train_result result;
    if (options.epochs == 0) return result;
    ZF_EXPECTS(trains(rows, options), "this training needs the LibTorch engine");  // mlp_autoencoder hands it over
    const std::int64_t count = offsets_.back();
    const array grads = empty({count}, float32, gpu_, stream);
    const array exp_avg = zeros({count}, float32, gpu_, stream);
    const array exp_avg_sq = zeros({count}, float32, gpu_, stream);
    const array step = zeros({1}, float32, gpu_, stream);
    const array losses = zeros({options.epochs}, float64, gpu_, stream);
    const array scratch =
        empty({fused_mlp::scratch_floats(n, shape_.features, shape_.hidden, shape_.code)}, float32, gpu_, stream);
    const auto at = [&](int s) { return pointer<float>(grads) + offsets_[static_cast<std::size_t>(s)]; };
    fused_mlp::step_args args{.w = mlp_weights_at(pointer<float>(params_), shape_),
                              .grads = {at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7)},
                              .x = pointer<float>(x),
                              .rows = n,
                              .loss = nullptr,
                              .scratch = pointer<float>(scratch)};
    const adam_update update{.params = pointer<float>(params_),
                             .grads = pointer<float>(grads),
                             .exp_avg = pointer<float>(exp_avg),
                             .exp_avg_sq = pointer<float>(exp_avg_sq),
                             .step = pointer<float>(step),
                             .count = count,
                             .learning_rate = options.learning_rate,
                             .weight_decay = options.weight_decay,
                             // as the LibTorch engine's capturable step, which the tests compare with
                             .rounding = adam_rounding::fused_kernel};
    for (int epoch = 0; epoch < options.epochs; ++epoch) {
      args.loss = pointer<double>(losses) + epoch;
      fused_mlp::train_step(args, stream);
      queue_adam_step_count(pointer<float>(step), stream);
      queue_adam_update(update, stream);
      if (options.on_epoch) {  // one read an epoch only for someone watching
        double loss = 0;
        ZF_CUDA_TRY(cudaMemcpyAsync(&loss, args.loss, sizeof loss, cudaMemcpyDeviceToHost, stream.value()));
        ZF_CUDA_TRY(cudaStreamSynchronize(stream.value()));
        if (!std::isfinite(loss)) throw_mlp_diverged(epoch, loss, options);
        options.on_epoch(epoch, loss);
      }
    }
    const array host = copy_to(losses, cpu_device, stream);
    const double* values = pointer<double>(host);
    result.epoch_loss.assign(values, values + options.epochs);
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
      out.push_back(float_tensor(mlp_slot_names[static_cast<std::size_t>(s)], mlp_slot_shape(s, shape_),
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
             "the GPU MLP engine takes at most 16 features and 64 hidden and code units");
  const zeroflow::detail::cuda_device_guard on(gpu.id);
  return std::make_unique<gpu_mlp>(shape, gpu, params);
}

}  // namespace zeroflow::model::detail
