/// @file light_vae_init.cpp
/// The LightVAE's parameter layout and LibTorch's initialisation of it, without LibTorch.
#include "light_vae_init.hpp"

#include "torch_cpu_uniform.hpp"

namespace zeroflow::model::detail {

namespace {

struct conv_layer {
  int slot;  // the weight's slot; the bias follows it
  std::int64_t in, out;
};

// Creation order of the module (light_vae.cpp), which is the order LibTorch draws in.
constexpr conv_layer encoder_layers[] = {{0, 1, 4}, {2, 4, 8}, {4, 8, 16}, {6, 16, 2}, {8, 16, 2}};
constexpr conv_layer decoder_layers[] = {{12, 8, 4}, {14, 4, 2}, {16, 2, 1}};
constexpr int restore_weight = 10, alpha = 18;

}  // namespace

const std::array<const char*, light_vae_slots> light_vae_slot_names = {
    "conv0.weight", "conv0.bias",   "conv1.weight", "conv1.bias",     "conv2.weight", "conv2.bias",   "convA.weight",
    "convA.bias",   "convB.weight", "convB.bias",   "restore.weight", "restore.bias", "conv3.weight", "conv3.bias",
    "conv4.weight", "conv4.bias",   "conv5.weight", "conv5.bias",     "sigma.alpha"};

std::vector<std::int64_t> light_vae_slot_shape(int s, std::int64_t width) {
  if (s == alpha) return {1};
  if (s == restore_weight) return {width, 2};
  if (s == restore_weight + 1) return {width};
  const auto conv_shape = [s](const conv_layer& l) {
    return s == l.slot ? std::vector<std::int64_t>{l.out, l.in, 3} : std::vector<std::int64_t>{l.out};
  };
  for (const conv_layer& l : encoder_layers)
    if (s == l.slot || s == l.slot + 1) return conv_shape(l);
  for (const conv_layer& l : decoder_layers)
    if (s == l.slot || s == l.slot + 1) return conv_shape(l);
  return {};
}

std::array<std::int64_t, light_vae_slots + 1> light_vae_slot_offsets(std::int64_t width) {
  std::array<std::int64_t, light_vae_slots + 1> offsets{};
  for (int s = 0; s < light_vae_slots; ++s) {
    std::int64_t n = 1;
    for (const std::int64_t d : light_vae_slot_shape(s, width)) n *= d;
    offsets[static_cast<std::size_t>(s) + 1] = offsets[static_cast<std::size_t>(s)] + n;
  }
  return offsets;
}

std::vector<float> light_vae_initial_parameters(std::int64_t width, std::uint64_t seed) {
  const auto offsets = light_vae_slot_offsets(width);
  std::vector<float> p(static_cast<std::size_t>(offsets.back()));
  torch_cpu_uniform uniform(seed);
  const auto draw = [&](int weight_slot, std::int64_t fan_in) {
    const auto at = [&](int s) { return p.data() + offsets[static_cast<std::size_t>(s)]; };
    const auto size = [&](int s) {
      return offsets[static_cast<std::size_t>(s) + 1] - offsets[static_cast<std::size_t>(s)];
    };
    uniform.fill_layer(at(weight_slot), size(weight_slot), at(weight_slot + 1), size(weight_slot + 1), fan_in);
  };
  for (const conv_layer& l : encoder_layers) draw(l.slot, l.in * 3);
  draw(restore_weight, 2);
  for (const conv_layer& l : decoder_layers) draw(l.slot, l.in * 3);
  p[static_cast<std::size_t>(offsets[alpha])] = 1.0F;
  return p;
}

}  // namespace zeroflow::model::detail
