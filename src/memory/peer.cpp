/// @file peer.cpp
/// GPU-to-GPU hand-offs by view or copy (see zeroflow/memory/peer.hpp).
#include "zeroflow/memory/peer.hpp"

#include <memory>
#include <utility>

#include "zeroflow/config.hpp"
#include "zeroflow/core/buffer.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda.h>  // the driver's types, for one call found through the runtime (no libcuda link)
#include <cuda_runtime.h>

#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow {

bool peer_access_possible(device target, device source) {
  if (target.type != device_type::cuda || source.type != device_type::cuda || target == source) return false;
#if ZEROFLOW_HAS_CUDA
  int can = 0;
  ZF_CUDA_TRY(cudaDeviceCanAccessPeer(&can, target.id, source.id));
  return can != 0;
#else
  return false;
#endif
}

namespace {

#if ZEROFLOW_HAS_CUDA
// The stream-ordered pool `p` was allocated from (cudaMallocAsync, cudaMallocFromPoolAsync: what
// zeroflow's cuda_pool_resource hands out), or null for other memory. The runtime has no query for
// it; the driver's cuPointerGetAttribute, found through the runtime, has.
cudaMemPool_t pool_of(const void* p) {
  using get_attribute_fn = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);
  static const get_attribute_fn get = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttribute", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return get_attribute_fn{};
    }
    return reinterpret_cast<get_attribute_fn>(fn);
  }();
  if (get == nullptr) ZF_THROW(cuda_error, "to_device: the CUDA driver does not say which pool a pointer is from");
  CUmemoryPool pool = nullptr;
  if (get(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, reinterpret_cast<CUdeviceptr>(p)) != CUDA_SUCCESS) return nullptr;
  return reinterpret_cast<cudaMemPool_t>(pool);
}

// Lets `target` read and write `source`'s memory at `p`. Memory from cudaMalloc needs peer access,
// a property of the pair (target's context, source's device) for the whole process: enabling it
// twice is reported as an error that only says it is already on. Memory from a stream-ordered pool
// is reachable only where the pool grants access, which then holds for all of the pool's memory.
void grant_access(device target, device source, const void* p) {
  {
    detail::cuda_device_guard on_target(target.id);
    const cudaError_t rc = cudaDeviceEnablePeerAccess(source.id, 0);
    if (rc == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();  // clears this call's error, which is not sticky
    } else {
      ZF_CUDA_TRY(rc);
    }
  }
  if (cudaMemPool_t pool = pool_of(p)) {
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = target.id;
    access.flags = cudaMemAccessFlagsProtReadWrite;
    ZF_CUDA_TRY(cudaMemPoolSetAccess(pool, &access, 1));
  }
}
#endif

}  // namespace

device_handoff to_device(const array& src, device target, peer_policy policy, stream_view stream) {
  ZF_EXPECTS(src.valid(), "to_device: the array is empty (moved from or default-constructed)");
  if (src.where() == target) return {src, true};
  if (policy == peer_policy::view_where_possible && peer_access_possible(target, src.where())) {
#if ZEROFLOW_HAS_CUDA
    grant_access(target, src.where(), src.owner()->data());
#endif
    // A second owner of the same bytes that says it lives on the target; releasing it only lets
    // go of the source's buffer, which gives the memory back when its last owner goes.
    const std::shared_ptr<buffer>& origin = src.owner();
    auto alias = buffer::adopt(origin->data(), origin->size(), target,
                               [keep = origin](void*, std::size_t) mutable { keep.reset(); });
    return {array(std::move(alias), src.type(), src.shape(), src.strides(), src.byte_offset(), src.read_only()), true};
  }
  return {copy_to(src, target, stream), false};
}

}  // namespace zeroflow
