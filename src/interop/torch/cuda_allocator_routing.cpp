/// @file cuda_allocator_routing.cpp
/// LibTorch's CUDA allocations routed to zeroflow resources through a pluggable allocator, with
/// CUDA-graph private pools kept here (see torch_cuda_allocator.hpp).
#include "cuda_allocator_routing.hpp"

#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"

#if ZEROFLOW_HAS_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>
#include <torch/csrc/cuda/CUDAPluggableAllocator.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/resource.hpp"
#endif

namespace zeroflow::interop {

#if ZEROFLOW_HAS_CUDA

namespace {

using mempool_id = c10::cuda::MempoolId_t;
using capture_filter = std::function<bool(cudaStream_t)>;

stream_view view_of(cudaStream_t s) { return stream_view{s}; }

// Blocks of a graph pool are rounded up so that slightly different sizes can share them.
constexpr std::size_t pool_granule = 512;

// One allocation handed to LibTorch.
struct block {
  memory::resource_ptr owner;      // where the memory came from, and goes back to
  std::size_t capacity = 0;        // bytes asked of `owner`
  cudaStream_t stream = nullptr;   // LibTorch's stream for it: frees are ordered on it
  std::optional<mempool_id> pool;  // set for the blocks of a graph's private pool
  bool in_use = true;
  std::vector<cudaStream_t> other_streams;  // streams LibTorch recorded it on (record_stream)
};

// A CUDA graph's private pool: its blocks serve that graph's captures only, until released.
struct graph_pool {
  int device = 0;
  int users = 0;  // captures begun into it minus releases (graphs may share a pool)
  // Cached blocks by stream, then size: a capture reuses only blocks freed on its own stream,
  // whose earlier uses the graph orders before the new one.
  std::map<cudaStream_t, std::multimap<std::size_t, void*>> free_blocks;
};

// The process-wide router. Leaked on purpose: LibTorch may free tensors while statics are
// destroyed at exit, and those frees must still find it.
class router {
 public:
  static router& instance() {
    static router* r = new router;
    return *r;
  }

  void bind(memory::resource_ptr r) {
    const std::lock_guard lock(mutex_);
    resources_[r->where().id] = std::move(r);
  }

  void* allocate(std::size_t bytes, int device, cudaStream_t stream) {
    if (bytes == 0) return nullptr;  // as zeroflow's resources answer; never recorded, never freed
    const std::lock_guard lock(mutex_);
    flush_deferred_frees();
    for (const auto& [id, filter] : captures_)
      if (filter(stream)) return allocate_for_capture(id, bytes, device, stream);
    memory::resource_ptr owner = resource_for(device);
    void* p = nullptr;
    {
      // Another thread may be capturing in global mode; our resource's calls are not part of it.
      std::optional<c10::cuda::CUDAStreamCaptureModeGuard> relaxed;
      if (!captures_.empty()) relaxed.emplace(cudaStreamCaptureModeRelaxed);
      p = owner->allocate(bytes, view_of(stream));
    }
    if (p != nullptr) blocks_.emplace(p, block{std::move(owner), bytes, stream, std::nullopt, true, {}});
    return p;
  }

  void deallocate(void* p, int device) {
    if (p == nullptr) return;
    const std::lock_guard lock(mutex_);
    const auto it = blocks_.find(p);
    if (it == blocks_.end()) {
      report_failure("a pointer it did not hand out", device);
      return;
    }
    block& b = it->second;
    b.in_use = false;
    if (b.pool) {
      const auto pool = pools_.find(*b.pool);
      if (pool != pools_.end()) {
        // The graph still replays on this memory: keep it in the pool. Blocks used on other
        // streams are not reused (their last use is not ordered before a new one).
        if (b.other_streams.empty()) pool->second.free_blocks[b.stream].emplace(b.capacity, p);
        return;
      }
    }
    give_back(p, std::move(b));
    blocks_.erase(it);
    flush_deferred_frees();
  }

  void record_stream(void* p, cudaStream_t s) {
    const std::lock_guard lock(mutex_);
    const auto it = blocks_.find(p);
    if (it == blocks_.end() || s == it->second.stream) return;
    auto& others = it->second.other_streams;
    if (std::find(others.begin(), others.end(), s) == others.end()) others.push_back(s);
  }

  void begin_capture(int device, mempool_id id, capture_filter filter) {
    const std::lock_guard lock(mutex_);
    graph_pool& pool = pools_[id];
    pool.device = device;
    ++pool.users;
    captures_.emplace_back(id, std::move(filter));
  }

  void end_capture(mempool_id id) {
    const std::lock_guard lock(mutex_);
    for (auto it = captures_.begin(); it != captures_.end(); ++it)
      if (it->first == id) {
        captures_.erase(it);
        break;
      }
    flush_deferred_frees();
  }

