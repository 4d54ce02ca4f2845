#pragma once
/// @file limiting_adaptor.hpp
/// Caps the bytes live at once through it: past the budget an allocation fails cleanly with
/// zeroflow::out_of_memory (before the upstream is asked), and deallocations make room again.
#include <atomic>

#include "zeroflow/memory/resource.hpp"

namespace zeroflow::memory {

/// Thread-safe. Counts requested bytes (not the upstream's rounding).
class limiting_adaptor final : public resource {
 public:
  /// @param upstream where the memory comes from.
  /// @param budget_bytes the most bytes that may be allocated and not yet deallocated.
  /// @throws zeroflow::invalid_argument when `upstream` is null.
  limiting_adaptor(resource_ptr upstream, std::size_t budget_bytes);

  [[nodiscard]] device where() const override { return upstream_->where(); }
  [[nodiscard]] std::string name() const override { return "limiting(" + upstream_->name() + ")"; }
  [[nodiscard]] const resource_ptr& upstream() const { return upstream_; }

  [[nodiscard]] std::size_t budget() const { return budget_; }
  /// Bytes allocated through this adaptor and not yet deallocated.
  [[nodiscard]] std::size_t used() const { return used_.load(std::memory_order_relaxed); }

 private:
  /// @throws zeroflow::out_of_memory naming requested, used and budget bytes past the budget.
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override;

  resource_ptr upstream_;
  std::size_t budget_;
  std::atomic<std::size_t> used_{0};
};

}  // namespace zeroflow::memory
