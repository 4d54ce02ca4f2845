#include "zeroflow/memory/allocate.hpp"

#include <cstring>

#include "strided_copy.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/checked_size.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/core/transfers.hpp"

#if ZEROFLOW_HAS_CUDA
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow {

std::shared_ptr<buffer> allocate_buffer(std::size_t bytes, stream_view stream, memory::resource_ptr mr) {
  ZF_EXPECTS(mr != nullptr, "allocate_buffer needs a resource");
  void* p = mr->allocate(bytes, stream);
  // The release keeps the resource alive, so a buffer may outlive a set_current_resource().
  return buffer::adopt(p, bytes, mr->where(),
                       [mr, stream](void* data, std::size_t n) { mr->deallocate(data, n, stream); });
}

array empty(shape_t shape, dtype type, stream_view stream, memory::resource_ptr mr) {
  ZF_EXPECTS(mr != nullptr, "empty needs a resource");
  ZF_EXPECTS(is_valid(type), "unsupported dtype ", type.name());
  // Checked: a product past 2^63 must be an error, not a wrapped (or undefined) small size.
  const std::size_t bytes = contiguous_bytes(shape, type);
  return array(allocate_buffer(bytes, stream, std::move(mr)), type, std::move(shape));
}

array empty(shape_t shape, dtype type, device where, stream_view stream) {
  return empty(std::move(shape), type, stream, memory::current_resource(where));
}

namespace {

#if ZEROFLOW_HAS_CUDA
/// The GPU whose legacy/per-thread default stream `stream` means for work touching `a` and `b`:
/// the device side of the pair (memory on cuda:N is only reachable from device N's context).
int working_device(device a, device b) {
  if (a.type == device_type::cuda) return a.id;
  if (b.type == device_type::cuda) return b.id;
  int current = 0;
  ZF_CUDA_TRY(cudaGetDevice(&current));
  return current;
}
#endif

/// Blocks until work queued on `stream` is done, when `d` is memory the GPU may still be using.
void wait_if_cuda(device d, stream_view stream) {
  if (d.is_cuda()) synchronize(stream);
}

}  // namespace

void copy_bytes(void* dst, device to, const void* src, device from, std::size_t bytes, stream_view stream) {
  if (bytes == 0) return;
  if (!to.is_cuda() && !from.is_cuda()) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if ZEROFLOW_HAS_CUDA
  require_cuda("a copy between CUDA memories");
  detail::cuda_device_guard guard(working_device(to, from));
  // cudaMemcpyDefault: unified addressing tells host, pinned, managed and device pointers apart
  // (pageable ones included), and handles peer copies between GPUs.
  if (to.host_accessible() && !from.host_accessible()) zeroflow::detail::note_device_to_host(bytes);
  ZF_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream.value()));
  if (to.host_accessible()) ZF_CUDA_TRY(cudaStreamSynchronize(stream.value()));
#else
  (void)dst, (void)src, (void)stream;
  ZF_THROW(cuda_error, "copy_to from ", from.name(), " to ", to.name(), " needs a CUDA build of zeroflow");
#endif
}

array zeros(shape_t shape, dtype type, device where, stream_view stream) {
  array out = empty(std::move(shape), type, where, stream);
  const std::size_t bytes = out.nbytes();
  if (bytes == 0) return out;
  if (!where.is_cuda()) {
    std::memset(out.data(), 0, bytes);
    return out;
  }
#if ZEROFLOW_HAS_CUDA
  // Even for pinned memory: the block may come from a stream-ordered pool whose previous owner's
  // work is still queued, so the fill goes through the stream too.
  detail::cuda_device_guard guard(working_device(where, where));
  ZF_CUDA_TRY(cudaMemsetAsync(out.data(), 0, bytes, stream.value()));
  if (where.host_accessible()) ZF_CUDA_TRY(cudaStreamSynchronize(stream.value()));
#else
  ZF_THROW(cuda_error, "zeros on ", where.name(), " needs a CUDA build of zeroflow");
#endif
  return out;
}

array copy_to(const array& src, device where, stream_view stream) {
  ZF_EXPECTS(src.valid(), "copy_to of an empty (default-constructed) array");
  array out = empty(src.shape(), src.type(), where, stream);
  const std::size_t bytes = out.nbytes();
  if (bytes == 0) return out;
  if (src.is_contiguous()) {
    copy_bytes(out.data(), where, src.data(), src.where(), bytes, stream);
    return out;
  }

  if (src.where().host_accessible()) {
    // Host gather: pending GPU writes to a pinned/managed source, or pending work on a pooled
    // pinned destination block, must be done before the CPU touches them.
    wait_if_cuda(src.where(), stream);
    if (where.host_accessible()) {
      wait_if_cuda(where, stream);
      memory::detail::gather_host(src, out.data());
      return out;
    }
    // To a GPU: gather into pageable host memory, then one upload. cudaMemcpyAsync from
    // pageable memory returns once the bytes are staged, so `staging` may go right after.
    array staging = empty(src.shape(), src.type(), cpu_device, stream);
    memory::detail::gather_host(src, staging.data());
    copy_bytes(out.data(), where, staging.data(), cpu_device, bytes, stream);
    return out;
  }

#if ZEROFLOW_HAS_CUDA
  // Device source: gather on its GPU (a kernel), then move the packed block if it must go elsewhere.
  require_cuda("copy_to of a device array");
  if (where == src.where()) {
    memory::detail::gather_device(src, out.data(), stream);
    return out;
  }
  array packed = empty(src.shape(), src.type(), src.where(), stream);
  memory::detail::gather_device(src, packed.data(), stream);
  copy_bytes(out.data(), where, packed.data(), src.where(), bytes, stream);
  return out;  // `packed` is freed on `stream`, after the copy that reads it
#else
  ZF_THROW(cuda_error, "copy_to from ", src.where().name(), " needs a CUDA build of zeroflow");
#endif
}

}  // namespace zeroflow
