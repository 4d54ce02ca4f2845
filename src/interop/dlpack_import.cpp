// Import of DLPack managed tensors (any producer's) as zeroflow arrays, without copying.
//
// The array's buffer adopts the memory span the tensor can reach, and its release function is
// the tensor's deleter, so the deleter runs exactly once, when the last view goes.
#include <algorithm>
#include <mutex>
#include <unordered_set>

#include "dlpack_registry.hpp"
#include "zeroflow/interop/dlpack.hpp"

namespace zeroflow {
namespace {

using dlpack::DLManagedTensor;
using dlpack::DLManagedTensorVersioned;
using dlpack::DLTensor;

/// Addresses of the managed tensors whose imported arrays are alive.
class import_registry {
 public:
  /// Never destroyed: an imported array may die during static destruction.
  static import_registry& get() {
    static auto* instance = new import_registry;
    return *instance;
  }
  void begin(const void* tensor) {
    std::lock_guard lock(mutex_);
    ZF_EXPECTS(live_.insert(tensor).second, "DLPack tensor ", tensor,
               " is already imported and its array is alive; a managed tensor can be consumed only once");
  }
  void end(const void* tensor) noexcept {
    std::lock_guard lock(mutex_);
    live_.erase(tensor);
  }

 private:
  std::mutex mutex_;
  std::unordered_set<const void*> live_;
};

const char* device_type_name(std::int32_t type) {
  switch (type) {
    case 1:
      return "CPU";
    case 2:
      return "CUDA";
    case 3:
      return "CUDAHost";
    case 4:
      return "OpenCL";
    case 7:
      return "Vulkan";
    case 8:
      return "Metal";
    case 9:
      return "VPI";
    case 10:
      return "ROCM";
    case 11:
      return "ROCMHost";
    case 12:
      return "ExtDev";
    case 13:
      return "CUDAManaged";
    case 14:
      return "OneAPI";
    case 15:
      return "WebGPU";
    case 16:
      return "Hexagon";
    case 17:
      return "MAIA";
    default:
      return "unknown";
  }
}

device to_device(dlpack::DLDevice d) {
  switch (d.device_type) {
    case dlpack::kDLCPU:
      return {device_type::cpu, d.device_id};
    case dlpack::kDLCUDA:
      return {device_type::cuda, d.device_id};
    case dlpack::kDLCUDAHost:
      return {device_type::cuda_host, d.device_id};
    case dlpack::kDLCUDAManaged:
      return {device_type::cuda_managed, d.device_id};
    default:
      break;
  }
  ZF_THROW(invalid_argument, "unsupported DLPack device type ", static_cast<std::int32_t>(d.device_type), " (",
           device_type_name(d.device_type), "); zeroflow takes CPU (1), CUDA (2), CUDAHost (3) and CUDAManaged (13)");
}

/// An array's worth of facts about a DLTensor, and the memory span it reaches.
struct view_params {
  void* first_byte{nullptr};    ///< lowest address any element occupies
  std::size_t span_bytes{0};    ///< bytes from first_byte to one past the highest element
  std::int64_t byte_offset{0};  ///< element 0, in bytes from first_byte
  dtype type{};
  device where{};
  shape_t shape;
  shape_t strides;
};

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  ZF_EXPECTS(!__builtin_mul_overflow(a, b, &out), "DLPack tensor extents overflow 64 bits");
  return out;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  ZF_EXPECTS(!__builtin_add_overflow(a, b, &out), "DLPack tensor extents overflow 64 bits");
  return out;
}

/// Reads `t` into view_params; throws invalid_argument on anything zeroflow cannot represent.
view_params describe(const DLTensor& t) {
  view_params v;
  v.where = to_device(t.device);
  v.type = dtype{static_cast<type_code>(t.dtype.code), t.dtype.bits, t.dtype.lanes};
  ZF_EXPECTS(is_valid(v.type), "unsupported DLPack dtype (code ", int{t.dtype.code}, ", bits ", int{t.dtype.bits},
             ", lanes ", t.dtype.lanes,
             "); zeroflow takes int/uint 8-64, float 16/32/64, bfloat16, complex 64/128 "
             "and bool stored in 8 bits");
  ZF_EXPECTS(t.ndim >= 0, "DLPack tensor has negative ndim ", t.ndim);
  ZF_EXPECTS(t.ndim == 0 || t.shape != nullptr, "DLPack tensor has ndim ", t.ndim, " but a NULL shape");
  v.shape.assign(t.shape, t.shape + t.ndim);
  bool empty = false;
  std::int64_t product = 1;  // of the extents, 0 counted as 1: contiguous strides must not overflow
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    ZF_EXPECTS(v.shape[d] >= 0, "DLPack tensor dimension ", d, " has negative extent ", v.shape[d]);
    empty = empty || v.shape[d] == 0;
    product = checked_mul(product, std::max<std::int64_t>(v.shape[d], 1));
  }
  // NULL strides: a C-contiguous tensor (producers older than DLPack 1.0 may send them).
  v.strides = t.strides != nullptr ? shape_t(t.strides, t.strides + t.ndim) : contiguous_strides(v.shape);

