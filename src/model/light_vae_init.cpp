/// @file light_vae_init.cpp
/// The LightVAE's parameter layout and LibTorch's initialisation of it, without LibTorch.
#include "light_vae_init.hpp"

#include "torch_cpu_uniform.hpp"

namespace zeroflow::model::detail {

namespace {

// The convolutions in the module's creation order (light_vae.cpp), which is the order LibTorch
// draws in: the encoder's, then restore, then the decoder's.
constexpr int encoder_convs[] = {conv0_w, conv1_w, conv2_w, convA_w, convB_w};
constexpr int decoder_convs[] = {conv3_w, conv4_w, conv5_w};

}  // namespace

const std::array<const char*, slot_count> light_vae_slot_names = {
    "conv0.weight", "conv0.bias",   "conv1.weight", "conv1.bias",     "conv2.weight", "conv2.bias",   "convA.weight",
    "convA.bias",   "convB.weight", "convB.bias",   "restore.weight", "restore.bias", "conv3.weight", "conv3.bias",
    "conv4.weight", "conv4.bias",   "conv5.weight", "conv5.bias",     "sigma.alpha"};

std::vector<std::int64_t> light_vae_slot_shape(int s, std::int64_t width) {
  if (s == restore_w) return {width, 2};
  if (s == restore_b) return {width};
  if (s == alpha) return {1};
  const conv_channels c = channels_of(s);
  if (s % 2 == 0) return {c.out, c.in, 3};
  return {c.out};
}

bool is_light_vae_width(std::int64_t width) { return width >= 16 && (width & (width - 1)) == 0; }

std::array<std::int64_t, slot_count + 1> light_vae_slot_offsets(std::int64_t width) {
  std::array<std::int64_t, slot_count + 1> offsets{};
  for (int s = 0; s < slot_count; ++s)
    offsets[static_cast<std::size_t>(s) + 1] = offsets[static_cast<std::size_t>(s)] + slot_size(s, width);
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
  for (const int s : encoder_convs) draw(s, channels_of(s).in * 3);
  draw(restore_w, 2);
  for (const int s : decoder_convs) draw(s, channels_of(s).in * 3);
  p[static_cast<std::size_t>(offsets[alpha])] = 1.0F;
  return p;
}

}  // namespace zeroflow::model::detail
