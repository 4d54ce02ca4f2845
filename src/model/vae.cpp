/// @file vae.cpp
/// zeroflow::model::vae: training and scoring of the LightVAE behind a pimpl (its file:
/// vae_file.cpp).
#include "zeroflow/model/vae.hpp"

#include <ATen/Parallel.h>
#include <sched.h>
#include <torch/cuda.h>
#include <torch/optim/adam.h>
#include <torch/utils.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <string>

#include "cuda_graph_trainer.hpp"
#include "fused_step.hpp"
#include "light_vae.hpp"
#include "tensor_bridge.hpp"
#include "vae_impl.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::model {

namespace {

// LibTorch sizes its intra-op pool from the machine's cores; inside a container restricted to a
// few of them that oversubscribes (and small convolutions then crawl), so cap it at the CPUs
// this process may run on. Done once: the setting is process-wide.
std::once_flag threads_configured;

void configure_threads() {
  std::call_once(threads_configured, [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return;
    const int usable = CPU_COUNT(&set);
    if (usable > 0 && at::get_num_threads() > usable) at::set_num_threads(usable);
  });
}

void check_device(device where) {
  ZF_EXPECTS(where.type == device_type::cpu || where.type == device_type::cuda,
             "a model lives on the CPU or a CUDA device, not on ", where.name());
  if (where.type == device_type::cuda) {
    if (!torch::cuda::is_available())
      ZF_THROW(cuda_error, "a model on ", where.name(), " needs LibTorch with a GPU, and none is available");
    const int gpus = static_cast<int>(torch::cuda::device_count());
    ZF_EXPECTS(where.id >= 0 && where.id < gpus, "no GPU ", where.id, " (LibTorch sees ", gpus, ")");
  }
}

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// The fused kernels (fused_step.hpp) stand in for LibTorch's eager modules on a GPU when they
// can: fewer launches, and no cuDNN at all in a GPU run.
bool uses_fused_kernels(const c10::Device& dev, std::int64_t width) {
  return dev.is_cuda() && detail::fused_step_enabled() && detail::fused_step_supported(width);
}

// The rows as a tensor on the model's device: a zero-copy view when they already live there.
torch::Tensor rows_on(const array& rows, std::int64_t width, const c10::Device& target) {
  ZF_EXPECTS(rows.valid(), "rows: empty array");
  ZF_EXPECTS(rows.type() == float32, "rows must be float32, got ", rows.type().name());
  ZF_EXPECTS(rows.ndim() == 2, "rows must be N x W, got ", rows.ndim(), " dimensions");
  ZF_EXPECTS(rows.shape(1) == width, "rows have width ", rows.shape(1), ", the model ", width);
  torch::Tensor t = detail::to_tensor(rows);
  return t.device() == target ? t : t.to(target);
}

// A result for the caller: back on the rows' device, as an array viewing the tensor's memory.
array export_to(const torch::Tensor& t, device rows_device) {
  const c10::Device target = detail::to_torch(rows_device);
  return detail::to_array(t.device() == target ? t : t.to(target));
}

// A NaN or an infinity in one row makes every batch loss that contains it NaN, and the first
// step spreads NaN into every weight: refused before it can happen. One reduction and one read
// of its count; the position is looked up only when there is something to report.
void check_finite_rows(const torch::Tensor& data) {
  const torch::Tensor bad = torch::logical_not(torch::isfinite(data));
  const auto count = bad.sum().item<std::int64_t>();
  if (count == 0) return;
  const auto first = bad.reshape({-1}).to(torch::kByte).argmax().item<std::int64_t>();
  const std::int64_t width = data.size(1);
  ZF_THROW(invalid_argument, "rows hold ", count, count == 1 ? " value that is" : " values that are",
           " NaN or infinite (the first in row ", first / width, ", column ", first % width,
           "); the model needs finite rows: fill gaps (e.g. with the row's median) or leave those rows out");
}

// Says why an epoch's loss is not finite: rows whose squares overflow float32, or steps that
// blew up. The rows are known to be finite here (check_finite_rows).
// epoch < 0: the test split's loss after training.
[[noreturn]] void throw_diverged(int epoch, double loss, const torch::Tensor& data, const train_options& options) {
  const double largest = data.numel() > 0 ? data.abs().max().item<double>() : 0.0;
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

// The training epochs one kernel launch at a time, with torch::optim::Adam: the CPU path, and on a
// GPU the reference that the CUDA-graph trainer replays.
void train_eagerly(detail::light_vae& net, const torch::Tensor& data, const torch::Tensor& train_index,
                   const train_options& options, train_result& result) {
  const c10::Device dev = data.device();
  const std::int64_t n_train = train_index.size(0);
  torch::optim::Adam optimiser(net->parameters(), torch::optim::AdamOptions(options.learning_rate));
  result.epoch_loss.reserve(static_cast<std::size_t>(options.epochs));
  const auto long_on_dev = torch::TensorOptions().dtype(torch::kLong).device(dev);
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    const torch::Tensor order = train_index.index_select(0, torch::randperm(n_train, long_on_dev));
    // Summed on the device: one host synchronisation per epoch instead of one per step.
    torch::Tensor total = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(dev));
    for (std::int64_t begin = 0; begin < n_train; begin += options.batch) {
      const std::int64_t end = std::min(n_train, begin + options.batch);
      const torch::Tensor x = data.index_select(0, order.slice(0, begin, end));
      optimiser.zero_grad();
      const detail::reconstruction out = net->forward(x);
      const torch::Tensor loss = detail::vae_loss(out.recon, x, out.mu, out.logvar);
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

}  // namespace

namespace detail {
void check_model_device(device where) { check_device(where); }
void configure_torch_threads() { configure_threads(); }
}  // namespace detail

void set_cpu_threads(int threads) {
  ZF_EXPECTS(threads >= 1, "set_cpu_threads needs at least 1 thread, got ", threads);
  configure_threads();  // so that the automatic cap never runs after an explicit choice
  at::set_num_threads(threads);
}

int cpu_threads() {
  configure_threads();
  return at::get_num_threads();
}

vae::vae(std::unique_ptr<impl> state) : impl_{std::move(state)} {}
vae::vae(vae&&) noexcept = default;
vae& vae::operator=(vae&&) noexcept = default;
vae::~vae() = default;

vae vae::create(std::int64_t width, device where, std::uint64_t seed) {
  ZF_EXPECTS(width >= 16 && is_power_of_two(width), "the VAE's width must be a power of two >= 16, got ", width);
  check_device(where);
  configure_threads();
  // Weights are drawn on the CPU from the seed, so they are the same whatever the device.
  torch::manual_seed(seed);
  auto state = std::make_unique<impl>(width, where);
  state->history.init_seed = seed;
  state->module->to(state->tdevice);
  return vae{std::move(state)};
}

train_result vae::train(const array& rows, const train_options& options) {
  ZF_EXPECTS(options.epochs >= 0, "epochs must be >= 0, got ", options.epochs);
  ZF_EXPECTS(options.batch >= 1, "batch must be >= 1, got ", options.batch);
  ZF_EXPECTS(options.test_fraction >= 0.0 && options.test_fraction < 1.0, "test_fraction must be in [0, 1), got ",
             options.test_fraction);
  ZF_EXPECTS(options.learning_rate > 0.0, "learning_rate must be > 0, got ", options.learning_rate);
  configure_threads();
  detail::light_vae& net = impl_->module;
  const c10::Device dev = impl_->tdevice;
  const torch::Tensor data = rows_on(rows, width(), dev);
  const std::int64_t n = data.size(0);
  const auto n_train = static_cast<std::int64_t>(std::floor((1.0 - options.test_fraction) * static_cast<double>(n)));
  ZF_EXPECTS(n_train >= 1, "too few rows to train on: ", n, " rows, test_fraction ", options.test_fraction);
  const std::int64_t n_test = n - n_train;
  check_finite_rows(data);

  // The split is drawn on the CPU, so it is the same on every device for a given seed.
  torch::manual_seed(options.seed);
  const torch::Tensor shuffle = torch::randperm(n, torch::TensorOptions().dtype(torch::kLong));
  const torch::Tensor train_index = std::get<0>(shuffle.slice(0, 0, n_train).sort()).to(dev);
  const torch::Tensor test_index = std::get<0>(shuffle.slice(0, n_train, n).sort()).to(dev);

  train_result result;
  net->train();
  if (dev.is_cuda() && detail::cuda_graph_training_available() &&
      detail::get_cuda_step_mode() == detail::cuda_step_mode::graph) {
    // The same epochs with each step replayed from a CUDA graph (cuda_graph_trainer.hpp). Its
    // losses stay on the GPU until the end unless someone watches each epoch: then a diverged
    // epoch stops training at once, otherwise it is found afterwards.
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
  } else {
    train_eagerly(net, data, train_index, options, result);
  }

  net->eval();
  if (n_test == 0) {
    result.test_loss = std::numeric_limits<double>::quiet_NaN();
  } else if (uses_fused_kernels(dev, width())) {
    // One kernel for all test rows. LibTorch's eager forward would be the process's first cuDNN
    // use: 0.35-0.6 s of library loading and per-shape set-up on an H100, against ~0.1 ms here.
    torch::NoGradGuard no_grad;
    const torch::Tensor eps = torch::randn({n_test, 2}, torch::TensorOptions().dtype(torch::kFloat).device(dev));
    const torch::Tensor losses = detail::fused_row_losses(net, data.contiguous(), test_index, eps);
    result.test_loss = losses.sum(torch::kDouble).item<double>() / static_cast<double>(n_test);
  } else {
    torch::NoGradGuard no_grad;
    torch::Tensor total = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(dev));
    for (std::int64_t begin = 0; begin < n_test; begin += options.batch) {
      const std::int64_t end = std::min(n_test, begin + options.batch);
      const torch::Tensor x = data.index_select(0, test_index.slice(0, begin, end));
      const detail::reconstruction out = net->forward(x);
      total += detail::vae_loss(out.recon, x, out.mu, out.logvar);
    }
    result.test_loss = total.item<double>() / static_cast<double>(n_test);
  }
  if (n_test > 0 && !std::isfinite(result.test_loss)) throw_diverged(-1, result.test_loss, data, options);
  impl_->history.train_seed = options.seed;
  impl_->history.epochs += options.epochs;
  result.train_index = export_to(train_index, rows.where());
  result.test_index = export_to(test_index, rows.where());
  return result;
}

scores vae::score(const array& rows, std::int64_t batch) const {
  ZF_EXPECTS(batch >= 1, "batch must be >= 1, got ", batch);
  configure_threads();
  detail::light_vae& net = impl_->module;
  const torch::Tensor data = rows_on(rows, width(), impl_->tdevice);
  const std::int64_t n = data.size(0);
  torch::NoGradGuard no_grad;
  check_finite_rows(data);
  net->eval();
  if (uses_fused_kernels(impl_->tdevice, width())) {
    // One kernel for every row instead of ~40 LibTorch kernels per batch (fused_step.hpp).
    const detail::scored_rows fused = detail::fused_score(net, data.contiguous());
    return {export_to(fused.score, rows.where()), export_to(fused.mu, rows.where())};
  }
  const auto float_on_dev = torch::TensorOptions().dtype(torch::kFloat).device(impl_->tdevice);
  torch::Tensor score = torch::empty({n}, float_on_dev);
  torch::Tensor mu = torch::empty({n, 2}, float_on_dev);
  for (std::int64_t begin = 0; begin < n; begin += batch) {
    const std::int64_t end = std::min(n, begin + batch);
    const torch::Tensor x = data.slice(0, begin, end);
    const detail::encoding e = net->encode(x);
    // z = μ: no sampling, so a row's score depends only on the row and the weights.
    const torch::Tensor recon = net->decode(e.mu);
    score.slice(0, begin, end).copy_(torch::mean(torch::square(recon - x), 1));
    mu.slice(0, begin, end).copy_(e.mu);
  }
  return {export_to(score, rows.where()), export_to(mu, rows.where())};
}

array vae::decode_grid(int n, double extent) const {
  ZF_EXPECTS(n >= 1, "decode_grid needs n >= 1, got ", n);
  ZF_EXPECTS(std::isfinite(extent) && extent >= 0.0, "decode_grid needs a finite extent >= 0, got ", extent);
  torch::NoGradGuard no_grad;
  const auto float_on_dev = torch::TensorOptions().dtype(torch::kFloat).device(impl_->tdevice);
  const torch::Tensor g = torch::linspace(-extent, extent, n, float_on_dev);
  // meshgrid(g, g, indexing='ij') flattened: row i·n + j is (g[i], g[j]).
  const torch::Tensor latents = torch::stack({g.repeat_interleave(n), g.repeat({n})}, 1);
  if (uses_fused_kernels(impl_->tdevice, width()))  // no cuDNN (see train)
    return detail::to_array(detail::fused_decode(impl_->module, latents.contiguous()));
  return detail::to_array(impl_->module->decode(latents));
}

std::int64_t vae::width() const { return impl_->module->width(); }

device vae::where() const { return impl_->place; }

std::int64_t vae::parameter_count() const { return detail::count_parameters(*impl_->module); }

}  // namespace zeroflow::model
