#pragma once
/// @file resource.hpp
/// The stream-ordered memory resource interface every zeroflow allocation goes through,
/// the same shape as the seeds' external-allocator hooks: allocate(bytes, stream) /
/// deallocate(p, bytes, stream).
#include <cstddef>
#include <memory>
#include <string>

#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::memory {

/// Shares ownership through enable_shared_from_this so that bindings (nanobind) hand C++ the
/// resource's own shared_ptr: adaptors, the current-resource registry and LibTorch's allocator then
/// keep the C++ object alive, not its Python wrapper.
class resource : public std::enable_shared_from_this<resource> {
 public:
  virtual ~resource() = default;

  /// Returns `bytes` of memory usable in stream order on `stream` (256-byte aligned).
  /// 0 bytes returns nullptr. Throws zeroflow::out_of_memory when it cannot.
  void* allocate(std::size_t bytes, stream_view stream) { return bytes == 0 ? nullptr : do_allocate(bytes, stream); }
  /// Gives back memory from allocate() with the same size; the memory may be reused by work
  /// queued on `stream` after this call. Throws zeroflow::invalid_argument when an adaptor
  /// can tell the pointer is not live (a double release).
  void deallocate(void* p, std::size_t bytes, stream_view stream) {
    if (p != nullptr) do_deallocate(p, bytes, stream);
  }
  /// The kind of memory handed out (cpu, cuda_host, cuda:N).
  [[nodiscard]] virtual device where() const = 0;
  /// A short name for logs: "host", "pinned", "cuda_pool", "statistics(host)"...
  [[nodiscard]] virtual std::string name() const = 0;

 private:
  virtual void* do_allocate(std::size_t bytes, stream_view stream) = 0;
  virtual void do_deallocate(void* p, std::size_t bytes, stream_view stream) = 0;
};

using resource_ptr = std::shared_ptr<resource>;

/// The resource zeroflow allocates from on `where`: the calling thread's scoped_resource for that
/// device when one is alive, else the process-wide one (per device). The process-wide defaults
/// are a host resource for cpu, a pinned resource for cuda_host and a CUDA pool for cuda:N.
[[nodiscard]] resource_ptr current_resource(device where);
/// Replaces the current resource for `r->where()`; returns the previous one. Arrays already
/// allocated keep the resource that made them alive.
resource_ptr set_current_resource(resource_ptr r);

/// @brief Makes `r` the current resource of `r->where()` for the calling thread only, until
/// the guard goes; other threads keep the process-wide one. Guards nest (the innermost wins)
/// and must go in reverse order, on the thread that made them.
///
/// For a burst of allocations made deep inside library calls, e.g. an arena_resource for the
/// buffers of one segmentation, without changing what other threads allocate from.
class scoped_resource {
 public:
  /// @throws zeroflow::invalid_argument when `r` is null
  explicit scoped_resource(resource_ptr r);
  ~scoped_resource();
  scoped_resource(const scoped_resource&) = delete;
  scoped_resource& operator=(const scoped_resource&) = delete;

 private:
  std::size_t depth_;  ///< the thread's override stack size before this guard
};

/// A new resource of the default kind for `where`: host_resource for cpu, pinned_resource for
/// cuda_host, cuda_pool_resource for cuda:N (a pool of its own on GPU N).
/// @throws zeroflow::cuda_error for a CUDA device when this build has no CUDA or no GPU, and
///         for device types that have no default (cuda_managed).
[[nodiscard]] resource_ptr make_default_resource(device where);

}  // namespace zeroflow::memory
