#pragma once
/// @file cpu_mlp_step.hpp
/// Internal: one training step of the MLP autoencoder on the CPU — each row's forward pass, the
/// mean squared error and its backward pass in one go (the GPU's fused step, fused_mlp_step.hpp,
/// on the host), rows spread over threads in chunks whose partial gradients are added in chunk
/// order: the same bits whatever the thread count.
#include <array>
#include <cstdint>

#include "mlp_init.hpp"

namespace zeroflow::model::detail {

/// The gradient of mean((x̂ − x)²) over the `rows` rows `order` of x (every value counts once;
/// `order` null: the first `rows` rows) into `grads`; returns that mean. `params` and `grads`
/// are packed in mlp_init.hpp's slot order at `offsets`.
double cpu_mlp_step(const mlp_shape& shape, const std::array<std::int64_t, mlp_slots + 1>& offsets, const float* params,
                    const float* x, const std::int64_t* order, std::int64_t rows, float* grads, int threads);

}  // namespace zeroflow::model::detail
