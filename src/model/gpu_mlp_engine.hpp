#pragma once
/// @file gpu_mlp_engine.hpp
/// Internal: the MLP autoencoder on a GPU on zeroflow's own parameter storage (one
/// packed array from the memory manager, mlp_init.hpp's layout) and kernels — the fused training
/// step (fused_mlp_step.hpp), Adam (adam_update.hpp) and the scoring pass (mlp_forward.hpp). It
/// holds models of the widths the fused step takes; batches are gathered on the device in
/// epoch_order.hpp's order, as the CPU engine visits them.
#include <memory>
#include <vector>

#include "mlp_engine.hpp"

namespace zeroflow::model::detail {

/// An engine on `gpu` holding `params` (host floats, mlp_initial_parameters' layout).
/// @throws invalid_argument for widths < 1 or beyond the fused step's; cuda_error when the GPU
///         cannot be used.
[[nodiscard]] std::unique_ptr<mlp_engine> make_gpu_mlp(const mlp_shape& shape, device gpu,
                                                       const std::vector<float>& params);

}  // namespace zeroflow::model::detail
