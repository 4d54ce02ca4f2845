#pragma once
/// @file cpu_mlp_engine.hpp
/// Internal: the MLP autoencoder on the CPU with zeroflow's own kernels — a training
/// step that runs each row's forward pass, the mean squared error and its backward pass in one go
/// (the GPU's fused step, fused_mlp_step.hpp, on the host), rows spread over threads, Adam
/// (adam_update.hpp, the GPU engine's roundings), and the scoring pass of mlp_forward.hpp (the
/// GPU's bits). Batches visit the rows in epoch_order.hpp's per-epoch order, as on the GPU.
#include <memory>
#include <vector>

#include "mlp_engine.hpp"

namespace zeroflow::model::detail {

/// An engine on the CPU holding `params` (mlp_initial_parameters' layout).
/// @throws invalid_argument for widths < 1 or a parameter count that does not fit them.
[[nodiscard]] std::unique_ptr<mlp_engine> make_cpu_mlp(const mlp_shape& shape, const std::vector<float>& params);

}  // namespace zeroflow::model::detail
