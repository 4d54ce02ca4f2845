/// @file vae_train.cpp
/// zeroflow::model::vae::train: the split, the epochs on the chosen training path
/// (training_path.hpp) and the test loss.
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "cuda_graph_trainer.hpp"
#include "fused_step.hpp"
#include "light_vae.hpp"
#include "light_vae_init.hpp"
#include "row_split.hpp"
#include "run_generators.hpp"
#include "vae_impl.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/model/vae.hpp"

#if ZEROFLOW_HAS_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "gpu_light_vae_trainer.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#endif

namespace zeroflow::model {

namespace {

// Says why an epoch's loss is not finite: rows whose squares overflow float32, or steps that
// blew up. The rows are known to be finite here (check_finite_rows).
// epoch < 0: the test split's loss after training.
[[noreturn]] void throw_diverged(int epoch, double loss, const torch::Tensor& data, const train_options& options) {
  // max and min, not abs(): no temporary the size of the rows (they may fill the budget).
  const double largest = data.numel() > 0 ? std::max(data.max().item<double>(), -data.min().item<double>()) : 0.0;
  char magnitude[32];
  std::snprintf(magnitude, sizeof magnitude, "%.3g", largest);
  const std::string why =
      largest > 1e15 ? std::string("the rows reach ") + magnitude +
                           " in magnitude, too large for float32 arithmetic: normalise them (robust z-scores) or "
                           "remove the spikes that make them"
                     : "lower the learning rate (now " + std::to_string(options.learning_rate) + ")";
  const char* value = std::isnan(loss) ? "NaN" : "infinite";
  if (epoch < 0) ZF_THROW(error, "training diverged: the loss of the test rows is ", value, "; ", why);
  ZF_THROW(error, "training diverged at epoch ", epoch + 1, " of ", options.epochs, ": its loss is ", value, "; ", why);
}

// The eager path: the training epochs one kernel launch at a time, with torch::optim::Adam (the
// CPU's path, and on a GPU the reference that the CUDA-graph trainer replays).
void train_eagerly(detail::light_vae& net, const torch::Tensor& data, const torch::Tensor& train_index,
                   const train_options& options, train_result& result) {
  const c10::Device dev = data.device();
  const std::int64_t n_train = train_index.size(0);
  const detail::op_kernels kernels = options.fused_ops ? detail::op_kernels::fused : detail::op_kernels::libtorch;
  const detail::op_kernels_scope ops(net, kernels);
  torch::optim::Adam optimiser(net->parameters(), torch::optim::AdamOptions(options.learning_rate));
  result.epoch_loss.reserve(static_cast<std::size_t>(options.epochs));
  const auto long_on_dev = torch::TensorOptions().dtype(torch::kLong).device(dev);
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    const torch::Tensor order = train_index.index_select(0, torch::randperm(n_train, net->noise(), long_on_dev));
    // Summed on the device: one host synchronisation per epoch instead of one per step.
    torch::Tensor total = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(dev));
    for (std::int64_t begin = 0; begin < n_train; begin += options.batch) {
      const std::int64_t end = std::min(n_train, begin + options.batch);
      const torch::Tensor x = data.index_select(0, order.slice(0, begin, end));
      optimiser.zero_grad();
      const detail::reconstruction out = net->forward(x);
      const torch::Tensor loss = detail::vae_loss(out.recon, x, out.mu, out.logvar, kernels);
      loss.backward();
      total += loss.detach();
      optimiser.step();
    }
    const double epoch_loss = total.item<double>() / static_cast<double>(n_train);
    if (!std::isfinite(epoch_loss)) throw_diverged(epoch, epoch_loss, data, options);
    result.epoch_loss.push_back(epoch_loss);
    if (options.on_epoch) options.on_epoch(epoch, epoch_loss);
  }
}

// The GPU paths: each step replayed from a CUDA graph (cuda_graph_trainer.hpp). Its losses stay on
// the GPU until the end unless someone watches each epoch: then a diverged epoch stops training
// at once, otherwise it is found afterwards.
void train_with_graphs(detail::light_vae& net, const torch::Tensor& data, const torch::Tensor& train_index,
                       const train_options& options, train_result& result) {
  train_options watched = options;
  if (options.on_epoch) {
    watched.on_epoch = [&](int epoch, double loss) {
      if (!std::isfinite(loss)) throw_diverged(epoch, loss, data, options);
      options.on_epoch(epoch, loss);
    };
  }
  result.epoch_loss = detail::train_with_cuda_graphs(net, data, train_index, watched).epoch_loss;
  for (std::size_t epoch = 0; epoch < result.epoch_loss.size(); ++epoch)
    if (!std::isfinite(result.epoch_loss[epoch]))
      throw_diverged(static_cast<int>(epoch), result.epoch_loss[epoch], data, options);
}

