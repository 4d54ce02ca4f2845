#pragma once
/// @file torch_backend.hpp
/// Internal, torch-free: the boundary between zeroflow and LibTorch, for what only LibTorch can do
/// — route LibTorch's own CUDA allocations to zeroflow's memory manager (torch_cuda_allocator.hpp),
/// so that a process that runs PyTorch beside zeroflow has one pool. zeroflow's models never call
/// it: they train and score on zeroflow's own kernels on either device. The backend is a module of
/// its own (libzeroflow_torch.so), loaded on first use, and LibTorch with it.
#include <string>

#include "zeroflow/interop/torch_cuda_allocator.hpp"
#include "zeroflow/memory/resource.hpp"

namespace zeroflow::interop::detail {

class torch_backend {
 public:
  virtual ~torch_backend() = default;

  /// LibTorch's CUDA allocations from `resource` (torch_cuda_allocator.hpp), and what it holds.
  virtual void route_cuda_allocator(memory::resource_ptr resource) = 0;
  [[nodiscard]] virtual bool cuda_allocator_routed() = 0;
  [[nodiscard]] virtual torch_allocation_counts cuda_allocation_counts() = 0;
};

/// The LibTorch backend, loaded on first use (libzeroflow_torch.so beside the program or module
/// that holds the interop layer, or in the build tree), and LibTorch with it.
/// @throws zeroflow::error when this zeroflow has no LibTorch backend, saying what needs it.
[[nodiscard]] torch_backend& load_torch_backend();

/// The backend when something has loaded it already, else nullptr (LibTorch is not loaded).
[[nodiscard]] torch_backend* loaded_torch_backend();

/// The version of the backend's interface; the module's factory refuses another.
inline constexpr int torch_backend_version = 2;

}  // namespace zeroflow::interop::detail
