/// @file mlp_engine.cpp
/// The LibTorch backend's seed-004 MLP autoencoder (mlp_engine.hpp): its module, training, scoring
/// and its bytes.
#include "mlp_engine.hpp"

#include <ATen/Parallel.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/adam.h>
#include <torch/serialize/input-archive.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>
#include <utility>

#include "capturable_adam.hpp"
#include "mlp_checks.hpp"
#include "mlp_forward.hpp"
#include "run_generators.hpp"
#include "tensor_bridge.hpp"
#include "torch_stream_guard.hpp"
#include "torch_support.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"
#include "zeroflow/model/model_file.hpp"

#if ZEROFLOW_HAS_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace zeroflow::model {

namespace {

/// The notebook's `Encoder` class: the same layer names, created in the same order, so that for
/// one seed the initial weights equal those of the Python class after torch.manual_seed(seed).
class mlp_net_impl : public torch::nn::Module {
 public:
  explicit mlp_net_impl(const mlp_shape& s)
      : first_layer_encoder(register_module("first_layer_encoder", torch::nn::Linear(s.features, s.hidden))),
        second_layer_encoder(register_module("second_layer_encoder", torch::nn::Linear(s.hidden, s.code))),
        first_layer_decoder(register_module("first_layer_decoder", torch::nn::Linear(s.code, s.hidden))),
        second_layer_decoder(register_module("second_layer_decoder", torch::nn::Linear(s.hidden, s.features))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    const torch::Tensor code = torch::relu(second_layer_encoder(torch::relu(first_layer_encoder(x))));
    return torch::sigmoid(second_layer_decoder(torch::relu(first_layer_decoder(code))));
  }

  torch::nn::Linear first_layer_encoder, second_layer_encoder, first_layer_decoder, second_layer_decoder;
};
TORCH_MODULE_IMPL(mlp_net, mlp_net_impl);

constexpr std::int64_t bytes_format = 1;
constexpr const char* format_key = "zeroflow_mlp_autoencoder_format";
constexpr const char* shape_key = "zeroflow_mlp_autoencoder_shape";
// Multiply-adds a host task gets at least: enough that splitting the rows over threads pays.
constexpr std::int64_t host_task_work = std::int64_t{1} << 18;

std::int64_t non_finite_count(const torch::Tensor& t) {
  return torch::logical_not(torch::isfinite(t)).sum().item<std::int64_t>();
}

}  // namespace

class mlp_state {
 public:
  mlp_state(const mlp_shape& s, device where) : net{s}, shape{s}, place{where}, tdevice{detail::to_torch(where)} {}

  /// The rows as an N×F tensor on the model's device: a view when they already live there.
  torch::Tensor rows_on(const array& rows) const {
    detail::check_mlp_rows(rows, shape.features);
    torch::Tensor t = detail::to_tensor(rows);
    if (t.dim() == 1) t = t.unsqueeze(1);
    return t.device() == tdevice ? t : t.to(tdevice);
  }

  mlp_net net;
  mlp_shape shape;
  device place;
  c10::Device tdevice;
};