// The seed's loss over the test rows after training, per row (the forward pass samples z).
double test_loss(detail::light_vae& net, const torch::Tensor& data, const torch::Tensor& test_index,
                 const train_options& options) {
  const std::int64_t n_test = test_index.size(0);
  const c10::Device dev = data.device();
  torch::NoGradGuard no_grad;
  if (options.path == training_path::fused_kernels) {
    // One kernel for all test rows, and no cuDNN at all in the run: LibTorch's eager forward would
    // be the process's first cuDNN use, with its library loading and per-shape set-up.
    const torch::Tensor eps =
        torch::randn({n_test, 2}, net->noise(), torch::TensorOptions().dtype(torch::kFloat).device(dev));
    const torch::Tensor losses = detail::fused_row_losses(net, data, test_index, eps);
    return losses.sum(torch::kDouble).item<double>() / static_cast<double>(n_test);
  }
  const detail::op_kernels kernels = options.fused_ops ? detail::op_kernels::fused : detail::op_kernels::libtorch;
  const detail::op_kernels_scope ops(net, kernels);
  torch::Tensor total = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(dev));
  for (std::int64_t begin = 0; begin < n_test; begin += options.batch) {
    const std::int64_t end = std::min(n_test, begin + options.batch);
    const torch::Tensor x = data.index_select(0, test_index.slice(0, begin, end));
    const detail::reconstruction out = net->forward(x);
    total += detail::vae_loss(out.recon, x, out.mu, out.logvar, kernels);
  }
  return total.item<double>() / static_cast<double>(n_test);
}

#if ZEROFLOW_HAS_CUDA
// The fused_kernels path: zeroflow's own kernels from the first step to the test loss
// (gpu_light_vae_trainer.hpp); the module's parameters are packed into one array for it and
// copied back afterwards.
void train_on_own_kernels(detail::light_vae& net, const torch::Tensor& data, const torch::Tensor& train_index,
                          const torch::Tensor& test_index, const train_options& options, train_result& result) {
  const c10::cuda::CUDAGuard on_device(data.device());
  const auto stream = stream_view{c10::cuda::getCurrentCUDAStream(data.device().index()).stream()};
  // Packed with copies, not LibTorch's cat: the path launches no LibTorch kernel.
  auto named = net->named_parameters();
  const auto offsets = detail::light_vae_slot_offsets(net->width());
  const array packed = empty({offsets.back()}, float32, cuda_device(data.device().index()), stream);
  auto* params = static_cast<float*>(packed.data());
  const auto copy_slots = [&](bool into_packed) {
    for (std::size_t s = 0; s < detail::light_vae_slot_names.size(); ++s) {
      torch::Tensor p = named[detail::light_vae_slot_names[s]];
      float* slot = params + offsets[s];
      const auto bytes = static_cast<std::size_t>(p.numel()) * sizeof(float);
      ZF_CUDA_TRY(cudaMemcpyAsync(into_packed ? slot : p.data_ptr<float>(), into_packed ? p.data_ptr<float>() : slot,
                                  bytes, cudaMemcpyDeviceToDevice, stream.value()));
    }
  };
  copy_slots(true);
  detail::gpu_light_vae_trainer trainer(params, net->width(), data.data_ptr<float>(), data.size(0),
                                        options.learning_rate, stream);
  detail::gpu_training_options o;
  o.epochs = options.epochs;
  o.batch = options.batch;
  o.learning_rate = options.learning_rate;
  o.seed = options.seed;
  if (options.on_epoch) {
    o.on_epoch = [&](int epoch, double loss) {
      if (!std::isfinite(loss)) throw_diverged(epoch, loss, data, options);
      options.on_epoch(epoch, loss);
    };
  }
  const auto store = [&] { copy_slots(false); };
  try {
    result.epoch_loss = trainer.train(train_index.data_ptr<std::int64_t>(), train_index.size(0), o).epoch_loss;
  } catch (...) {
    store();  // the weights of the failed epoch, as the other paths leave them
    throw;
  }
  store();
  for (std::size_t epoch = 0; epoch < result.epoch_loss.size(); ++epoch)
    if (!std::isfinite(result.epoch_loss[epoch]))
      throw_diverged(static_cast<int>(epoch), result.epoch_loss[epoch], data, options);
  const std::int64_t n_test = test_index.size(0);
  result.test_loss = n_test == 0 ? std::numeric_limits<double>::quiet_NaN()
                                 : trainer.mean_loss(test_index.data_ptr<std::int64_t>(), n_test, options.seed);
}
#endif