  // The graph is gone: cached blocks go back to their resource now, blocks still in use when
  // LibTorch frees them.
  void release_pool(mempool_id id) {
    const std::lock_guard lock(mutex_);
    const auto it = pools_.find(id);
    if (it == pools_.end() || --it->second.users > 0) return;
    graph_pool pool = std::move(it->second);
    pools_.erase(it);
    for (auto& [stream, by_size] : pool.free_blocks)
      for (auto& [size, p] : by_size) {
        const auto b = blocks_.find(p);
        give_back(p, std::move(b->second));
        blocks_.erase(b);
      }
    // Blocks kept out of reuse (used on other streams) and not in use any more.
    for (auto b = blocks_.begin(); b != blocks_.end();) {
      if (b->second.pool == id && !b->second.in_use) {
        give_back(b->first, std::move(b->second));
        b = blocks_.erase(b);
      } else {
        ++b;
      }
    }
    flush_deferred_frees();
  }

  torch_allocation_counts counts() {
    const std::lock_guard lock(mutex_);
    torch_allocation_counts c;
    for (const auto& [p, b] : blocks_) {
      if (b.in_use) ++c.live;
      if (b.pool) ++c.graph_blocks;
    }
    c.graph_pools = static_cast<std::int64_t>(pools_.size());
    c.deferred_frees = static_cast<std::int64_t>(deferred_.size());
    c.failed_frees = failed_frees_;
    return c;
  }

  bool installed = false;                                                     // guarded by install_mutex
  std::shared_ptr<c10::cuda::CUDACachingAllocator::CUDAAllocator> allocator;  // kept alive for good
  std::mutex install_mutex;

 private:
  router() = default;

  memory::resource_ptr resource_for(int device) {
    const auto it = resources_.find(device);
    return it != resources_.end() ? it->second : memory::current_resource(cuda_device(device));
  }

  // Memory for a capture into pool `id`: a cached block of that pool freed on the same stream,
  // or a new one from the resource, allocated on an internal stream and waited for, so that it is
  // ordinary memory the graph may use whenever it is replayed.
  void* allocate_for_capture(mempool_id id, std::size_t bytes, int device, cudaStream_t stream) {
    graph_pool& pool = pools_[id];
    auto& cached = pool.free_blocks[stream];
    if (const auto fit = cached.lower_bound(bytes); fit != cached.end() && fit->first <= 2 * bytes + pool_granule) {
      void* p = fit->second;
      cached.erase(fit);
      blocks_.at(p).in_use = true;
      return p;
    }
    const std::size_t capacity = (bytes + pool_granule - 1) / pool_granule * pool_granule;
    memory::resource_ptr owner = resource_for(device);
    const c10::cuda::CUDAStreamCaptureModeGuard relaxed(cudaStreamCaptureModeRelaxed);
    const ::zeroflow::detail::cuda_device_guard on_device(device);
    cudaStream_t internal = internal_stream(device);
    void* p = owner->allocate(capacity, view_of(internal));
    ZF_CUDA_TRY(cudaStreamSynchronize(internal));
    blocks_.emplace(p, block{std::move(owner), capacity, stream, id, true, {}});
    return p;
  }

  cudaStream_t internal_stream(int device) {
    auto& s = internal_streams_[device];
    if (s == nullptr) ZF_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }

