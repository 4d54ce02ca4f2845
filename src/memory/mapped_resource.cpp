#include "zeroflow/memory/mapped_resource.hpp"

#include <utility>

#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"

#if ZEROFLOW_HAS_CUDA
#include "page_locked.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::memory {

mapped_resource::mapped_resource(int device_id) : device_id_{device_id} {
  require_cuda("mapped_resource (cudaHostAlloc)");
  ZF_EXPECTS(device_id >= 0 && device_id < cuda_device_count(), "mapped_resource: no GPU ", device_id, " (",
             cuda_device_count(), " visible)");
}

#if ZEROFLOW_HAS_CUDA

void* mapped_resource::do_allocate(std::size_t bytes, stream_view) {
  const detail::cuda_device_guard on_device(device_id_);
  void* p = nullptr;
  // Portable: mapped into every GPU's address space, not only the one allocating it.
  ZF_CUDA_TRY_ALLOC(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable));  // page-aligned
  return p;
}

void mapped_resource::do_deallocate(void* p, std::size_t, stream_view stream) { free_page_locked(p, stream); }

#else

// Unreachable: the constructor throws in a CPU build.
void* mapped_resource::do_allocate(std::size_t, stream_view) {
  ZF_THROW(cuda_error, "mapped memory needs a CUDA build");
}
void mapped_resource::do_deallocate(void*, std::size_t, stream_view) {
  ZF_THROW(cuda_error, "mapped memory needs a CUDA build");
}

#endif

array mapped_device_view(const array& mapped, device gpu) {
  ZF_EXPECTS(gpu.type == device_type::cuda, "mapped_device_view needs a CUDA device to view the memory from, got ",
             gpu.name());
  ZF_EXPECTS(mapped.valid(), "mapped_device_view: the array has no buffer");
  ZF_EXPECTS(mapped.where().host_accessible() && mapped.where().type != device_type::cuda_managed,
             "mapped_device_view needs page-locked host memory, the array is on ", mapped.where().name());
  require_cuda("mapped_device_view");
  ZF_EXPECTS(gpu.id >= 0 && gpu.id < cuda_device_count(), "mapped_device_view: no GPU ", gpu.id, " (",
             cuda_device_count(), " visible)");
  const std::shared_ptr<buffer>& host = mapped.owner();
  void* on_gpu = nullptr;
#if ZEROFLOW_HAS_CUDA
  if (host->data() != nullptr) {
    const detail::cuda_device_guard on_device(gpu.id);
    cudaPointerAttributes attributes{};
    ZF_CUDA_TRY(cudaPointerGetAttributes(&attributes, host->data()));
    // devicePointer: where the current device (gpu) reaches the bytes; null when it cannot.
    ZF_EXPECTS(attributes.type == cudaMemoryTypeHost && attributes.devicePointer != nullptr,
               "mapped_device_view needs host memory that is page-locked and mapped into ", gpu.name(),
               "'s address space (a mapped_resource's), not ",
               attributes.type == cudaMemoryTypeHost ? "page-locked memory that is not mapped" : "pageable memory");
    on_gpu = attributes.devicePointer;
  }
#endif
  // The view's release only lets go of the host buffer: the bytes are the host array's.
  auto view = buffer::adopt(on_gpu, host->size(), gpu, [keep = host](void*, std::size_t) {});
  return array(std::move(view), mapped.type(), mapped.shape(), mapped.strides(), mapped.byte_offset(),
               mapped.read_only());
}

}  // namespace zeroflow::memory
