#pragma once
// The own trainers' weights after a few Adam steps against torch::optim::Adam's, for the CPU and
// the GPU trainer's tests. Adam's first update is lr·g/(|g| + ε) ≈ lr·sign(g), so weights are
// compared only where the first step's gradient is clearly away from zero (a sign there cannot
// flip): to 2 % of the learning rate.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>

#include "model/light_vae_init.hpp"

namespace zeroflow::model_test {

inline void expect_weights_follow_adam(const torch::Tensor& own, const torch::Tensor& want,
                                       const torch::Tensor& first_grads, std::int64_t width, double learning_rate) {
  namespace zmd = zeroflow::model::detail;
  const auto offsets = zmd::light_vae_slot_offsets(width);
  std::int64_t compared = 0;
  for (int s = 0; s < zmd::slot_count; ++s) {
    const auto b = offsets[static_cast<std::size_t>(s)], e = offsets[static_cast<std::size_t>(s) + 1];
    const torch::Tensor g = first_grads.slice(0, b, e).abs();
    const torch::Tensor clear = g > 0.05 * g.max();
    const torch::Tensor diff = (own.slice(0, b, e) - want.slice(0, b, e)).abs().masked_select(clear);
    compared += diff.numel();
    if (diff.numel() > 0)
      EXPECT_LE(diff.max().item<double>(), 0.02 * learning_rate)
          << zmd::light_vae_slot_names[static_cast<std::size_t>(s)];
  }
  EXPECT_GT(compared, offsets.back() / 2);
}

}  // namespace zeroflow::model_test