// The run's device generator drives the network's noise and the loop's draws while it trains.
class noise_scope {
 public:
  noise_scope(detail::light_vae& net, const at::Generator& generator) : net_{net} { net_->use_noise(generator); }
  ~noise_scope() { net_->use_noise(std::nullopt); }
  noise_scope(const noise_scope&) = delete;
  noise_scope& operator=(const noise_scope&) = delete;

 private:
  detail::light_vae& net_;
};

}  // namespace

train_result vae::train(const array& rows, const train_options& options) {
  ZF_EXPECTS(options.epochs >= 0, "epochs must be >= 0, got ", options.epochs);
  ZF_EXPECTS(options.batch >= 1, "batch must be >= 1, got ", options.batch);
  ZF_EXPECTS(options.test_fraction >= 0.0 && options.test_fraction < 1.0, "test_fraction must be in [0, 1), got ",
             options.test_fraction);
  ZF_EXPECTS(options.learning_rate > 0.0, "learning_rate must be > 0, got ", options.learning_rate);
  // The one decision of this run; everything below follows it.
  train_options run = options;
  run.path = choose_training_path(where(), width(), options.path);
  detail::configure_torch_threads();
  detail::light_vae& net = impl_->module;
  const c10::Device dev = impl_->tdevice;
  torch::Tensor data = detail::rows_on(rows, width(), dev);
  // The fused kernels read rows in place: a strided view is made contiguous once.
  if (run.path == training_path::fused_kernels) data = data.contiguous();
  const std::int64_t n = data.size(0);
  const auto n_train = static_cast<std::int64_t>(std::floor((1.0 - options.test_fraction) * static_cast<double>(n)));
  ZF_EXPECTS(n_train >= 1, "too few rows to train on: ", n, " rows, test_fraction ", options.test_fraction);
  const std::int64_t n_test = n - n_train;
  detail::check_finite_rows(data);

  // The split is made on the host by zeroflow's own shuffle (row_split.hpp), so it is the same on
  // every path and device for a given seed. The LibTorch paths draw their shuffles and noise from
  // the run's own generators, so that runs in other threads do not change what this one draws.
  const detail::row_split split = detail::split_rows(n, options.test_fraction, options.seed);
  const auto longs = torch::TensorOptions().dtype(torch::kLong);
  const torch::Tensor train_index = torch::tensor(split.train, longs).to(dev);
  const torch::Tensor test_index = (n_test > 0 ? torch::tensor(split.test, longs) : torch::empty({0}, longs)).to(dev);

  train_result result;
  result.path = run.path;
#if ZEROFLOW_HAS_CUDA
  if (run.path == training_path::fused_kernels) {
    train_on_own_kernels(net, data, train_index, test_index, run, result);
  } else
#endif
  {
    const detail::run_generators generators = detail::generators_for(options.seed, dev);
    const noise_scope noise(net, generators.device);
    net->train();
    if (run.path == training_path::eager)
      train_eagerly(net, data, train_index, run, result);
    else
      train_with_graphs(net, data, train_index, run, result);
    net->eval();
    result.test_loss = n_test == 0 ? std::numeric_limits<double>::quiet_NaN() : test_loss(net, data, test_index, run);
  }
  net->eval();
  if (n_test > 0 && !std::isfinite(result.test_loss)) throw_diverged(-1, result.test_loss, data, options);
  impl_->history.train_seed = options.seed;
  impl_->history.epochs += options.epochs;
  result.train_index = detail::export_to(train_index, rows.where());
  result.test_index = detail::export_to(test_index, rows.where());
  return result;
}

}  // namespace zeroflow::model