namespace {

// The VAE's search (vae.cpp), with the autoencoder's own words.
void check_finite_rows(const torch::Tensor& data) {
  const detail::non_finite_values bad = detail::find_non_finite(data);
  if (bad.count == 0) return;
  detail::throw_mlp_non_finite(bad.count, bad.first / data.size(1));
}

// The parameters in the order the forward pass and the fused step take them. Linear keeps its
// parameters contiguous, so the pointers are the tensors' own.
std::vector<torch::Tensor> ordered_parameters(const mlp_net_impl& net) {
  return {net.first_layer_encoder->weight,  net.first_layer_encoder->bias,   net.second_layer_encoder->weight,
          net.second_layer_encoder->bias,   net.first_layer_decoder->weight, net.first_layer_decoder->bias,
          net.second_layer_decoder->weight, net.second_layer_decoder->bias};
}

detail::mlp_forward::weights weights_of(const mlp_net_impl& net, const mlp_shape& s) {
  const std::vector<torch::Tensor> p = ordered_parameters(net);
  for (const torch::Tensor& t : p) ZF_EXPECTS(t.is_contiguous(), "the MLP's parameters must be contiguous");
  const auto ptr = [&](int i) { return p[static_cast<std::size_t>(i)].data_ptr<float>(); };
  return {.w1 = ptr(0),
          .b1 = ptr(1),
          .w2 = ptr(2),
          .b2 = ptr(3),
          .w3 = ptr(4),
          .b3 = ptr(5),
          .w4 = ptr(6),
          .b4 = ptr(7),
          .features = s.features,
          .hidden = s.hidden,
          .code = s.code};
}

// The forward pass of scoring (mlp_forward.hpp): our own loop and kernel in double, rounded to
// float once at the end, with every sum in a fixed order. LibTorch's float matrix products block
// their sums differently for different row counts (a row's last bit would move with the rows
// scored beside it), and its double products run cuBLAS's double kernels, slow for so small a net.
// `data` is contiguous N×F on the model's device; score (N) and recon (N×F) may be undefined.
void run_forward(const mlp_net_impl& net, const mlp_shape& s, const torch::Tensor& data, const torch::Tensor& score,
                 const torch::Tensor& recon) {
  const detail::mlp_forward::weights w = weights_of(net, s);
  const float* x = data.data_ptr<float>();
  float* score_out = score.defined() ? score.data_ptr<float>() : nullptr;
  float* recon_out = recon.defined() ? recon.data_ptr<float>() : nullptr;
  const std::int64_t n = data.size(0);
#if ZEROFLOW_HAS_CUDA
  if (data.is_cuda()) {
    const c10::cuda::CUDAGuard on_device(data.device());
    detail::mlp_forward::forward_rows_cuda(
        w, x, n, score_out, recon_out, stream_view{c10::cuda::getCurrentCUDAStream(data.device().index()).stream()});
    return;
  }
#endif
  const std::int64_t row_work = 2 * s.features * s.hidden + 2 * s.hidden * s.code;
  at::parallel_for(0, n, std::max<std::int64_t>(1, host_task_work / row_work),
                   [&](std::int64_t begin, std::int64_t end) {
                     detail::mlp_forward::forward_rows_host(w, x, begin, end, score_out, recon_out);
                   });
}

array export_to(const torch::Tensor& t, device rows_device) {
  const c10::Device target = detail::to_torch(rows_device);
  return detail::to_array(t.device() == target ? t : t.to(target));
}

/// torch.optim.Adam's step with L2 weight decay. On a GPU it is capturable_adam: one fused kernel
/// (the per-parameter ops of torch::optim::Adam are ~80 small launches per step there) with the
/// step count on the device, so that a CUDA graph can replay it. On the CPU the notebook's
/// optimiser itself runs.
class adam_step {
 public:
  adam_step(const std::vector<torch::Tensor>& params, const mlp_train_options& o) : params_{params} {
    if (params_.front().is_cuda()) {
      fused_.emplace(params_, detail::adam_settings{.learning_rate = o.learning_rate, .weight_decay = o.weight_decay});
    } else {
      eager_.emplace(params_, torch::optim::AdamOptions(o.learning_rate).weight_decay(o.weight_decay));
    }
  }

  void zero_grad() {
    for (torch::Tensor& p : params_) p.mutable_grad() = torch::Tensor();
  }

  void step() {
    if (fused_) {
      fused_->step();
    } else {
      eager_->step();
    }
  }

  /// The optimiser as new (GPU only: the graph's warm-up is undone with it).
  void reset() { fused_->reset(); }

  [[nodiscard]] const std::vector<torch::Tensor>& params() const { return params_; }

