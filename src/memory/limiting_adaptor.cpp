#include "zeroflow/memory/limiting_adaptor.hpp"

#include <algorithm>

#include "zeroflow/core/error.hpp"

namespace zeroflow::memory {

limiting_adaptor::limiting_adaptor(resource_ptr upstream, std::size_t budget_bytes)
    : upstream_{std::move(upstream)}, budget_{budget_bytes} {
  ZF_EXPECTS(upstream_ != nullptr, "limiting_adaptor needs an upstream resource");
}

void* limiting_adaptor::do_allocate(std::size_t bytes, stream_view stream) {
  // Reserve first, so two threads cannot both squeeze under the budget.
  std::size_t used = used_.load(std::memory_order_relaxed);
  do {
    if (bytes > budget_ || used > budget_ - bytes)
      ZF_THROW(out_of_memory, name(), ": allocating ", bytes, " bytes would exceed the budget (", used, " of ", budget_,
               " bytes in use)");
  } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  try {
    return upstream_->allocate(bytes, stream);
  } catch (...) {
    used_.fetch_sub(bytes, std::memory_order_relaxed);
    throw;
  }
}

void limiting_adaptor::do_deallocate(void* p, std::size_t bytes, stream_view stream) {
  upstream_->deallocate(p, bytes, stream);
  // Clamped at 0: a caller passing a larger size than it allocated must not wrap the count.
  std::size_t used = used_.load(std::memory_order_relaxed);
  while (!used_.compare_exchange_weak(used, used - std::min(used, bytes), std::memory_order_relaxed)) {
  }
}

}  // namespace zeroflow::memory
