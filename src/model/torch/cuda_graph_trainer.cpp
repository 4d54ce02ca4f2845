/// @file cuda_graph_trainer.cpp
/// Training epochs as replays of a CUDA graph of the whole step (see cuda_graph_trainer.hpp).
#include "cuda_graph_trainer.hpp"

#include <mutex>
#include <optional>
#include <vector>

#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"

#if ZEROFLOW_HAS_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>

#include "capturable_adam.hpp"
#include "fused_step.hpp"
#endif

namespace zeroflow::model::detail {

bool cuda_graph_training_available() { return ZEROFLOW_HAS_CUDA != 0; }

#if ZEROFLOW_HAS_CUDA

namespace {

// Eager steps before capture, as in PyTorch's whole-network capture example: they create the
// cuDNN/cuBLAS handles and workspaces for the capturing stream and autograd's lazy state, which
// must not be created during capture. Their effect on the model is undone before capturing.
constexpr int warmup_steps = 3;

// The device tensors one training run replays on. Everything a captured step reads or writes
// outside the graph's own memory lives here, allocated before capture, at fixed addresses.
class graph_step {
 public:
  graph_step(light_vae& net, const torch::Tensor& data, const torch::Tensor& train_index, const train_options& options)
      : net_{net},
        data_{data},
        train_index_{train_index},
        params_{net->parameters()},
        adam_{params_, adam_settings{.learning_rate = options.learning_rate}},
        n_train_{train_index.size(0)},
        full_steps_{n_train_ / options.batch},
        tail_rows_{n_train_ % options.batch},
        generator_{net->noise() ? *net->noise() : at::cuda::detail::getDefaultCUDAGenerator(data.device().index())} {
    const auto long_on_dev = torch::TensorOptions().dtype(torch::kLong).device(data.device());
    const auto double_on_dev = torch::TensorOptions().dtype(torch::kDouble).device(data.device());
    order_ = torch::empty({n_train_}, long_on_dev);
    batch_index_ = torch::zeros({1}, long_on_dev);
    total_ = torch::zeros({}, double_on_dev);
    epoch_losses_ = torch::zeros({std::max(options.epochs, 1)}, double_on_dev);
    if (full_steps_ > 0) full_batches_ = order_.narrow(0, 0, full_steps_ * options.batch).view({full_steps_, -1});
    if (tail_rows_ > 0) tail_batch_ = order_.narrow(0, full_steps_ * options.batch, tail_rows_);
    if (options.path == training_path::fused_kernels) {
      std::vector<std::int64_t> batches;
      if (full_steps_ > 0) batches.push_back(options.batch);
      if (tail_rows_ > 0) batches.push_back(tail_rows_);
      fused_.emplace(net, batches);
    }
  }

  [[nodiscard]] bool fused() const { return fused_.has_value(); }

  [[nodiscard]] std::int64_t full_steps() const { return full_steps_; }
  [[nodiscard]] bool has_tail() const { return tail_rows_ > 0; }

  // One optimisation step on batch `batch_index_` of `order_` (full) or on the last, smaller
  // batch. Queues device work only, so it can be captured.
  void run(bool full) {
    const torch::Tensor rows = full ? full_batches_.index_select(0, batch_index_).view({-1}) : tail_batch_;
    if (fused_) {
      // Forward, loss and backward in two kernels; the noise is drawn as the eager forward
      // draws it (randn_like of the batch × 2 standard deviations), so the generator advances alike.
      const torch::Tensor eps = torch::randn({rows.size(0), 2}, generator_, data_.options());
      fused_->run(data_, rows, eps, total_);
      if (full) {
        const torch::NoGradGuard no_grad;
        batch_index_.add_(1);
      }
      adam_.step();
      return;
    }
    const torch::Tensor x = data_.index_select(0, rows);
    const reconstruction out = net_->forward(x);
    const torch::Tensor loss = vae_loss(out.recon, x, out.mu, out.logvar, net_->swish_kernels());
    loss.backward();
    {
      torch::NoGradGuard no_grad;
      total_.add_(loss.detach());
      if (full) batch_index_.add_(1);
    }
    adam_.step();
  }

