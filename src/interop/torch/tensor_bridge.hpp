#pragma once
/// @file tensor_bridge.hpp
/// Internal: zeroflow arrays ⇄ LibTorch tensors through DLPack, without copying. Pulls in ATen;
/// include it only from the LibTorch backend (src/interop/torch/) and the tests that use LibTorch.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "zeroflow/core/array.hpp"

namespace zeroflow::interop::detail {

/// A tensor viewing `a`'s memory (same data pointer, shape and strides); it keeps `a`'s buffer
/// alive. Pinned host memory becomes a CPU tensor.
/// @throws invalid_argument for an invalid array or one LibTorch cannot take.
at::Tensor to_tensor(const array& a);

/// An array viewing `t`'s memory; it keeps `t`'s storage alive.
array to_array(const at::Tensor& t);

/// LibTorch's name for a zeroflow device (cpu, cuda_host → CPU; cuda:id → CUDA id).
c10::Device to_torch(device d);
/// zeroflow's name for a LibTorch device (CPU or CUDA only).
device from_torch(const c10::Device& d);

}  // namespace zeroflow::interop::detail
