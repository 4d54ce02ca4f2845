// The glue of fused_step_on_tensors.hpp: the fused kernels called on the oracle module's tensors.
#include "torch_oracle/fused_step_on_tensors.hpp"

#include <algorithm>
#include <string>

#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"

#if ZEROFLOW_HAS_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "model/fused_vae_step.hpp"
#endif

namespace zeroflow::model::detail {

#if ZEROFLOW_HAS_CUDA

bool fused_step_supported(std::int64_t width) { return fused_vae::supported_width(width); }

namespace {

// The parameters by their seed names, in the kernels' slot order.
constexpr const char* slot_names[slot_count] = {
    "conv0.weight", "conv0.bias",   "conv1.weight", "conv1.bias",     "conv2.weight", "conv2.bias",   "convA.weight",
    "convA.bias",   "convB.weight", "convB.bias",   "restore.weight", "restore.bias", "conv3.weight", "conv3.bias",
    "conv4.weight", "conv4.bias",   "conv5.weight", "conv5.bias",     "sigma.alpha"};

/// The network's parameters in slot order, checked against the kernels' expectations.
std::vector<torch::Tensor> slot_parameters(light_vae& net, const char* what) {
  const std::int64_t width = net->width();
  ZF_EXPECTS(fused_step_supported(width), what, ": unsupported width ", width);
  auto named = net->named_parameters();
  std::vector<torch::Tensor> params;
  for (const char* name : slot_names) {
    const torch::Tensor* p = named.find(name);
    ZF_EXPECTS(p != nullptr, what, ": the network has no parameter ", name);
    ZF_EXPECTS(p->is_cuda() && p->scalar_type() == torch::kFloat && p->is_contiguous(), what, ": parameter ", name,
               " must be contiguous float32 on a GPU");
    params.push_back(*p);
  }
  for (int s = 0; s < slot_count; ++s)
    ZF_EXPECTS(params[static_cast<std::size_t>(s)].numel() == slot_size(s, width), what, ": parameter ", slot_names[s],
               " has ", params[static_cast<std::size_t>(s)].numel(), " values, expected ", slot_size(s, width));
  return params;
}

/// Points the kernel arguments' parameter slots at the network's parameters.
template <class Args>
void point_at(Args& a, const std::vector<torch::Tensor>& params) {
  for (int s = 0; s < slot_count; ++s) a.params[s] = params[static_cast<std::size_t>(s)].data_ptr<float>();
}

/// The rows every fused kernel reads: contiguous float32 N × width on the network's GPU.
void expect_rows(const torch::Tensor& data, std::int64_t width, const torch::Device& gpu, const char* what) {
  ZF_EXPECTS(data.device() == gpu && data.scalar_type() == torch::kFloat && data.dim() == 2 && data.size(1) == width &&
                 data.is_contiguous(),
             what, ": data must be contiguous float32 N x ", width, " on ", gpu.str());
}

/// Row indices into those rows: contiguous int64 on the network's GPU.
void expect_indices(const torch::Tensor& rows, const torch::Device& gpu, const char* what) {
  ZF_EXPECTS(rows.device() == gpu && rows.scalar_type() == torch::kLong && rows.dim() == 1 && rows.is_contiguous(),
             what, ": rows must be contiguous int64 indices on ", gpu.str());
}

/// LibTorch's current stream on `gpu`, where the kernels queue their work.
stream_view current_stream_on(const torch::Device& gpu) {
  return stream_view{c10::cuda::getCurrentCUDAStream(gpu.index()).stream()};
}

}  // namespace

scored_rows fused_score(light_vae& net, const torch::Tensor& data) {
  const std::vector<torch::Tensor> params = slot_parameters(net, "fused scoring");
  const torch::Device gpu = params.front().device();
  const std::int64_t width = net->width();
  expect_rows(data, width, gpu, "fused scoring");
  const auto on_gpu = torch::TensorOptions().device(gpu).dtype(torch::kFloat);
  scored_rows out{torch::empty({data.size(0)}, on_gpu), torch::empty({data.size(0), 2}, on_gpu)};
  fused_vae::score_args a{};
  point_at(a, params);
  a.data = data.data_ptr<float>();
  a.width = width;
  a.rows = data.size(0);
  a.score = out.score.data_ptr<float>();
  a.mu = out.mu.data_ptr<float>();
  const c10::cuda::CUDAGuard on_device(gpu);
  fused_vae::score(a, current_stream_on(gpu));
  return out;
}

torch::Tensor fused_row_losses(light_vae& net, const torch::Tensor& data, const torch::Tensor& rows,
                               const torch::Tensor& eps) {
  const std::vector<torch::Tensor> params = slot_parameters(net, "fused losses");
  const torch::Device gpu = params.front().device();
  const std::int64_t width = net->width();
  expect_rows(data, width, gpu, "fused losses");
  expect_indices(rows, gpu, "fused losses");
  const std::int64_t n = rows.size(0);
  ZF_EXPECTS(eps.device() == gpu && eps.scalar_type() == torch::kFloat && eps.is_contiguous() &&
                 eps.sizes() == torch::IntArrayRef({n, 2}),
             "fused losses: eps must be contiguous float32 ", n, " x 2 on ", gpu.str());
  torch::Tensor losses = torch::empty({n}, torch::TensorOptions().device(gpu).dtype(torch::kFloat));
  fused_vae::loss_args a{};
  point_at(a, params);
  a.data = data.data_ptr<float>();
  a.width = width;
  a.row_index = rows.data_ptr<std::int64_t>();
  a.rows = n;
  a.eps = eps.data_ptr<float>();
  a.losses = losses.data_ptr<float>();
  const c10::cuda::CUDAGuard on_device(gpu);
  fused_vae::row_losses(a, current_stream_on(gpu));
  return losses;
}

torch::Tensor fused_decode(light_vae& net, const torch::Tensor& latents) {
  const std::vector<torch::Tensor> params = slot_parameters(net, "fused decoding");
  const torch::Device gpu = params.front().device();
  const std::int64_t width = net->width();
  ZF_EXPECTS(latents.device() == gpu && latents.scalar_type() == torch::kFloat && latents.dim() == 2 &&
                 latents.size(1) == 2 && latents.is_contiguous(),
             "fused decoding: latents must be contiguous float32 N x 2 on ", gpu.str());
  torch::Tensor decoded =
      torch::empty({latents.size(0), width}, torch::TensorOptions().device(gpu).dtype(torch::kFloat));
  fused_vae::decode_args a{};
  point_at(a, params);
  a.latents = latents.data_ptr<float>();
  a.width = width;
  a.rows = latents.size(0);
  a.decoded = decoded.data_ptr<float>();
  const c10::cuda::CUDAGuard on_device(gpu);
  fused_vae::decode(a, current_stream_on(gpu));
  return decoded;
}

struct fused_step::impl {
  std::vector<torch::Tensor> params;  // slot order
  std::int64_t width = 0;
  std::map<std::int64_t, fused_vae::launch_plan> plans;  // by batch size
  torch::Tensor partial_grads;                           // float32 scratch, sized for the largest plan
  torch::Tensor partial_loss;                            // float64 scratch
};

fused_step::fused_step(light_vae& net, const std::vector<std::int64_t>& batch_sizes) : impl_{new impl} {
  try {
    impl_->width = net->width();
    impl_->params = slot_parameters(net, "fused training step");
    const c10::cuda::CUDAGuard on_device(impl_->params.front().device());
    std::int64_t most_floats = 1, most_blocks = 1;
    for (std::int64_t batch : batch_sizes) {
      const auto p = fused_vae::plan(batch, impl_->width);
      impl_->plans.emplace(batch, p);
      most_floats = std::max(most_floats, p.partial_floats(impl_->width));
      most_blocks = std::max<std::int64_t>(most_blocks, p.blocks);
    }
    const auto on_gpu = torch::TensorOptions().device(impl_->params.front().device());
    impl_->partial_grads = torch::empty({most_floats}, on_gpu.dtype(torch::kFloat));
    impl_->partial_loss = torch::empty({most_blocks}, on_gpu.dtype(torch::kDouble));
  } catch (...) {
    delete impl_;
    throw;
  }
}

fused_step::~fused_step() { delete impl_; }

void fused_step::run(const torch::Tensor& data, const torch::Tensor& rows, const torch::Tensor& eps,
                     torch::Tensor& loss_total) {
  const std::int64_t batch = rows.size(0);
  const auto found = impl_->plans.find(batch);
  ZF_EXPECTS(found != impl_->plans.end(), "fused training step: batch size ", batch, " was not prepared");
  const torch::Device gpu = impl_->params.front().device();
  expect_rows(data, impl_->width, gpu, "fused training step");
  expect_indices(rows, gpu, "fused training step");
  ZF_EXPECTS(
      eps.device() == gpu && eps.scalar_type() == torch::kFloat && eps.is_contiguous() && eps.numel() == 2 * batch,
      "fused training step: eps must be contiguous float32 batch x 2 on ", gpu.str());
  ZF_EXPECTS(loss_total.device() == gpu && loss_total.scalar_type() == torch::kDouble && loss_total.numel() == 1,
             "fused training step: loss_total must be one float64 on ", gpu.str());
  fused_vae::step_args a{};
  for (int s = 0; s < slot_count; ++s) {
    torch::Tensor& p = impl_->params[static_cast<std::size_t>(s)];
    if (!p.grad().defined()) p.mutable_grad() = torch::empty_like(p);
    a.params[s] = p.data_ptr<float>();
    a.grads[s] = p.mutable_grad().data_ptr<float>();
  }
  a.data = data.data_ptr<float>();
  a.width = impl_->width;
  a.rows = rows.data_ptr<std::int64_t>();
  a.batch = batch;
  a.eps = eps.data_ptr<float>();
  a.loss_total = loss_total.data_ptr<double>();
  a.partial_grads = impl_->partial_grads.data_ptr<float>();
  a.partial_loss = impl_->partial_loss.data_ptr<double>();
  const c10::cuda::CUDAGuard on_device(gpu);
  fused_vae::train_step(a, found->second, current_stream_on(gpu));
}

#else

bool fused_step_supported(std::int64_t) { return false; }

struct fused_step::impl {};

fused_step::fused_step(light_vae&, const std::vector<std::int64_t>&) : impl_{nullptr} {
  ZF_THROW(cuda_error, "the fused training step needs a CUDA build of zeroflow");
}
fused_step::~fused_step() = default;
scored_rows fused_score(light_vae&, const torch::Tensor&) {
  ZF_THROW(cuda_error, "fused scoring needs a CUDA build of zeroflow");
}
torch::Tensor fused_row_losses(light_vae&, const torch::Tensor&, const torch::Tensor&, const torch::Tensor&) {
  ZF_THROW(cuda_error, "fused losses need a CUDA build of zeroflow");
}
torch::Tensor fused_decode(light_vae&, const torch::Tensor&) {
  ZF_THROW(cuda_error, "fused decoding needs a CUDA build of zeroflow");
}
void fused_step::run(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&, torch::Tensor&) {
  ZF_THROW(cuda_error, "the fused training step needs a CUDA build of zeroflow");
}

#endif

}  // namespace zeroflow::model::detail