 private:
  std::vector<torch::Tensor> params_;
  std::optional<detail::capturable_adam> fused_;
  std::optional<torch::optim::Adam> eager_;
};

#if ZEROFLOW_HAS_CUDA

// Eager steps before capture, as in PyTorch's whole-network capture example: they create cuBLAS's
// handle and workspace for the capturing stream and autograd's lazy state, which must not be
// created during capture. Their effect on the weights and the optimiser is undone.
constexpr int graph_warmup_steps = 3;

/// Full-batch epochs on a GPU as replays of one captured step (the cuda_graph training path):
/// every epoch is the same work on the same tensors. Each epoch's loss goes into `losses` on the
/// device; on_epoch, when set, reads it (one synchronisation an epoch, as the eager loop).
void train_full_batch_from_graph(mlp_net& net, adam_step& optimiser, const torch::Tensor& x,
                                 const torch::Tensor& losses, const mlp_train_options& options) {
  const c10::cuda::CUDAGuard device_guard(x.device());
  const c10::DeviceIndex gpu = x.device().index();
  // Capture needs a stream other than the legacy default one; the replays run on it too, after
  // everything the caller queued, and the caller's stream resumes after the training.
  const c10::cuda::CUDAStream caller = c10::cuda::getCurrentCUDAStream(gpu);
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, gpu);
  at::cuda::CUDAEvent inputs_ready;
  inputs_ready.record(caller);
  inputs_ready.block(side);
  {
    const c10::cuda::CUDAStreamGuard on_side(side);
    const torch::Tensor step_loss = torch::zeros({}, losses.options());
    // Gradients are dropped before each step: backward then writes fresh ones (in the graph's
    // memory when capturing) instead of adding to old ones, so no zeroing is captured.
    const auto step = [&] {
      const torch::Tensor loss = torch::mse_loss(net->forward(x), x);
      loss.backward();
      {
        torch::NoGradGuard no_grad;
        step_loss.copy_(loss.detach());
      }
      optimiser.step();
    };
    std::vector<torch::Tensor> saved;
    for (const torch::Tensor& p : optimiser.params()) saved.push_back(p.detach().clone());
    for (int i = 0; i < graph_warmup_steps; ++i) {
      optimiser.zero_grad();
      step();
    }
    {
      torch::NoGradGuard no_grad;
      for (std::size_t i = 0; i < saved.size(); ++i) optimiser.params()[i].copy_(saved[i]);
    }
    optimiser.reset();
    optimiser.zero_grad();

    at::cuda::CUDAGraph graph;
    // Thread-local capture: runs training on this GPU in other threads may allocate and
    // synchronise meanwhile (their streams are not being captured).
    graph.capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
    try {
      step();
    } catch (const std::exception& e) {
      try {
        graph.capture_end();  // leaves stream capture so that the process can go on
      } catch (...) {
      }
      ZF_THROW(error, "capturing the MLP's training step in a CUDA graph failed (the eager training path ",
               "trains without one): ", e.what());
    }
    graph.capture_end();
    for (int epoch = 0; epoch < options.epochs; ++epoch) {
      graph.replay();
      losses.select(0, epoch).copy_(step_loss);
      if (options.on_epoch) {
        const double loss = step_loss.item<double>();
        if (!std::isfinite(loss)) detail::throw_mlp_diverged(epoch, loss, options);
        options.on_epoch(epoch, loss);
      }
    }
    optimiser.zero_grad();  // the gradients live in the graph's memory: drop them before it goes
  }
  at::cuda::CUDAEvent trained;
  trained.record(side);
  trained.block(caller);
}

#endif

}  // namespace

/// The LibTorch MLP autoencoder behind mlp_autoencoder (mlp_engine.hpp).
class torch_mlp final : public detail::mlp_engine {
 public:
  explicit torch_mlp(std::unique_ptr<mlp_state> state) : impl_{std::move(state)} {}
  mlp_train_result train(const array& rows, const mlp_train_options& options, stream_view stream) override;
  [[nodiscard]] array reconstruct(const array& rows, stream_view stream) const override;
  [[nodiscard]] array score(const array& rows, stream_view stream) const override;
  [[nodiscard]] std::vector<io::safetensor> weights() const override;
  [[nodiscard]] const mlp_shape& shape() const override { return impl_->shape; }
  [[nodiscard]] device where() const override { return impl_->place; }
  [[nodiscard]] std::int64_t parameter_count() const override;

 private:
  std::unique_ptr<mlp_state> impl_;
};

std::unique_ptr<detail::mlp_engine> torch_create_mlp(const mlp_shape& shape, device where, std::uint64_t seed) {
  detail::check_mlp_shape(shape);
  detail::check_model_device(where);
  detail::configure_torch_threads();
  std::unique_ptr<mlp_state> state;
  {
    const auto drawing = detail::lock_global_generator();
    torch::manual_seed(seed);  // weights drawn on the CPU: the same on every device
    state = std::make_unique<mlp_state>(shape, where);
  }
  state->net->to(state->tdevice);
  return std::make_unique<torch_mlp>(std::move(state));
}

