/// @file torch_vae_train.cpp
/// The LibTorch backend's LightVAE training (torch_backend.hpp): the epochs on the eager or the
/// CUDA-graph path and the test loss, on weights packed by the caller.
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cuda_graph_trainer.hpp"
#include "fused_step.hpp"
#include "light_vae.hpp"
#include "run_generators.hpp"
#include "torch_stream_guard.hpp"
#include "torch_support.hpp"
#include "vae_checks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model {

namespace {

// Says why an epoch's loss is not finite (vae_checks.hpp). The rows are known to be finite here
// (check_finite_rows). epoch < 0: the test split's loss after training.
[[noreturn]] void throw_diverged(int epoch, double loss, const torch::Tensor& data, const train_options& options) {
  // max and min, not abs(): no temporary the size of the rows (they may fill the budget).
  const double largest = data.numel() > 0 ? std::max(data.max().item<double>(), -data.min().item<double>()) : 0.0;
  detail::throw_vae_diverged(epoch, loss, largest, options);
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

namespace detail {

void torch_train_vae(const packed_vae& weights, const array& rows, const std::vector<std::int64_t>& train,
                     const std::vector<std::int64_t>& test, const train_options& run, train_result& result) {
  configure_torch_threads();
  const c10::Device dev = to_torch(weights.where);
  const torch_stream_guard on_stream(weights);
  light_vae net = module_of(weights);
  const torch::Tensor data = rows_on(rows, weights.width, dev);
  const auto longs = torch::TensorOptions().dtype(torch::kLong);
  const torch::Tensor train_index = torch::tensor(train, longs).to(dev);
  const torch::Tensor test_index = (test.empty() ? torch::empty({0}, longs) : torch::tensor(test, longs)).to(dev);
  // The run's own generators, so that runs in other threads do not change what this one draws.
  const run_generators generators = generators_for(run.seed, dev);
  {
    const noise_scope noise(net, generators.device);
    net->train();
    try {
      if (run.path == training_path::eager)
        train_eagerly(net, data, train_index, run, result);
      else
        train_with_graphs(net, data, train_index, run, result);
    } catch (...) {
      store_weights(net, weights);  // the weights of the failed epoch, as the caller's to see
      throw;
    }
    net->eval();
    result.test_loss = test.empty() ? std::numeric_limits<double>::quiet_NaN() : test_loss(net, data, test_index, run);
  }
  store_weights(net, weights);
}

}  // namespace detail

}  // namespace zeroflow::model