  // Gradients must not exist when a capture starts: backward then allocates them from the
  // graph's memory, and the captured kernels overwrite them on every replay (nothing accumulates,
  // so no zero_grad is needed in the graph).
  void drop_gradients() {
    for (torch::Tensor& p : params_) p.mutable_grad().reset();
  }

  // This epoch's order of the training rows (device randperm, as the eager loop draws it), and
  // the batch counter back to the first batch.
  void shuffle() {
    torch::index_select_out(
        order_, train_index_, 0,
        torch::randperm(n_train_, generator_, torch::TensorOptions().dtype(torch::kLong).device(data_.device())));
    batch_index_.zero_();
  }

  // Moves the epoch's summed loss into its slot and starts the next sum (device work only).
  void close_epoch(int epoch) {
    epoch_losses_.select(0, epoch).copy_(total_);
    total_.zero_();
  }

  [[nodiscard]] torch::Tensor epoch_loss(int epoch) const { return epoch_losses_.select(0, epoch); }
  [[nodiscard]] const torch::Tensor& epoch_losses() const { return epoch_losses_; }
  [[nodiscard]] std::int64_t train_rows() const { return n_train_; }
  [[nodiscard]] const at::Generator& generator() const { return generator_; }

  // Runs the warm-up steps, then puts weights, optimiser, counters and the CUDA generator back as
  // they were, so that the captured training starts from the caller's state.
  void warm_up() {
    std::vector<torch::Tensor> saved;
    for (const torch::Tensor& p : params_) saved.push_back(p.detach().clone());
    at::Generator& generator = generator_;
    torch::Tensor rng_state;
    {
      const std::lock_guard<std::mutex> lock(generator.mutex());
      rng_state = generator.get_state();
    }
    order_.copy_(train_index_);
    for (int i = 0; i < warmup_steps; ++i) {
      if (full_steps_ > 0) {
        batch_index_.zero_();
        drop_gradients();
        run(true);
      }
      if (tail_rows_ > 0) {
        drop_gradients();
        run(false);
      }
    }
    {
      torch::NoGradGuard no_grad;
      for (std::size_t i = 0; i < params_.size(); ++i) params_[i].copy_(saved[i]);
    }
    adam_.reset();
    total_.zero_();
    batch_index_.zero_();
    drop_gradients();
    const std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(rng_state);
  }

