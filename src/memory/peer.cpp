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
// Peer access is a property of the pair (target's context, source's device) for the whole
// process; enabling it twice is reported as an error that only says it is already on.
void enable_peer_access(device target, device source) {
  detail::cuda_device_guard on_target(target.id);
  const cudaError_t rc = cudaDeviceEnablePeerAccess(source.id, 0);
  if (rc == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();  // clears this call's error, which is not sticky
    return;
  }
  ZF_CUDA_TRY(rc);
}
#endif

}  // namespace

device_handoff to_device(const array& src, device target, peer_policy policy, stream_view stream) {
  ZF_EXPECTS(src.valid(), "to_device: the array is empty (moved from or default-constructed)");
  if (src.where() == target) return {src, true};
  if (policy == peer_policy::view_where_possible && peer_access_possible(target, src.where())) {
#if ZEROFLOW_HAS_CUDA
    enable_peer_access(target, src.where());
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
