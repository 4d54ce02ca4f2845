// zeroflow.memory: the stream-ordered resources and adaptors of docs/architecture.md ("Memory"), the current
// resource per device, and raw blocks for frameworks that allocate through zeroflow (CuPy,
// Numba, PyTorch: zeroflow/allocators.py).
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/memory/all.hpp"

#if ZEROFLOW_HAS_TORCH
#include "zeroflow/interop/torch_cuda_allocator.hpp"
#endif
#if ZEROFLOW_HAS_CUDA
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::python {
namespace {

using memory::resource;
using memory::resource_ptr;

/// Memory from a resource, given back (on the stream it was allocated on) when the Python
/// object dies or free() is called. CuPy's UnownedMemory and Numba's MemoryPointer hold one.
class block {
 public:
  block(resource_ptr r, std::size_t bytes, std::uintptr_t stream)
      : resource_(std::move(r)), bytes_(bytes), stream_(stream) {
    pointer_ = resource_->allocate(bytes_, to_stream_view(stream_));
  }
  block(const block&) = delete;
  block& operator=(const block&) = delete;
  ~block() { free(); }

  void free() {
    if (pointer_ == nullptr) return;
    void* p = pointer_;
    pointer_ = nullptr;
    resource_->deallocate(p, bytes_, to_stream_view(stream_));
  }
  [[nodiscard]] std::uintptr_t address() const { return reinterpret_cast<std::uintptr_t>(pointer_); }
  [[nodiscard]] std::size_t size() const { return bytes_; }
  [[nodiscard]] std::uintptr_t stream() const { return stream_; }
  [[nodiscard]] const resource_ptr& owner() const { return resource_; }

 private:
  resource_ptr resource_;
  void* pointer_ = nullptr;
  std::size_t bytes_;
  std::uintptr_t stream_;
};

nb::dict statistics_dict(const memory::allocation_statistics& s) {
  nb::dict d;
  d["current_bytes"] = s.current_bytes;
  d["peak_bytes"] = s.peak_bytes;
  d["total_bytes"] = s.total_bytes;
  d["current_count"] = s.current_count;
  d["peak_count"] = s.peak_count;
  d["total_count"] = s.total_count;
  return d;
}

resource_ptr upstream_of(const resource& r) {
  if (auto* s = dynamic_cast<const memory::statistics_adaptor*>(&r)) return s->upstream();
  if (auto* l = dynamic_cast<const memory::limiting_adaptor*>(&r)) return l->upstream();
  if (auto* t = dynamic_cast<const memory::leak_tracking_adaptor*>(&r)) return t->upstream();
  if (auto* g = dynamic_cast<const memory::logging_adaptor*>(&r)) return g->upstream();
  return nullptr;
}

nb::tuple cuda_memory_info(int device_id) {
#if ZEROFLOW_HAS_CUDA
  detail::cuda_device_guard guard(device_id);
  std::size_t free_bytes = 0, total_bytes = 0;
  ZF_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  return nb::make_tuple(free_bytes, total_bytes);
#else
  (void)device_id;
  ZF_THROW(cuda_error, "cuda_memory_info needs a CUDA build of zeroflow");
#endif
}

}  // namespace

void bind_memory(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<resource>(m, "MemoryResource",
                       "A stream-ordered memory resource: allocate(bytes, stream) / deallocate(ptr, bytes, stream). "
                       "Every zeroflow allocation on a device goes through that device's current resource.")
      .def_prop_ro("device", [](const resource& r) { return r.where().name(); })
      .def_prop_ro("name", &resource::name)
      .def_prop_ro("upstream", &upstream_of, "The resource an adaptor forwards to (None for a base resource).")
      .def(
          "allocate",
          [](resource& r, std::size_t bytes, nb::handle stream) {
            return reinterpret_cast<std::uintptr_t>(r.allocate(bytes, to_stream_view(stream_handle(stream))));
          },
          "nbytes"_a, "stream"_a = nb::none(),
          "Raw memory (an address; 0 for 0 bytes), usable in stream order on `stream`. Give it back with "
          "deallocate(); prefer allocate_block(), which gives it back by itself.")
      .def(
          "deallocate",
          [](resource& r, std::uintptr_t pointer, std::size_t bytes, nb::handle stream) {
            r.deallocate(reinterpret_cast<void*>(pointer), bytes, to_stream_view(stream_handle(stream)));
          },
          "ptr"_a, "nbytes"_a, "stream"_a = nb::none())
      .def(
          "allocate_block",
          [](const resource_ptr& r, std::size_t bytes, nb::handle stream) {
            return std::make_unique<block>(r, bytes, stream_handle(stream));
          },
          "nbytes"_a, "stream"_a = nb::none(),
          "A MemoryBlock of `nbytes`, deallocated on `stream` when the block object dies (or free() is called).")
      .def("__repr__",
           [](const resource& r) { return "<zeroflow.memory resource " + r.name() + " on " + r.where().name() + ">"; });

  nb::class_<block>(m, "MemoryBlock", "Memory from a resource, given back when this object dies.")
      .def_prop_ro("ptr", &block::address, "The address (0 once freed or for 0 bytes).")
      .def_prop_ro("nbytes", &block::size)
      .def_prop_ro("stream", &block::stream)
      .def_prop_ro("resource", &block::owner)
      .def("free", &block::free, "Gives the memory back now (idempotent).");

  nb::class_<memory::host_resource, resource>(m, "HostResource", "Pageable host memory, 256-byte aligned.")
      .def(nb::new_([]() { return std::make_shared<memory::host_resource>(); }));
  nb::class_<memory::pinned_resource, resource>(m, "PinnedResource",
                                                "Page-locked host memory (cudaMallocHost); needs a GPU.")
      .def(nb::new_([]() { return std::make_shared<memory::pinned_resource>(); }));
  nb::class_<memory::cuda_pool_resource, resource>(
      m, "CudaPoolResource",
      "Device memory from a CUDA stream-ordered memory pool of its own (cudaMallocFromPoolAsync).")
      .def(nb::new_([](int device_id, nb::handle release_threshold) {
             const std::uint64_t threshold = release_threshold.is_none() ? memory::cuda_pool_resource::keep_all
                                                                         : nb::cast<std::uint64_t>(release_threshold);
             return std::make_shared<memory::cuda_pool_resource>(device_id, threshold);
           }),
           "device_id"_a = 0, "release_threshold"_a = nb::none())
      .def_prop_ro(
          "pool_handle", [](const memory::cuda_pool_resource& r) { return reinterpret_cast<std::uintptr_t>(r.pool()); },
          "The cudaMemPool_t (an integer), e.g. for CuPy or JAX-side tooling.")
      .def_prop_ro("reserved_bytes", &memory::cuda_pool_resource::reserved_bytes);
  nb::class_<memory::statistics_adaptor, resource>(
      m, "StatisticsAdaptor", "Counts bytes and allocations passing to `upstream`: now, at peak and in total.")
      .def(nb::new_(
               [](resource_ptr upstream) { return std::make_shared<memory::statistics_adaptor>(std::move(upstream)); }),
           "upstream"_a)
      .def(
          "statistics", [](const memory::statistics_adaptor& s) { return statistics_dict(s.statistics()); },
          "current_bytes, peak_bytes, total_bytes, current_count, peak_count, total_count (a dict).")
      .def("reset_peak", &memory::statistics_adaptor::reset_peak, "Starts a new peak window.");
  nb::class_<memory::limiting_adaptor, resource>(
      m, "LimitingAdaptor", "Fails allocations past `budget` live bytes (MemoryError) before asking `upstream`.")
      .def(nb::new_([](resource_ptr upstream, std::size_t budget) {
             return std::make_shared<memory::limiting_adaptor>(std::move(upstream), budget);
           }),
           "upstream"_a, "budget"_a)
      .def_prop_ro("budget", &memory::limiting_adaptor::budget)
      .def_prop_ro("used", &memory::limiting_adaptor::used);
  nb::class_<memory::leak_tracking_adaptor, resource>(
      m, "LeakTrackingAdaptor", "Remembers live allocations; refuses releases of memory that is not live.")
      .def(nb::new_([](resource_ptr upstream, bool report_on_destruction) {
             return std::make_shared<memory::leak_tracking_adaptor>(std::move(upstream), report_on_destruction);
           }),
           "upstream"_a, "report_on_destruction"_a = true)
      .def(
          "outstanding",
          [](const memory::leak_tracking_adaptor& t) {
            nb::list out;
            for (const auto& a : t.outstanding())
              out.append(nb::make_tuple(reinterpret_cast<std::uintptr_t>(a.pointer), a.bytes, a.sequence));
            return out;
          },
          "Live allocations, oldest first, as (ptr, nbytes, sequence) tuples.")
      .def("report", &memory::leak_tracking_adaptor::report);
  nb::class_<memory::logging_adaptor, resource>(m, "LoggingAdaptor",
                                                "Writes one CSV line per allocation and deallocation to `path`.")
      .def(nb::new_([](resource_ptr upstream, const std::string& path) {
             return std::make_shared<memory::logging_adaptor>(std::move(upstream), path);
           }),
           "upstream"_a, "path"_a)
      .def("flush", &memory::logging_adaptor::flush);

  m.def(
      "current_resource", [](nb::handle device) { return memory::current_resource(parse_device(device)); },
      "device"_a = "cpu", "The resource zeroflow allocates from on `device` (created on first use).");
  m.def("set_current_resource", &memory::set_current_resource, "resource"_a,
        "Makes `resource` the current one for its device; returns the previous one. Arrays already allocated "
        "keep the resource that made them.");
  m.def(
      "_reset_current_resource",
      [](nb::handle device) {
        const auto where = parse_device(device);
        memory::set_current_resource(memory::make_default_resource(where));
      },
      "device"_a,
      "Makes a fresh default resource current for `device` (at exit: the registry then holds no Python object).");
  m.def("cuda_memory_info", &cuda_memory_info, "device_id"_a = 0, "(free, total) bytes of a GPU (cudaMemGetInfo).");
  m.def(
      "route_torch_allocator_to",
      [](const resource_ptr& r) {
#if ZEROFLOW_HAS_TORCH
        interop::route_torch_allocator_to(r);
#else
        (void)r;
        ZF_THROW(error, "this zeroflow was built without LibTorch");
#endif
      },
      "resource"_a,
      "Makes LibTorch (and so PyTorch in this process) take its CUDA memory from `resource` (a CUDA resource). "
      "Must happen before PyTorch's first CUDA allocation; for the whole process.");
  m.def(
      "torch_allocator_routed",
      []() {
#if ZEROFLOW_HAS_TORCH
        return interop::torch_allocator_routed();
#else
        return false;
#endif
      },
      "True once route_torch_allocator_to has installed zeroflow's allocator in LibTorch.");
}

}  // namespace zeroflow::python
