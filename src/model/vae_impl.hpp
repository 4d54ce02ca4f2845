#pragma once
// Private to src/model: the LibTorch state behind vae's pimpl, shared by creation (vae.cpp),
// training (vae_train.cpp), scoring (vae_score.cpp) and persistence (vae_file.cpp).
#include <cstdint>
#include <optional>

#include "light_vae.hpp"
#include "tensor_bridge.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model {

class vae::impl {
 public:
  impl(std::int64_t width, device where) : module{width}, place{where}, tdevice{detail::to_torch(where)} {}

  detail::light_vae module;
  device place;
  c10::Device tdevice;
  std::optional<row_provenance> rows;
  training_history history;
};

namespace detail {

/// Refuses a device a model cannot live on (not CPU or CUDA, or a GPU LibTorch does not see).
void check_model_device(device where);

/// Caps LibTorch's intra-op threads at the CPUs this process may use (once per process).
void configure_torch_threads();

/// Refuses a description of rows that no pipeline run makes (vae::describe_rows says what).
void check_row_provenance(const row_provenance& rows);

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

}  // namespace detail
}  // namespace zeroflow::model
