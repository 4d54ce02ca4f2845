// Export of zeroflow arrays as DLPack managed tensors.
//
// Each export is an export_block owned by a process-wide registry, keyed by the address handed
// to the consumer. The deleter looks its argument up by address (it never reads through it), so
// a deleter called twice, or on something zeroflow never exported, is reported on stderr and
// ignored rather than freeing memory twice. A deleted block keeps its memory in a quarantine of
// the last `quarantine_slots` deletions, so its address is not reused by the allocator for a
// new export while a stale pointer to it may still be around.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "dlpack_registry.hpp"
#include "zeroflow/interop/dlpack.hpp"

namespace zeroflow {
namespace {

using dlpack::DLManagedTensor;
using dlpack::DLManagedTensorVersioned;
using dlpack::DLTensor;

/// Everything one export owns: the struct handed out, a copy of the array (which holds a
/// reference to its buffer) and the shape/strides arrays the DLTensor points into.
struct export_block {
  DLManagedTensorVersioned versioned{};
  DLManagedTensor legacy{};
  const void* handed_out{nullptr};  ///< &versioned or &legacy
  array view;
  shape_t shape;
  shape_t strides;
};

class export_registry {
 public:
  /// Never destroyed: a buffer released during static destruction may still run a deleter.
  static export_registry& get() {
    static auto* instance = new export_registry;
    return *instance;
  }

  void add(std::unique_ptr<export_block> block) {
    std::lock_guard lock(mutex_);
    const void* key = block->handed_out;
    live_.emplace(key, std::move(block));
  }

  /// Retires a live export; false when `tensor` is not one (nothing is touched then).
  bool retire(const void* tensor) noexcept {
    // The array and the evicted block die after the lock is released: dropping the array may run
    // its buffer's release function, which may itself export or import.
    array view;
    std::unique_ptr<export_block> evicted;
    {
      std::lock_guard lock(mutex_);
      auto it = live_.find(tensor);
      if (it == live_.end()) return false;
      std::unique_ptr<export_block> block = std::move(it->second);
      live_.erase(it);
      view = std::move(block->view);
      block->view = array{};
      block->shape = {};
      block->strides = {};
      // What a stale reader would find: no data, no extents (the deleter stays, and reports).
      for (DLTensor* t : {&block->versioned.dl_tensor, &block->legacy.dl_tensor}) {
        t->data = nullptr;
        t->shape = nullptr;
        t->strides = nullptr;
        t->ndim = 0;
      }
      quarantine_.push_back(std::move(block));
      if (quarantine_.size() > dlpack::detail::quarantine_slots) {
        evicted = std::move(quarantine_.front());
        quarantine_.pop_front();
      }
    }
    return true;
  }

  dlpack::detail::export_state state_of(const void* tensor) {
    std::lock_guard lock(mutex_);
    if (live_.count(tensor) != 0) return dlpack::detail::export_state::live;
    const bool deleted = std::any_of(quarantine_.begin(), quarantine_.end(),
                                     [tensor](const auto& block) { return block->handed_out == tensor; });
    return deleted ? dlpack::detail::export_state::deleted : dlpack::detail::export_state::unknown;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<const void*, std::unique_ptr<export_block>> live_;
  std::deque<std::unique_ptr<export_block>> quarantine_;
};

void report_bad_delete(const void* tensor) {
  // A deleter is called from C and must not throw; one clear line is all we can do.
  std::fprintf(stderr,
               "zeroflow: DLPack deleter called on %p, which is not a live zeroflow export "
               "(deleted twice, or never exported by zeroflow); ignored\n",
               tensor);
}

void delete_versioned(DLManagedTensorVersioned* self) {
  if (self != nullptr && !export_registry::get().retire(self)) report_bad_delete(self);
}

void delete_legacy(DLManagedTensor* self) {
  if (self != nullptr && !export_registry::get().retire(self)) report_bad_delete(self);
}

/// Fills `out` to view `block->view`; shape and strides point into the block.
void describe(export_block& block, DLTensor& out) {
  const array& a = block.view;
  block.shape = a.shape();
  block.strides = a.strides();  // always explicit (in elements), never NULL: see dlpack.hpp
  // Element 0's address, with byte_offset 0: see dlpack.hpp for why the offset is folded in.
  // The spec asks for NULL data when the tensor has no elements.
  out.data = a.size() == 0 ? nullptr : a.data();
  out.device = {static_cast<dlpack::DLDeviceType>(a.where().type), a.where().id};
  out.ndim = static_cast<std::int32_t>(a.ndim());
  out.dtype = {static_cast<std::uint8_t>(a.type().code), a.type().bits, a.type().lanes};
  out.shape = block.shape.empty() ? nullptr : block.shape.data();
  out.strides = block.strides.empty() ? nullptr : block.strides.data();
  out.byte_offset = 0;
}

std::unique_ptr<export_block> make_block(const array& a) {
  ZF_EXPECTS(a.valid(), "cannot export an empty (default-constructed) array through DLPack");
  ZF_EXPECTS(a.ndim() <= INT32_MAX, "array has too many dimensions for DLPack");
  auto block = std::make_unique<export_block>();
  block->view = a;
  return block;
}

}  // namespace

dlpack::DLManagedTensorVersioned* to_dlpack_versioned(const array& a) {
  auto block = make_block(a);
  DLManagedTensorVersioned& t = block->versioned;
  describe(*block, t.dl_tensor);
  t.version = {dlpack::major_version, dlpack::minor_version};
  t.manager_ctx = block.get();
  t.deleter = &delete_versioned;
  t.flags = a.read_only() ? dlpack::flag_bitmask_read_only : 0;
  block->handed_out = &t;
  export_registry::get().add(std::move(block));
  return &t;
}

dlpack::DLManagedTensor* to_dlpack(const array& a) {
  // The legacy struct cannot say "read-only", and a consumer would feel free to write.
  ZF_EXPECTS(!a.read_only(),
             "a read-only array cannot be exported as a legacy DLManagedTensor (it has no read-only flag); "
             "use to_dlpack_versioned");
  auto block = make_block(a);
  DLManagedTensor& t = block->legacy;
  describe(*block, t.dl_tensor);
  t.manager_ctx = block.get();
  t.deleter = &delete_legacy;
  block->handed_out = &t;
  export_registry::get().add(std::move(block));
  return &t;
}

namespace dlpack::detail {
export_state state_of_export(const void* tensor) { return export_registry::get().state_of(tensor); }
}  // namespace dlpack::detail

}  // namespace zeroflow
