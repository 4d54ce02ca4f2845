#include "zeroflow/memory/cuda_pool_resource.hpp"

#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"

#if ZEROFLOW_HAS_CUDA
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::memory {

#if ZEROFLOW_HAS_CUDA

cuda_pool_resource::cuda_pool_resource(int device_id, std::uint64_t release_threshold)
    : device_id_{device_id}, release_threshold_{release_threshold} {
  require_cuda("cuda_pool_resource");
  ZF_EXPECTS(device_id >= 0 && device_id < cuda_device_count(), "cuda_pool_resource: no GPU ", device_id, " (",
             cuda_device_count(), " visible)");
  int supported = 0;
  ZF_CUDA_TRY(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device_id));
  if (supported == 0) ZF_THROW(cuda_error, "cuda_pool_resource: GPU ", device_id, " does not support memory pools");

  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device_id;
  cudaMemPool_t pool = nullptr;
  ZF_CUDA_TRY(cudaMemPoolCreate(&pool, &props));
  pool_ = pool;
  try {
    std::uint64_t threshold = release_threshold;
    ZF_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  } catch (...) {
    (void)cudaMemPoolDestroy(pool);
    throw;
  }
}

cuda_pool_resource::~cuda_pool_resource() {
  // At process exit the runtime may already be unloading (a static registry outlives it);
  // the driver reclaims the pool then, so that error is not worth a message.
  const cudaError_t rc = cudaMemPoolDestroy(pool_);
  if (rc != cudaSuccess && rc != cudaErrorCudartUnloading)
    ::zeroflow::detail::report_cuda(rc, "cudaMemPoolDestroy", __FILE__, __LINE__);
  (void)cudaGetLastError();
}

std::uint64_t cuda_pool_resource::reserved_bytes() const {
  std::uint64_t bytes = 0;
  ZF_CUDA_TRY(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &bytes));
  return bytes;
}

void* cuda_pool_resource::do_allocate(std::size_t bytes, stream_view stream) {
  // The legacy and per-thread default streams mean "the current device's", so make it ours.
  ::zeroflow::detail::cuda_device_guard guard(device_id_);
  void* p = nullptr;
  ZF_CUDA_TRY_ALLOC(cudaMallocFromPoolAsync(&p, bytes, pool_, stream.value()));
  return p;
}

void cuda_pool_resource::do_deallocate(void* p, std::size_t, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(device_id_);
  ZF_CUDA_TRY(cudaFreeAsync(p, stream.value()));
}

#else

cuda_pool_resource::cuda_pool_resource(int device_id, std::uint64_t release_threshold)
    : device_id_{device_id}, release_threshold_{release_threshold} {
  require_cuda("cuda_pool_resource (cudaMallocFromPoolAsync)");
}

cuda_pool_resource::~cuda_pool_resource() = default;

std::uint64_t cuda_pool_resource::reserved_bytes() const {
  ZF_THROW(cuda_error, "cuda_pool_resource needs a CUDA build");
}

// Unreachable: the constructor throws in a CPU build.
void* cuda_pool_resource::do_allocate(std::size_t, stream_view) {
  ZF_THROW(cuda_error, "cuda_pool_resource needs a CUDA build");
}
void cuda_pool_resource::do_deallocate(void*, std::size_t, stream_view) {
  ZF_THROW(cuda_error, "cuda_pool_resource needs a CUDA build");
}

#endif

}  // namespace zeroflow::memory
