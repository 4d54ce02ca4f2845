#pragma once
/// @file leak_tracking_adaptor.hpp
/// Remembers every live allocation made through it, so that leaks can be listed and a release
/// of memory that is not live (a double release, a foreign pointer, a wrong size) is caught
/// before it reaches — and corrupts — the upstream resource.
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "zeroflow/memory/resource.hpp"

namespace zeroflow::memory {

/// One allocation that has not been given back.
struct live_allocation {
  void* pointer = nullptr;
  std::size_t bytes = 0;
  std::uint64_t sequence = 0;  ///< 0 for the first allocation through the adaptor, then 1, 2...
};

/// Thread-safe.
class leak_tracking_adaptor final : public resource {
 public:
  /// @param upstream where the memory comes from.
  /// @param report_on_destruction print report() on stderr when the adaptor dies with
  ///        allocations outstanding.
  /// @throws zeroflow::invalid_argument when `upstream` is null.
  explicit leak_tracking_adaptor(resource_ptr upstream, bool report_on_destruction = true);
  ~leak_tracking_adaptor() override;
  leak_tracking_adaptor(const leak_tracking_adaptor&) = delete;
  leak_tracking_adaptor& operator=(const leak_tracking_adaptor&) = delete;

  [[nodiscard]] device where() const override { return upstream_->where(); }
  [[nodiscard]] std::string name() const override { return "leak_tracking(" + upstream_->name() + ")"; }
  [[nodiscard]] const resource_ptr& upstream() const { return upstream_; }

  /// The live allocations, oldest first.
  [[nodiscard]] std::vector<live_allocation> outstanding() const;
  /// Readable text: "no outstanding allocations" or the count, total bytes and one line per
  /// allocation (sequence number, pointer, bytes), oldest first.
  [[nodiscard]] std::string report() const;

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  /// @throws zeroflow::invalid_argument naming the pointer and size when `p` is not live or
  ///         was allocated with another size; the upstream is not called then.
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override;

  struct entry {
    std::size_t bytes;
    std::uint64_t sequence;
  };

  resource_ptr upstream_;
  bool report_on_destruction_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, entry> live_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace zeroflow::memory