  // Returns a block to its resource, ordered after its last uses; deferred while a capture is
  // under way (a free on a capturing stream would be captured into the graph).
  void give_back(void* p, block b) {
    if (!captures_.empty()) {
      deferred_.emplace_back(p, std::move(b));
      return;
    }
    try {
      for (cudaStream_t other : b.other_streams) {
        cudaEvent_t done = nullptr;
        ZF_CUDA_TRY(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        ZF_CUDA_TRY(cudaEventRecord(done, other));
        ZF_CUDA_TRY(cudaStreamWaitEvent(b.stream, done, 0));
        ZF_CUDA_TRY(cudaEventDestroy(done));
      }
      b.owner->deallocate(p, b.capacity, view_of(b.stream));
    } catch (const std::exception& e) {
      report_failure(e.what(), -1);
    }
  }

  void flush_deferred_frees() {
    if (!captures_.empty() || deferred_.empty()) return;
    std::vector<std::pair<void*, block>> pending;
    pending.swap(deferred_);
    for (auto& [p, b] : pending) give_back(p, std::move(b));
  }

  // Frees cannot throw (LibTorch calls them from destructors): count, and say it once.
  void report_failure(const char* what, int device) {
    if (failed_frees_++ == 0)
      std::fprintf(stderr, "zeroflow: LibTorch's CUDA free (device %d) failed: %s (further failures are counted)\n",
                   device, what);
  }

  std::mutex mutex_;
  std::unordered_map<int, memory::resource_ptr> resources_;
  std::unordered_map<void*, block> blocks_;
  std::map<mempool_id, graph_pool> pools_;
  std::vector<std::pair<mempool_id, capture_filter>> captures_;
  std::vector<std::pair<void*, block>> deferred_;
  std::unordered_map<int, cudaStream_t> internal_streams_;
  std::int64_t failed_frees_ = 0;
};

void* allocate_for_torch(std::size_t bytes, int device, cudaStream_t stream) {
  try {
    return router::instance().allocate(bytes, device, stream);
  } catch (const out_of_memory& e) {
    TORCH_CHECK_WITH(OutOfMemoryError, false, "zeroflow's resource is out of memory: ", e.what());
  } catch (const std::exception& e) {
    TORCH_CHECK(false, "zeroflow's resource failed to allocate ", bytes, " bytes: ", e.what());
  }
  return nullptr;  // not reached: both handlers throw
}

// LibTorch's pluggable allocator with one gap filled: cuDNN's benchmark mode sizes its workspace
// with cacheInfo, which the base class refuses. The largest block the resource could hand out is
// not known; the device's free memory is the honest upper bound.
class routed_allocator final : public torch::cuda::CUDAPluggableAllocator::CUDAPluggableAllocator {
 public:
  using CUDAPluggableAllocator::CUDAPluggableAllocator;

  void cacheInfo(c10::DeviceIndex device, std::size_t* largest_block) override {
    std::size_t free_bytes = 0, total_bytes = 0;
    const ::zeroflow::detail::cuda_device_guard on_device(device);
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      free_bytes = 0;
    }
    *largest_block = free_bytes;
  }
};

void check_routable(const memory::resource_ptr& r) {
  ZF_EXPECTS(r != nullptr, "route_torch_allocator_to needs a resource");
  ZF_EXPECTS(r->where().type == device_type::cuda, "route_torch_allocator_to needs a CUDA resource, got ", r->name(),
             " on ", r->where().name());
}

}  // namespace

void torch_route_cuda_allocator(memory::resource_ptr r) {
  check_routable(r);
  router& rt = router::instance();
  const std::lock_guard lock(rt.install_mutex);
  if (!rt.installed) {
    if (c10::cuda::CUDACachingAllocator::get()->initialized())
      ZF_THROW(error,
               "LibTorch's CUDA allocator is already in use; route_torch_allocator_to must be called before "
               "LibTorch's first CUDA allocation");
    namespace pluggable = torch::cuda::CUDAPluggableAllocator;
    auto allocator = std::make_shared<routed_allocator>(
        allocate_for_torch,
        [](void* p, std::size_t, int device, cudaStream_t) { router::instance().deallocate(p, device); });
    allocator->init(0);  // as createCustomAllocator does: nothing to set up, but it reports itself ready
    allocator->set_record_stream_fn([](void* p, cudaStream_t s) { router::instance().record_stream(p, s); });
    allocator->set_begin_allocate_to_pool([](int device, mempool_id id, capture_filter filter) {
      router::instance().begin_capture(device, id, std::move(filter));
    });
    allocator->set_end_allocate_to_pool_fn([](int, mempool_id id) { router::instance().end_capture(id); });
    allocator->set_release_pool([](int, mempool_id id) { router::instance().release_pool(id); });
    rt.bind(std::move(r));
    try {
      pluggable::changeCurrentAllocator(allocator);
    } catch (const c10::Error& e) {
      ZF_THROW(error, "LibTorch refused zeroflow's CUDA allocator: ", e.what_without_backtrace());
    }
    // LibTorch's own reference may be destroyed at exit before its last frees; ours never is.
    rt.allocator = allocator;
    rt.installed = true;
    return;
  }
  rt.bind(std::move(r));
}

bool torch_cuda_allocator_routed() {
  router& rt = router::instance();
  const std::lock_guard lock(rt.install_mutex);
  return rt.installed;
}

torch_allocation_counts torch_cuda_allocation_counts() { return router::instance().counts(); }

#else

void torch_route_cuda_allocator(memory::resource_ptr r) {
  ZF_EXPECTS(r != nullptr, "route_torch_allocator_to needs a resource");
  ZF_EXPECTS(r->where().type == device_type::cuda, "route_torch_allocator_to needs a CUDA resource, got ", r->name(),
             " on ", r->where().name());
  ZF_THROW(cuda_error, "route_torch_allocator_to needs a CUDA build of zeroflow");
}

bool torch_cuda_allocator_routed() { return false; }

torch_allocation_counts torch_cuda_allocation_counts() { return {}; }

#endif

}  // namespace zeroflow::interop
