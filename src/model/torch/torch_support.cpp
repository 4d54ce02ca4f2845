/// @file torch_support.cpp
/// The helpers of src/model's LibTorch code (torch_support.hpp): devices, threads, rows as tensors,
/// the finite-rows check, and LibTorch modules from packed weights.
#include "torch_support.hpp"

#include <ATen/Parallel.h>
#include <sched.h>
#include <torch/cuda.h>
#include <torch/utils.h>

#include <mutex>

#include "light_vae.hpp"
#include "light_vae_init.hpp"
#include "run_generators.hpp"
#include "tensor_bridge.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"

#if ZEROFLOW_HAS_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "finite_rows.hpp"
#endif

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

}  // namespace

namespace detail {

void check_model_device(device where) { check_device(where); }

void configure_torch_threads() { configure_threads(); }

torch::Tensor rows_on(const array& rows, std::int64_t width, const c10::Device& target) {
  ZF_EXPECTS(rows.valid(), "rows: empty array");
  ZF_EXPECTS(rows.type() == float32, "rows must be float32, got ", rows.type().name());
  ZF_EXPECTS(rows.ndim() == 2, "rows must be N x W, got ", rows.ndim(), " dimensions");
  ZF_EXPECTS(rows.shape(1) == width, "rows have width ", rows.shape(1), ", the model ", width);
  torch::Tensor t = to_tensor(rows);
  return t.device() == target ? t : t.to(target);
}

array export_to(const torch::Tensor& t, device rows_device) {
  const c10::Device target = to_torch(rows_device);
  return to_array(t.device() == target ? t : t.to(target));
}

// The rows may be far larger than the device memory left (a run under --max-device-memory reads
// them in place from mapped host memory), so they are read in slices of finite_check_bytes, and the
// common case makes no temporary of a slice's size: a slice's smallest and largest values are
// finite exactly when all of its values are (NaN propagates into both, an infinity is one of them).
// One read-back for all slices; the count and the position are looked up, slice by slice, only when
// there is something to report.
non_finite_values find_non_finite(const torch::Tensor& data) {
  constexpr std::int64_t finite_check_bytes = std::int64_t{16} << 20;
  const std::int64_t n = data.size(0), width = data.size(1);
  if (n == 0 || width == 0) return {};
  const std::int64_t step = std::max<std::int64_t>(1, finite_check_bytes / (width * data.element_size()));
  std::vector<torch::Tensor> extremes;
  for (std::int64_t begin = 0; begin < n; begin += step) {
    auto [lowest, highest] = torch::aminmax(data.slice(0, begin, std::min(n, begin + step)));
    extremes.push_back(std::move(lowest));
    extremes.push_back(std::move(highest));
  }
  if (torch::isfinite(torch::stack(extremes)).all().item<bool>()) return {};
  non_finite_values found;
  for (std::int64_t begin = 0; begin < n; begin += step) {
    const torch::Tensor bad = torch::logical_not(torch::isfinite(data.slice(0, begin, std::min(n, begin + step))));
    const auto in_slice = bad.sum().item<std::int64_t>();
    if (in_slice > 0 && found.first < 0)
      found.first = begin * width + bad.reshape({-1}).to(torch::kByte).argmax().item<std::int64_t>();
    found.count += in_slice;
  }
  return found;
}

// A NaN or an infinity in one row makes every batch loss that contains it NaN, and the first
// step spreads NaN into every weight: refused before it can happen.
void check_finite_rows(const torch::Tensor& data) {
  non_finite_values bad;
#if ZEROFLOW_HAS_CUDA
  if (data.is_cuda()) {
    // zeroflow's own kernel: the GPU paths launch no LibTorch kernel.
    const c10::cuda::CUDAGuard on_device(data.device());
    const auto census =
        count_non_finite_on_gpu(data.data_ptr<float>(), data.size(0), data.size(1), data.stride(0), data.stride(1),
                                stream_view{c10::cuda::getCurrentCUDAStream(data.device().index()).stream()});
    bad = {census.count, census.first};
  } else
#endif
  {
    bad = find_non_finite(data);
  }
  if (bad.count == 0) return;
  const std::int64_t width = data.size(1);
  ZF_THROW(invalid_argument, "rows hold ", bad.count, bad.count == 1 ? " value that is" : " values that are",
           " NaN or infinite (the first in row ", bad.first / width, ", column ", bad.first % width,
           "); the model needs finite rows: fill gaps (e.g. with the row's median) or leave those rows out");
}

void set_torch_threads(int threads) {
  ZF_EXPECTS(threads >= 1, "set_cpu_threads needs at least 1 thread, got ", threads);
  configure_threads();  // so that the automatic cap never runs after an explicit choice
  at::set_num_threads(threads);
}

int torch_threads() {
  configure_threads();
  return at::get_num_threads();
}

light_vae module_of(const packed_vae& weights) {
  light_vae net(weights.width);
  const c10::Device dev = to_torch(weights.where);
  net->to(dev);
  const auto offsets = light_vae_slot_offsets(weights.width);
  auto named = net->named_parameters();
  torch::NoGradGuard no_grad;
  const auto floats = torch::TensorOptions().dtype(torch::kFloat).device(dev);
  for (std::size_t s = 0; s < light_vae_slot_names.size(); ++s) {
    torch::Tensor p = named[light_vae_slot_names[s]];
    p.view({-1}).copy_(torch::from_blob(weights.params + offsets[s], {p.numel()}, floats));
  }
  return net;
}

void store_weights(light_vae& net, const packed_vae& weights) {
  const auto offsets = light_vae_slot_offsets(weights.width);
  auto named = net->named_parameters();
  torch::NoGradGuard no_grad;
  const auto floats = torch::TensorOptions().dtype(torch::kFloat).device(to_torch(weights.where));
  for (std::size_t s = 0; s < light_vae_slot_names.size(); ++s) {
    const torch::Tensor p = named[light_vae_slot_names[s]];
    torch::from_blob(weights.params + offsets[s], {p.numel()}, floats).copy_(p.detach().view({-1}));
  }
}

}  // namespace detail

}  // namespace zeroflow::model
