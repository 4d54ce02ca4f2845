#pragma once
/// @file mlp_init.hpp
/// Internal: the MLP autoencoder's parameters as one flat float array, in the order of
/// its state_dict (first_layer_encoder.weight, .bias, ..., second_layer_decoder.bias), and its
/// initial weights drawn exactly as LibTorch draws them for the same seed.
#include <array>
#include <cstdint>
#include <vector>

#include "mlp_forward.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"

namespace zeroflow::model::detail {

/// Number of parameter tensors: four Linear layers, a weight and a bias each.
inline constexpr int mlp_slots = 8;

/// The state_dict name of each slot, as the LibTorch module and the seed notebook name them.
extern const std::array<const char*, mlp_slots> mlp_slot_names;

/// The shape of slot `s`: weights [out, in] as Linear keeps them, biases [out].
[[nodiscard]] std::vector<std::int64_t> mlp_slot_shape(int s, const mlp_shape& shape);

/// Where each slot starts in the packed parameters (mlp_slots + 1 offsets; the last is the total).
[[nodiscard]] std::array<std::int64_t, mlp_slots + 1> mlp_slot_offsets(const mlp_shape& shape);

/// The initial parameters, packed in slot order, that LibTorch draws after torch::manual_seed(seed)
/// when the module is built: per layer in creation order its weight, then its bias
/// (torch_cpu_uniform.hpp's fill_layer).
[[nodiscard]] std::vector<float> mlp_initial_parameters(const mlp_shape& shape, std::uint64_t seed);

/// The forward pass's view of packed parameters (host or device pointer).
[[nodiscard]] mlp_forward::weights mlp_weights_at(const float* params, const mlp_shape& shape);

}  // namespace zeroflow::model::detail
