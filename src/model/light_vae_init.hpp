#pragma once
/// @file light_vae_init.hpp
/// Internal: the LightVAE's parameters as flat float arrays, in the fused kernels' slot
/// order (light_vae_layout.hpp), and its initial weights drawn exactly as LibTorch draws them, so
/// that a model trained by zeroflow's own kernels starts where a LibTorch model of the same seed
/// starts.
#include <array>
#include <cstdint>
#include <vector>

#include "light_vae_layout.hpp"

namespace zeroflow::model::detail {

/// The state_dict name of each slot (conv0.weight, conv0.bias, ..., restore.bias, conv3.weight, ...,
/// sigma.alpha), as the LibTorch module and the PyTorch replica name them.
extern const std::array<const char*, slot_count> light_vae_slot_names;

/// The shape of slot `s` for rows of `width` samples (conv weights [out, in, 3], restore.weight
/// [width, 2], biases [out], alpha [1]).
[[nodiscard]] std::vector<std::int64_t> light_vae_slot_shape(int s, std::int64_t width);

/// Whether `width` is a LightVAE's row width: a power of two from 16 (the CPU kernels take every one;
/// a GPU's only up to fused_vae::supported_width's limit).
[[nodiscard]] bool is_light_vae_width(std::int64_t width);

/// Where each slot starts in the packed parameters (slot_count + 1 offsets; the last is the total).
[[nodiscard]] std::array<std::int64_t, slot_count + 1> light_vae_slot_offsets(std::int64_t width);

/// The initial parameters, packed in slot order, that LibTorch draws after torch::manual_seed(seed)
/// when the module is built: for each layer in creation order, the weight from
/// kaiming_uniform(a = √5), i.e. U(−1/√fan_in, 1/√fan_in), then the bias from the same range, all
/// from the CPU generator (MT19937 of the seed's low 32 bits, 24 random bits per float); α = 1.
[[nodiscard]] std::vector<float> light_vae_initial_parameters(std::int64_t width, std::uint64_t seed);

/// The fixed filter of the downsampling layers (the module's one buffer, down.filter [1, 1, 3]).
inline constexpr std::array<float, 3> light_vae_down_filter{1.0F, 2.0F, 1.0F};

}  // namespace zeroflow::model::detail
