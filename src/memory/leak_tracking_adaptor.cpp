#include "zeroflow/memory/leak_tracking_adaptor.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "zeroflow/core/error.hpp"

namespace zeroflow::memory {

leak_tracking_adaptor::leak_tracking_adaptor(resource_ptr upstream, bool report_on_destruction)
    : upstream_{std::move(upstream)}, report_on_destruction_{report_on_destruction} {
  ZF_EXPECTS(upstream_ != nullptr, "leak_tracking_adaptor needs an upstream resource");
}

leak_tracking_adaptor::~leak_tracking_adaptor() {
  if (!report_on_destruction_) return;
  bool leaked = false;
  {
    std::lock_guard lock(mutex_);
    leaked = !live_.empty();
  }
  if (leaked) std::fprintf(stderr, "zeroflow: %s\n", report().c_str());
}

std::vector<live_allocation> leak_tracking_adaptor::outstanding() const {
  std::vector<live_allocation> out;
  {
    std::lock_guard lock(mutex_);
    out.reserve(live_.size());
    for (const auto& [p, e] : live_) out.push_back({p, e.bytes, e.sequence});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.sequence < b.sequence; });
  return out;
}

std::string leak_tracking_adaptor::report() const {
  const auto live = outstanding();
  std::ostringstream text;
  text << name() << ": ";
  if (live.empty()) {
    text << "no outstanding allocations";
    return text.str();
  }
  std::size_t total = 0;
  for (const auto& a : live) total += a.bytes;
  text << live.size() << " outstanding allocation" << (live.size() == 1 ? "" : "s") << ", " << total
       << " bytes in total:";
  for (const auto& a : live) text << "\n  #" << a.sequence << ' ' << a.pointer << ' ' << a.bytes << " bytes";
  return text.str();
}

void* leak_tracking_adaptor::do_allocate(std::size_t bytes, stream_view stream) {
  void* p = upstream_->allocate(bytes, stream);
  std::lock_guard lock(mutex_);
  live_[p] = entry{bytes, next_sequence_++};
  return p;
}

void leak_tracking_adaptor::do_deallocate(void* p, std::size_t bytes, stream_view stream) {
  {
    std::lock_guard lock(mutex_);
    auto it = live_.find(p);
    if (it == live_.end())
      ZF_THROW(invalid_argument, name(), ": deallocating ", p, " (", bytes,
               " bytes), which is not a live allocation (released twice, or never allocated here)");
    if (it->second.bytes != bytes)
      ZF_THROW(invalid_argument, name(), ": deallocating ", p, " with ", bytes, " bytes, but it was allocated with ",
               it->second.bytes, " bytes");
    live_.erase(it);
  }
  upstream_->deallocate(p, bytes, stream);
}

}  // namespace zeroflow::memory