 private:
  light_vae& net_;
  torch::Tensor data_;
  torch::Tensor train_index_;
  std::vector<torch::Tensor> params_;
  capturable_adam adam_;
  std::int64_t n_train_;
  std::int64_t full_steps_;
  std::int64_t tail_rows_;
  at::Generator generator_;          // the run's own (run_generators.hpp), else LibTorch's default
  torch::Tensor order_;              // this epoch's permutation of the training rows
  torch::Tensor full_batches_;       // order_ viewed as full_steps_ × batch
  torch::Tensor tail_batch_;         // the rows of the last, smaller batch (a view of order_)
  torch::Tensor batch_index_;        // (1) int64: which full batch the next replay takes
  torch::Tensor total_;              // 0-d float64: Σ of this epoch's batch losses so far
  torch::Tensor epoch_losses_;       // (epochs) float64: Σ of each epoch's batch losses
  std::optional<fused_step> fused_;  // forward + backward in two kernels, when it applies
};

// Captures one step into `graph`. A failed capture leaves LibTorch's CUDA state in a bad way;
// the message says how to train without graphs.
void capture(at::cuda::CUDAGraph& graph, graph_step& step, bool full) {
  step.drop_gradients();
  // A generator other than the default one must be registered, or replays would draw the same
  // noise every time.
  if (step.generator() != at::cuda::detail::getDefaultCUDAGenerator(step.generator().device().index()))
    graph.register_generator_state(step.generator());
  // Thread-local capture: other threads training other recordings on this GPU at the same time may
  // allocate and synchronise while this thread captures (their streams are not being captured).
  graph.capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
  try {
    step.run(full);
  } catch (const std::exception& e) {
    try {
      graph.capture_end();  // leaves stream capture so that the process can go on
    } catch (...) {
    }
    ZF_THROW(error, "capturing the training step in a CUDA graph failed (the eager training path trains ",
             "without graphs): ", e.what());
  }
  graph.capture_end();
}

}  // namespace

graph_training_report train_with_cuda_graphs(light_vae& net, const torch::Tensor& data,
                                             const torch::Tensor& train_index, const train_options& options,
                                             const epoch_loop_hooks& hooks) {
  ZF_EXPECTS(data.is_cuda() && data.scalar_type() == torch::kFloat && data.dim() == 2,
             "train_with_cuda_graphs: rows must be a float32 N x W tensor on a GPU");
  ZF_EXPECTS(train_index.device() == data.device() && train_index.scalar_type() == torch::kLong &&
                 train_index.dim() == 1 && train_index.size(0) >= 1,
             "train_with_cuda_graphs: train_index must be non-empty int64 indices on the rows' GPU");
  ZF_EXPECTS(options.batch >= 1 && options.epochs >= 0, "train_with_cuda_graphs: bad batch or epochs");
  ZF_EXPECTS(options.path == training_path::fused_kernels || options.path == training_path::cuda_graph,
             "train_with_cuda_graphs runs the fused_kernels or the cuda_graph training path, not ",
             training_path_name(options.path));
  if (options.path == training_path::fused_kernels)
    ZF_EXPECTS(fused_step_supported(net->width()) && data.is_contiguous(),
               "train_with_cuda_graphs: the fused_kernels path needs contiguous rows of a width the fused kernels ",
               "handle, got width ", net->width());
  graph_training_report report;
  if (options.epochs == 0) return report;
  report.epoch_loss.reserve(static_cast<std::size_t>(options.epochs));

  const c10::cuda::CUDAGuard device_guard(data.device());
  const c10::DeviceIndex gpu = data.device().index();
  const c10::cuda::CUDAStream caller = c10::cuda::getCurrentCUDAStream(gpu);
  // Capture needs a stream other than the default one; the steps are replayed on it too. It
  // starts after everything the caller queued (the rows, the weights), and the caller's stream
  // resumes after the training.
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, gpu);
  at::cuda::CUDAEvent inputs_ready;
  inputs_ready.record(caller);
  inputs_ready.block(side);
  {
    const c10::cuda::CUDAStreamGuard on_side(side);
    const op_kernels_scope ops(net, options.fused_ops ? op_kernels::fused : op_kernels::libtorch);
    graph_step step(net, data, train_index, options);
    report.fused = step.fused();
    step.warm_up();

    at::cuda::CUDAGraph full_graph;
    at::cuda::CUDAGraph tail_graph;
    if (step.full_steps() > 0) {
      capture(full_graph, step, /*full=*/true);
      ++report.graphs;
    }
    if (step.has_tail()) {
      capture(tail_graph, step, /*full=*/false);
      ++report.graphs;
    }

    const auto n_train = static_cast<double>(step.train_rows());
    if (hooks.before_first_epoch) hooks.before_first_epoch();
    for (int epoch = 0; epoch < options.epochs; ++epoch) {
      step.shuffle();
      for (std::int64_t s = 0; s < step.full_steps(); ++s) full_graph.replay();
      if (step.has_tail()) tail_graph.replay();
      report.replays += step.full_steps() + (step.has_tail() ? 1 : 0);
      step.close_epoch(epoch);
      if (options.on_epoch) {
        const double loss = step.epoch_loss(epoch).item<double>() / n_train;
        ++report.host_syncs;
        options.on_epoch(epoch, loss);
      }
    }
    if (hooks.after_last_epoch) hooks.after_last_epoch();
    // The one wait for the GPU (when on_epoch is unset): all epoch losses at once.
    const torch::Tensor sums = step.epoch_losses().to(torch::kCPU);
    ++report.host_syncs;
    const auto* s = sums.data_ptr<double>();
    for (int epoch = 0; epoch < options.epochs; ++epoch) report.epoch_loss.push_back(s[epoch] / n_train);
    // The gradients live in the graphs' memory: drop them before the graphs go.
    step.drop_gradients();
  }
  at::cuda::CUDAEvent trained;
  trained.record(side);
  trained.block(caller);
  return report;
}

#else

graph_training_report train_with_cuda_graphs(light_vae&, const torch::Tensor&, const torch::Tensor&,
                                             const train_options&, const epoch_loop_hooks&) {
  ZF_THROW(cuda_error, "training with CUDA graphs needs a CUDA build of zeroflow");
}

#endif

}  // namespace zeroflow::model::detail
