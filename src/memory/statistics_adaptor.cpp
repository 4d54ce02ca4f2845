#include "zeroflow/memory/statistics_adaptor.hpp"

#include <algorithm>

#include "zeroflow/core/error.hpp"

namespace zeroflow::memory {

statistics_adaptor::statistics_adaptor(resource_ptr upstream) : upstream_{std::move(upstream)} {
  ZF_EXPECTS(upstream_ != nullptr, "statistics_adaptor needs an upstream resource");
}

allocation_statistics statistics_adaptor::statistics() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

void statistics_adaptor::reset_peak() {
  std::lock_guard lock(mutex_);
  counters_.peak_bytes = counters_.current_bytes;
  counters_.peak_count = counters_.current_count;
}

void* statistics_adaptor::do_allocate(std::size_t bytes, stream_view stream) {
  void* p = upstream_->allocate(bytes, stream);  // counted only once it succeeded
  std::lock_guard lock(mutex_);
  counters_.current_bytes += bytes;
  counters_.total_bytes += bytes;
  counters_.peak_bytes = std::max(counters_.peak_bytes, counters_.current_bytes);
  ++counters_.current_count;
  ++counters_.total_count;
  counters_.peak_count = std::max(counters_.peak_count, counters_.current_count);
  return p;
}

void statistics_adaptor::do_deallocate(void* p, std::size_t bytes, stream_view stream) {
  upstream_->deallocate(p, bytes, stream);  // a refused release (leak tracker below) changes nothing
  std::lock_guard lock(mutex_);
  counters_.current_bytes -= std::min(bytes, counters_.current_bytes);
  if (counters_.current_count > 0) --counters_.current_count;
}

}  // namespace zeroflow::memory