  auto* element0 = reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset);
  if (empty) {
    // Addresses nothing: an empty span at element 0 (data may be NULL, as the spec asks).
    v.first_byte = element0;
    return v;
  }
  ZF_EXPECTS(t.data != nullptr, "DLPack tensor has elements but a NULL data pointer");
  // Negative strides reach below element 0: the span runs from the lowest to the highest
  // reachable element, and element 0 sits -low elements into it.
  std::int64_t low = 0, high = 0;
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    const std::int64_t reach = checked_mul(v.shape[d] - 1, v.strides[d]);
    if (reach < 0)
      low = checked_add(low, reach);
    else
      high = checked_add(high, reach);
  }
  const auto item = static_cast<std::int64_t>(v.type.itemsize());
  v.byte_offset = checked_mul(-low, item);
  v.span_bytes = static_cast<std::size_t>(checked_add(checked_mul(checked_add(high, -low), item), item));
  v.first_byte = element0 - v.byte_offset;
  return v;
}

template <class Managed>
void call_deleter(Managed* t) noexcept {
  if (t->deleter != nullptr) t->deleter(t);
}

/// Checks that `t` may be taken and marks it taken; nothing is released on failure, because the
/// tensor belongs to someone else (a live import) or no longer exists (a deleted export).
void claim(const void* t) {
  ZF_EXPECTS(t != nullptr, "from_dlpack was given a NULL managed tensor");
  ZF_EXPECTS(dlpack::detail::state_of_export(t) != dlpack::detail::export_state::deleted, "DLPack tensor ", t,
             " is a zeroflow export whose deleter already ran; it cannot be imported");
  import_registry::get().begin(t);
}

/// Wraps the claimed tensor `t` in an array; t's deleter runs once, on failure or when the
/// array's buffer goes.
template <class Managed>
array adopt(Managed* t, bool read_only) {
  view_params v;
  try {
    v = describe(t->dl_tensor);
  } catch (...) {
    import_registry::get().end(t);
    call_deleter(t);
    throw;
  }
  // From here the buffer owns t: if adopt() or the array constructor throw, the buffer's
  // destruction (if it was built at all) runs the deleter; we must not run it a second time.
  auto owner = buffer::adopt(v.first_byte, v.span_bytes, v.where, [t](void*, std::size_t) {
    // Before the deleter: once it frees t, the allocator may hand the same address to a new
    // tensor on another thread, whose import must not be mistaken for a second import of t.
    import_registry::get().end(t);
    call_deleter(t);
  });
  return array(std::move(owner), v.type, std::move(v.shape), std::move(v.strides), v.byte_offset, read_only);
}

}  // namespace

array from_dlpack(DLManagedTensorVersioned* t) {
  claim(t);
  // Only version, manager_ctx and deleter may be read before the major version is checked.
  if (t->version.major != dlpack::major_version) {
    const auto major = t->version.major;
    const auto minor = t->version.minor;
    import_registry::get().end(t);
    call_deleter(t);
    ZF_THROW(invalid_argument, "unsupported DLPack version ", major, ".", minor, " (zeroflow speaks ",
             dlpack::major_version, ".x); the tensor was released");
  }
  // Any minor version of 1.x has this layout; IS_COPIED needs nothing from us (we own the
  // tensor until we call its deleter either way).
  return adopt(t, (t->flags & dlpack::flag_bitmask_read_only) != 0);
}

array from_dlpack(DLManagedTensor* t) {
  claim(t);
  return adopt(t, false);
}

}  // namespace zeroflow
