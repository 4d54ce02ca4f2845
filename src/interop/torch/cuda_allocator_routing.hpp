#pragma once
// Private to the LibTorch backend (src/interop/torch/): LibTorch's CUDA allocations routed to a
// zeroflow resource (cuda_allocator_routing.cpp; torch_cuda_allocator.hpp says what and why).
#include "zeroflow/interop/torch_cuda_allocator.hpp"
#include "zeroflow/memory/resource.hpp"

namespace zeroflow::interop {

void torch_route_cuda_allocator(memory::resource_ptr r);
[[nodiscard]] bool torch_cuda_allocator_routed();
[[nodiscard]] torch_allocation_counts torch_cuda_allocation_counts();

}  // namespace zeroflow::interop
