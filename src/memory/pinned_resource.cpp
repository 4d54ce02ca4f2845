#include "zeroflow/memory/pinned_resource.hpp"

#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"

#if ZEROFLOW_HAS_CUDA
#include "page_locked.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::memory {

pinned_resource::pinned_resource() { require_cuda("pinned_resource (cudaMallocHost)"); }

#if ZEROFLOW_HAS_CUDA

void* pinned_resource::do_allocate(std::size_t bytes, stream_view) {
  void* p = nullptr;
  ZF_CUDA_TRY_ALLOC(cudaMallocHost(&p, bytes));  // page-aligned, so 256-byte aligned too
  return p;
}

void pinned_resource::do_deallocate(void* p, std::size_t, stream_view stream) { free_page_locked(p, stream); }

#else

// Unreachable: the constructor throws in a CPU build.
void* pinned_resource::do_allocate(std::size_t, stream_view) {
  ZF_THROW(cuda_error, "pinned memory needs a CUDA build");
}
void pinned_resource::do_deallocate(void*, std::size_t, stream_view) {
  ZF_THROW(cuda_error, "pinned memory needs a CUDA build");
}

#endif

}  // namespace zeroflow::memory
