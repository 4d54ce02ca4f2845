#pragma once
/// @file torch_backend.hpp
/// Internal, torch-free: the boundary between the model layer and LibTorch. Everything the model
/// layer does with LibTorch goes through this interface: the LightVAE's CPU, eager and CUDA-graph
/// paths, reading the LibTorch model files of format 2, and LibTorch's thread pool. The GPU fast
/// path (the fused kernels, zeroflow's own trainer, safetensors files) never calls it, so a run
/// on a GPU needs no LibTorch at all.
///
/// Weights cross the boundary packed (light_vae_init.hpp's slot order, float32) in the model's
/// own memory; the backend builds its LibTorch module from them for the call and writes trained
/// weights back. Outputs go to buffers the caller allocated, so every allocation of a run stays
/// with zeroflow's memory manager.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mlp_engine.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/memory/resource.hpp"
#include "zeroflow/model/model_file.hpp"
#include "zeroflow/model/torch_cuda_allocator.hpp"
#include "zeroflow/model/training_path.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model::detail {

/// A LightVAE's weights: packed float32 on `where` (host memory for the CPU), and the stream its
/// GPU work queues on (LibTorch's current stream for the call).
struct packed_vae {
  float* params = nullptr;
  std::int64_t width = 0;
  device where = cpu_device;
  stream_view stream{};
};

class torch_backend {
 public:
  virtual ~torch_backend() = default;

  /// LibTorch's intra-op threads (model/vae.hpp's set_cpu_threads and cpu_threads).
  virtual void set_cpu_threads(int threads) = 0;
  [[nodiscard]] virtual int cpu_threads() = 0;

  /// Trains `weights` in place on the rows `train` (host indices, ascending) as vae::train does on
  /// options.path (eager or cuda_graph), then the test loss over `test`. Fills epoch_loss and
  /// test_loss of `result`. @throws as vae::train.
  virtual void train_vae(const packed_vae& weights, const array& rows, const std::vector<std::int64_t>& train,
                         const std::vector<std::int64_t>& test, const train_options& options, train_result& result) = 0;

  /// vae::score's LibTorch forward pass (path eager or cuda_graph): `score` (N floats) and `mu`
  /// (N × 2) on the weights' device. Rows are already checked (shape, dtype, finite) and on that device.
  virtual void score_vae(const packed_vae& weights, const array& rows, std::int64_t batch, float* score, float* mu) = 0;

  /// The decoder on `n` latent points (`latents`: n × 2 floats on the weights' device) into `out`
  /// (n × width on the same device).
  virtual void decode_vae(const packed_vae& weights, const float* latents, std::int64_t n, float* out) = 0;

  /// A model file of format 2 (a LibTorch archive with zeroflow's trailer, model.pt), verified as
  /// vae::load says: its packed weights (host) and metadata.
  /// @throws zeroflow::error naming `name` and what is wrong.
  virtual void read_vae_format2(std::string_view bytes, const std::string& name, std::vector<float>& params,
                                model_file_header& header) = 0;

  /// The MLP autoencoder (mlp_autoencoder.hpp's create, from_bytes and from_weights).
  [[nodiscard]] virtual std::unique_ptr<mlp_engine> create_mlp(const mlp_shape& shape, device where,
                                                               std::uint64_t seed) = 0;
  [[nodiscard]] virtual std::unique_ptr<mlp_engine> mlp_from_bytes(std::string_view bytes, device where,
                                                                   const std::string& what) = 0;
  [[nodiscard]] virtual std::unique_ptr<mlp_engine> mlp_from_weights(const mlp_shape& shape,
                                                                     const io::safetensors_content& content,
                                                                     device where) = 0;

  /// LibTorch's CUDA allocations from `resource` (torch_cuda_allocator.hpp), and what it holds.
  virtual void route_cuda_allocator(memory::resource_ptr resource) = 0;
  [[nodiscard]] virtual bool cuda_allocator_routed() = 0;
  [[nodiscard]] virtual torch_allocation_counts cuda_allocation_counts() = 0;
};

/// The LibTorch backend, loaded on first use (libzeroflow_torch.so beside the program or module
/// that holds the model layer, or in the build tree), and LibTorch with it.
/// @throws zeroflow::error when this zeroflow has no LibTorch backend, saying what needs it.
[[nodiscard]] torch_backend& load_torch_backend();

/// The backend when something has loaded it already, else nullptr (LibTorch is not loaded).
[[nodiscard]] torch_backend* loaded_torch_backend();

/// The version of the backend's interface; the module's factory refuses another.
inline constexpr int torch_backend_version = 1;

}  // namespace zeroflow::model::detail
