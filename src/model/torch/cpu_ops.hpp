#pragma once
/// @file cpu_ops.hpp
/// Internal: the LightVAE's two convolution kinds with hand-written CPU kernels. LibTorch's CPU
/// convolutions (oneDNN) are tuned for many channels; with this model's 1–16 channels their
/// backward pass alone took ~60 % of a training step. These kernels loop over the 3 taps
/// directly, and reduce weight gradients over fixed chunks of the batch in a fixed order, so the
/// result does not depend on the thread count. Other devices and dtypes use LibTorch's ops.
#include <torch/types.h>

namespace zeroflow::model::detail {

/// conv1d with kernel 3, stride 1, padding 1 (same length): x (N, C, L), weight (O, C, 3),
/// bias (O) → (N, O, L). Differentiable in x, weight and bias.
torch::Tensor conv1d_k3(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

/// Depthwise conv1d with one fixed 3-tap filter for every channel, stride 2, padding 1:
/// x (N, C, L), filter of 3 elements (not trained) → (N, C, (L−1)/2 + 1). Differentiable in x.
torch::Tensor downsample3(const torch::Tensor& x, const torch::Tensor& filter);

/// True when conv1d_k3 / downsample3 take the hand-written CPU path for these operands.
bool uses_cpu_kernels(const torch::Tensor& x, const torch::Tensor& weight);

}  // namespace zeroflow::model::detail