mlp_train_result torch_mlp::train(const array& rows, const mlp_train_options& options, stream_view stream) {
  // LibTorch works on the stream a torch_stream_scope chose for the models of this thread.
  const detail::torch_stream_guard on_stream(impl_->place, stream);
  detail::configure_torch_threads();
  const torch::Tensor data = impl_->rows_on(rows);
  const std::int64_t n = data.size(0);
  ZF_EXPECTS(n >= 1, "no rows to train on");
  check_finite_rows(data);

  mlp_net& net = impl_->net;
  net->train();
  const c10::Device dev = impl_->tdevice;
  // The run's own generator: runs in other threads do not change what this one draws.
  const at::Generator shuffles = detail::generators_for(options.seed, dev).device;
  adam_step optimiser(net->parameters(), options);
  const std::int64_t batch = options.batch == 0 ? n : std::min(options.batch, n);
  // Losses stay on the device until the end (one synchronisation per run, not per epoch),
  // unless someone watches every epoch.
  const torch::Tensor losses =
      torch::zeros({std::max(options.epochs, 1)}, torch::TensorOptions().dtype(torch::kDouble).device(dev));
  mlp_train_result result;
  const mlp_shape& shape = impl_->shape;
  const bool one_step_an_epoch = ZEROFLOW_HAS_CUDA && dev.is_cuda() && batch == n && options.epochs > 0;
  // Trainings the fused step takes run on zeroflow's own GPU engine (gpu_mlp_engine.hpp), never here.
  const bool from_graph = one_step_an_epoch && options.path == training_path::cuda_graph;
#if ZEROFLOW_HAS_CUDA
  if (from_graph) train_full_batch_from_graph(net, optimiser, data, losses, options);
#endif
  for (int epoch = 0; epoch < (from_graph ? 0 : options.epochs); ++epoch) {
    torch::Tensor order;
    if (batch < n) order = torch::randperm(n, shuffles, torch::TensorOptions().dtype(torch::kLong).device(dev));
    torch::Tensor total = losses.select(0, epoch);
    for (std::int64_t begin = 0; begin < n; begin += batch) {
      const std::int64_t end = std::min(n, begin + batch);
      const torch::Tensor x = batch < n ? data.index_select(0, order.slice(0, begin, end)) : data;
      optimiser.zero_grad();
      const torch::Tensor loss = torch::mse_loss(net->forward(x), x);
      loss.backward();
      total.add_(loss.detach() * static_cast<double>(end - begin) / static_cast<double>(n));
      optimiser.step();
    }
    if (options.on_epoch) {
      const double loss = total.item<double>();
      if (!std::isfinite(loss)) detail::throw_mlp_diverged(epoch, loss, options);
      options.on_epoch(epoch, loss);
    }
  }
  if (options.epochs > 0) {
    const torch::Tensor host = losses.to(torch::kCPU);
    const double* values = host.data_ptr<double>();
    result.epoch_loss.assign(values, values + options.epochs);
    for (int epoch = 0; epoch < options.epochs; ++epoch)
      if (!std::isfinite(result.epoch_loss[static_cast<std::size_t>(epoch)]))
        detail::throw_mlp_diverged(epoch, result.epoch_loss[static_cast<std::size_t>(epoch)], options);
  }
  net->eval();
  return result;
}

array torch_mlp::reconstruct(const array& rows, stream_view stream) const {
  // LibTorch works on the stream a torch_stream_scope chose for the models of this thread.
  const detail::torch_stream_guard on_stream(impl_->place, stream);
  detail::configure_torch_threads();
  const torch::Tensor data = impl_->rows_on(rows).contiguous();
  check_finite_rows(data);
  torch::NoGradGuard no_grad;
  impl_->net->eval();
  torch::Tensor out = torch::empty(data.sizes(), data.options());
  run_forward(*impl_->net, impl_->shape, data, torch::Tensor(), out);
  if (rows.ndim() == 1) out = out.squeeze(1);
  return export_to(out, rows.where());
}

