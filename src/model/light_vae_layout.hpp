#pragma once
/// @file light_vae_layout.hpp
/// Internal: the LightVAE's parameters, described once for everything that handles them — the
/// slots in the order the weights are packed (the GPU and CPU kernels, the trainers, the model
/// file), each slot's size, and where it starts in the packed array. Shapes are LibTorch's:
/// conv weights [out, in, 3], biases [out], restore.weight [width, 2], restore.bias [width],
/// sigma.alpha [1]. Host and device code share these definitions.
#include <cstdint>

#include "zeroflow/core/detail/host_device.hpp"

namespace zeroflow::model::detail {

// clang-format off
enum light_vae_slot : int {
  conv0_w, conv0_b, conv1_w, conv1_b, conv2_w, conv2_b,
  convA_w, convA_b, convB_w, convB_b, restore_w, restore_b,
  conv3_w, conv3_b, conv4_w, conv4_b, conv5_w, conv5_b,
  alpha, slot_count
};
// clang-format on

/// The channels of a convolution (kernel 3, padding 1).
struct conv_channels {
  int in = 0, out = 0;
};

/// The convolution whose weight or bias slot `s` is; {0, 0} for the other slots.
ZF_HD_INLINE constexpr conv_channels channels_of(int s) {
  switch (s - s % 2) {
    case conv0_w:
      return {1, 4};
    case conv1_w:
      return {4, 8};
    case conv2_w:
      return {8, 16};
    case convA_w:
    case convB_w:
      return {16, 2};
    case conv3_w:
      return {8, 4};
    case conv4_w:
      return {4, 2};
    case conv5_w:
      return {2, 1};
    default:
      return {};
  }
}

/// Floats of slot `s` for rows of `width` samples.
ZF_HD_INLINE constexpr std::int64_t slot_size(int s, std::int64_t width) {
  if (s == restore_w) return 2 * width;
  if (s == restore_b) return width;
  if (s == alpha) return 1;
  const conv_channels c = channels_of(s);
  return s % 2 == 0 ? std::int64_t{c.out} * c.in * 3 : c.out;
}

/// Where each slot starts in the packed parameters; offset[slot_count] is their number.
struct packing {
  int offset[slot_count + 1];
  ZF_HD explicit packing(int width) {
    offset[0] = 0;
    for (int s = 0; s < slot_count; ++s) offset[s + 1] = offset[s] + static_cast<int>(slot_size(s, width));
  }
  [[nodiscard]] ZF_HD int total() const { return offset[slot_count]; }
};

}  // namespace zeroflow::model::detail
