/// @file mlp_init.cpp
/// The MLP autoencoder's parameter layout and LibTorch's initialisation of it, without LibTorch.
#include "mlp_init.hpp"

#include "torch_cpu_uniform.hpp"

namespace zeroflow::model::detail {

const std::array<const char*, mlp_slots> mlp_slot_names = {"first_layer_encoder.weight",  "first_layer_encoder.bias",
                                                           "second_layer_encoder.weight", "second_layer_encoder.bias",
                                                           "first_layer_decoder.weight",  "first_layer_decoder.bias",
                                                           "second_layer_decoder.weight", "second_layer_decoder.bias"};

namespace {

/// Layer `l`'s (input, output) widths: F → hidden → code → hidden → F.
std::array<std::int64_t, 2> layer_widths(int l, const mlp_shape& s) {
  const std::array<std::int64_t, 5> widths{s.features, s.hidden, s.code, s.hidden, s.features};
  return {widths[static_cast<std::size_t>(l)], widths[static_cast<std::size_t>(l) + 1]};
}

}  // namespace

std::vector<std::int64_t> mlp_slot_shape(int s, const mlp_shape& shape) {
  const auto [in, out] = layer_widths(s / 2, shape);
  return s % 2 == 0 ? std::vector<std::int64_t>{out, in} : std::vector<std::int64_t>{out};
}

std::array<std::int64_t, mlp_slots + 1> mlp_slot_offsets(const mlp_shape& shape) {
  std::array<std::int64_t, mlp_slots + 1> offsets{};
  for (int s = 0; s < mlp_slots; ++s) {
    std::int64_t n = 1;
    for (const std::int64_t d : mlp_slot_shape(s, shape)) n *= d;
    offsets[static_cast<std::size_t>(s) + 1] = offsets[static_cast<std::size_t>(s)] + n;
  }
  return offsets;
}

std::vector<float> mlp_initial_parameters(const mlp_shape& shape, std::uint64_t seed) {
  const auto offsets = mlp_slot_offsets(shape);
  std::vector<float> p(static_cast<std::size_t>(offsets.back()));
  torch_cpu_uniform uniform(seed);
  for (int l = 0; l < mlp_slots / 2; ++l) {
    const auto at = [&](int s) { return p.data() + offsets[static_cast<std::size_t>(s)]; };
    const auto size = [&](int s) {
      return offsets[static_cast<std::size_t>(s) + 1] - offsets[static_cast<std::size_t>(s)];
    };
    uniform.fill_layer(at(2 * l), size(2 * l), at(2 * l + 1), size(2 * l + 1), layer_widths(l, shape)[0]);
  }
  return p;
}

mlp_forward::weights mlp_weights_at(const float* params, const mlp_shape& shape) {
  const auto offsets = mlp_slot_offsets(shape);
  const auto at = [&](int s) { return params + offsets[static_cast<std::size_t>(s)]; };
  return {.w1 = at(0),
          .b1 = at(1),
          .w2 = at(2),
          .b2 = at(3),
          .w3 = at(4),
          .b3 = at(5),
          .w4 = at(6),
          .b4 = at(7),
          .features = shape.features,
          .hidden = shape.hidden,
          .code = shape.code};
}

}  // namespace zeroflow::model::detail