array torch_mlp::score(const array& rows, stream_view stream) const {
  // LibTorch works on the stream a torch_stream_scope chose for the models of this thread.
  const detail::torch_stream_guard on_stream(impl_->place, stream);
  detail::configure_torch_threads();
  const torch::Tensor data = impl_->rows_on(rows).contiguous();
  check_finite_rows(data);
  torch::NoGradGuard no_grad;
  impl_->net->eval();
  torch::Tensor out = torch::empty({data.size(0)}, data.options().dtype(torch::kFloat));
  run_forward(*impl_->net, impl_->shape, data, out, torch::Tensor());
  return export_to(out, rows.where());
}

std::vector<io::safetensor> torch_mlp::weights() const {
  std::vector<io::safetensor> out;
  for (const auto& p : impl_->net->named_parameters(true)) {
    const torch::Tensor t = p.value().detach().to(torch::kCPU, torch::kFloat).contiguous();
    out.push_back(float_tensor(p.key(), t.sizes().vec(), t.data_ptr<float>()));
  }
  return out;
}

std::unique_ptr<detail::mlp_engine> torch_mlp_from_weights(const mlp_shape& shape,
                                                           const io::safetensors_content& content, device where) {
  detail::check_model_device(where);
  detail::configure_torch_threads();
  auto state = std::make_unique<mlp_state>(shape, cpu_device);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : state->net->named_parameters(true)) {
      const std::vector<float> values = read_float_tensor(content, p.key(), p.value().sizes().vec());
      p.value().copy_(torch::from_blob(const_cast<float*>(values.data()), p.value().sizes(), torch::kFloat));
    }
  }
  state->place = where;
  state->tdevice = detail::to_torch(where);
  state->net->to(state->tdevice);
  state->net->eval();
  return std::make_unique<torch_mlp>(std::move(state));
}

std::unique_ptr<detail::mlp_engine> torch_mlp_from_bytes(std::string_view bytes, device where,
                                                         const std::string& what) {
  detail::check_model_device(where);
  detail::configure_torch_threads();
  const std::string unreadable = what + " cannot be read as a zeroflow MLP autoencoder: ";
  torch::serialize::InputArchive archive;
  mlp_shape shape;
  try {
    archive.load_from(bytes.data(), bytes.size(), torch::Device(torch::kCPU));
    torch::Tensor format, widths;
    archive.read(format_key, format);
    archive.read(shape_key, widths);
    if (format.numel() != 1 || format.item<std::int64_t>() != bytes_format)
      ZF_THROW(error, unreadable, "it is of another format version");
    if (widths.numel() != 3) ZF_THROW(error, unreadable, "its layer widths are missing");
    const auto w = widths.to(torch::kLong).contiguous();
    shape = {w[0].item<std::int64_t>(), w[1].item<std::int64_t>(), w[2].item<std::int64_t>()};
  } catch (const error&) {
    throw;
  } catch (const std::exception&) {
    ZF_THROW(error, unreadable, "it is cut short, damaged or not a model this program wrote");
  }
  if (shape.features < 1 || shape.hidden < 1 || shape.code < 1 || shape.features > (1 << 20) ||
      shape.hidden > (1 << 16) || shape.code > (1 << 16))
    ZF_THROW(error, unreadable, "its layer widths (", shape.features, ", ", shape.hidden, ", ", shape.code,
             ") are not sane");
  auto state = std::make_unique<mlp_state>(shape, cpu_device);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : state->net->named_parameters(true)) {
      torch::Tensor stored;
      try {
        archive.read(p.key(), stored);
      } catch (const std::exception&) {
        ZF_THROW(error, unreadable, "the weights '", p.key(), "' are missing");
      }
      if (stored.sizes() != p.value().sizes() || stored.scalar_type() != torch::kFloat)
        ZF_THROW(error, unreadable, "the weights '", p.key(), "' do not fit the layer widths");
      if (non_finite_count(stored) > 0) ZF_THROW(error, unreadable, "the weights '", p.key(), "' are not finite");
      p.value().copy_(stored);
    }
  }
  state->place = where;
  state->tdevice = detail::to_torch(where);
  state->net->to(state->tdevice);
  state->net->eval();
  return std::make_unique<torch_mlp>(std::move(state));
}

std::int64_t torch_mlp::parameter_count() const {
  std::int64_t n = 0;
  for (const auto& p : impl_->net->parameters(true)) n += p.numel();
  return n;
}

}  // namespace zeroflow::model
