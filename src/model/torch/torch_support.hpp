#pragma once
// Private to src/model's LibTorch code (the torch backend, the MLP autoencoder): the helpers they
// share. Pulls in LibTorch.
#include <cstdint>

#include "light_vae.hpp"
#include "tensor_bridge.hpp"
#include "torch_backend.hpp"
#include "zeroflow/core/device.hpp"

namespace zeroflow::model::detail {

/// Refuses a device a model cannot live on (not CPU or CUDA, or a GPU LibTorch does not see).
void check_model_device(device where);

/// Caps LibTorch's intra-op threads at the CPUs this process may use (once per process).
void configure_torch_threads();

/// LibTorch's intra-op threads: set (at least 1) and read.
void set_torch_threads(int threads);
[[nodiscard]] int torch_threads();

/// The rows as a tensor on the model's device: a zero-copy view when they already live there.
/// @throws invalid_argument for rows that are not float32 N × width.
torch::Tensor rows_on(const array& rows, std::int64_t width, const c10::Device& target);

/// A result for the caller: back on the rows' device, as an array viewing the tensor's memory.
array export_to(const torch::Tensor& t, device rows_device);

/// The NaN and ±inf values of N × W rows: how many, and the flat index of the first (-1: none).
/// Read in bounded slices, so rows larger than the device memory left need no temporary of their size.
struct non_finite_values {
  std::int64_t count = 0;
  std::int64_t first = -1;
};
[[nodiscard]] non_finite_values find_non_finite(const torch::Tensor& data);

/// Refuses rows that hold NaN or ±inf (naming the first), before they can reach a weight.
/// @throws invalid_argument saying how many and where the first is.
void check_finite_rows(const torch::Tensor& data);

/// A LibTorch LightVAE on the weights' device holding the packed weights (copied in).
[[nodiscard]] light_vae module_of(const packed_vae& weights);

/// Copies the module's parameters back into the packed weights.
void store_weights(light_vae& net, const packed_vae& weights);

// The backend's operations (torch_backend.hpp says what each does).
void torch_train_vae(const packed_vae& weights, const array& rows, const std::vector<std::int64_t>& train,
                     const std::vector<std::int64_t>& test, const train_options& run, train_result& result);
void torch_score_vae(const packed_vae& weights, const array& rows, std::int64_t batch, float* score, float* mu);
void torch_decode_vae(const packed_vae& weights, const float* latents, std::int64_t n, float* out);
void torch_read_vae_format2(std::string_view bytes, const std::string& name, std::vector<float>& params,
                            model_file_header& header);

}  // namespace zeroflow::model::detail

namespace zeroflow::model {

// The backend's MLP autoencoder (mlp_engine.cpp) and allocator routing (cuda_allocator_routing.cpp).
[[nodiscard]] std::unique_ptr<detail::mlp_engine> torch_create_mlp(const mlp_shape& shape, device where,
                                                                   std::uint64_t seed);
[[nodiscard]] std::unique_ptr<detail::mlp_engine> torch_mlp_from_bytes(std::string_view bytes, device where,
                                                                       const std::string& what);
[[nodiscard]] std::unique_ptr<detail::mlp_engine> torch_mlp_from_weights(const mlp_shape& shape,
                                                                         const io::safetensors_content& content,
                                                                         device where);
void torch_route_cuda_allocator(memory::resource_ptr r);
[[nodiscard]] bool torch_cuda_allocator_routed();
[[nodiscard]] torch_allocation_counts torch_cuda_allocation_counts();

}  // namespace zeroflow::model
