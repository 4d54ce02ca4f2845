#pragma once
/// @file torch_cuda_allocator.hpp
/// LibTorch's CUDA memory from zeroflow's memory resources, so that one pool serves zeroflow and
/// LibTorch alike (docs/architecture.md, memory). This header names no torch type.
///
/// How: LibTorch's CUDA caching allocator is replaced, process-wide, by a pluggable allocator
/// (torch::cuda::CUDAPluggableAllocator) whose allocate and free go to a zeroflow resource,
/// stream-ordered, with the size torch asked for (a statistics_adaptor in the stack therefore
/// counts LibTorch's tensors byte for byte). LibTorch only lets its allocator be swapped before it
/// has made its first CUDA allocation, so route first, then create CUDA tensors or models.
///
/// CUDA graphs: while LibTorch captures a graph it asks its allocator for a private pool whose
/// memory no one else may reuse until the graph is destroyed. The router keeps such pools itself:
/// memory for a capture is taken from the resource on an internal stream, outside the capture (an
/// allocation on the capturing stream would become a graph memory node, owned by the driver and
/// not by the resource), reused only by later allocations of the same capture on the same stream,
/// and given back to the resource when LibTorch releases the pool. Frees that reach the resource
/// while a capture is under way are deferred until it ends. So PyTorch's CUDA graphs run from
/// zeroflow's pool too.
///
/// Not routed (no LibTorch hook exists for them): the pinned host memory of LibTorch's host
/// caching allocator; memory cuDNN/cuBLAS allocate inside their handles and the CUDA context
/// itself. LibTorch's memory statistics (torch.cuda.memory_stats and the like) are not available
/// while routed; use the resource's statistics_adaptor instead.
#include <cstdint>
#include <string>

#include "zeroflow/memory/resource.hpp"

namespace zeroflow::interop {

/// Makes LibTorch take its CUDA memory on GPU `r->where().id` from `r`. The first call installs
/// the router in LibTorch (for the whole process, for good); later calls may bind other GPUs or
/// rebind one (memory already handed out goes back to the resource that gave it). GPUs without a
/// bound resource use memory::current_resource(cuda_device(id)) at the time of each allocation.
/// @param r a resource whose where() is a CUDA device (e.g. a cuda_pool_resource, possibly under
///        adaptors); it is kept alive for the rest of the process.
/// @throws invalid_argument when `r` is null or not a CUDA resource; error when LibTorch has
///         already initialised its own CUDA allocator (route before the first CUDA tensor);
///         cuda_error when this build has no CUDA.
void route_torch_allocator_to(memory::resource_ptr r);

/// True once route_torch_allocator_to has installed the router.
[[nodiscard]] bool torch_allocator_routed();

/// route_torch_allocator_to(r) as soon as LibTorch is loaded (now, when it already is): for a run
/// that never needs LibTorch itself (zeroflow's models run on its own kernels) and must not load it
/// only to route its allocator, while PyTorch in the same process may load it. Once routed, later calls change nothing.
/// @throws invalid_argument for a null resource.
void route_torch_allocator_when_loaded(memory::resource_ptr r);

/// The LibTorch backend module this process would load (libzeroflow_torch.so), found without
/// loading it; empty when there is none.
[[nodiscard]] std::string torch_backend_file();

/// What the router holds now (all zero before routing).
struct torch_allocation_counts {
  std::int64_t live = 0;            ///< LibTorch allocations not yet freed (graph-pool blocks in use included)
  std::int64_t graph_pools = 0;     ///< graph private pools not yet released by LibTorch
  std::int64_t graph_blocks = 0;    ///< blocks those pools and released-but-still-used pools hold
  std::int64_t deferred_frees = 0;  ///< frees waiting for a capture to end
  std::int64_t failed_frees = 0;    ///< frees the resource refused (reported once on stderr)
};
[[nodiscard]] torch_allocation_counts torch_allocation_counts_now();

}  // namespace zeroflow::interop
