#pragma once
/// @file statistics_adaptor.hpp
/// Counts what passes through to an upstream resource: bytes and allocations, now and at peak.
#include <cstdint>
#include <mutex>

#include "zeroflow/memory/resource.hpp"

namespace zeroflow::memory {

/// A snapshot of a statistics_adaptor's counters (bytes as requested, not as rounded upstream).
struct allocation_statistics {
  std::size_t current_bytes = 0;   ///< bytes allocated and not yet deallocated
  std::size_t peak_bytes = 0;      ///< highest current_bytes since construction or reset_peak()
  std::size_t total_bytes = 0;     ///< bytes of every allocation ever made
  std::int64_t current_count = 0;  ///< live allocations
  std::int64_t peak_count = 0;     ///< highest current_count since construction or reset_peak()
  std::int64_t total_count = 0;    ///< allocations ever made
};

/// Thread-safe. 0-byte requests never reach an adaptor (resource::allocate answers them), so
/// they are not counted.
class statistics_adaptor final : public resource {
 public:
  /// @throws zeroflow::invalid_argument when `upstream` is null.
  explicit statistics_adaptor(resource_ptr upstream);

  [[nodiscard]] device where() const override { return upstream_->where(); }
  [[nodiscard]] std::string name() const override { return "statistics(" + upstream_->name() + ")"; }
  [[nodiscard]] const resource_ptr& upstream() const { return upstream_; }

  /// The counters, read consistently with one another.
  [[nodiscard]] allocation_statistics statistics() const;
  /// Starts a new peak window: peaks drop to the current values (totals are kept).
  void reset_peak();

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override;

  resource_ptr upstream_;
  mutable std::mutex mutex_;
  allocation_statistics counters_;
};

}  // namespace zeroflow::memory
