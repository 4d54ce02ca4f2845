#include <map>
#include <mutex>
#include <vector>

#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/resource.hpp"

namespace zeroflow::memory {

namespace {
std::mutex registry_mutex;
std::map<std::pair<int, int>, resource_ptr>& registry() {
  static std::map<std::pair<int, int>, resource_ptr> r;
  return r;
}
std::pair<int, int> key(device d) { return {static_cast<int>(d.type), d.type == device_type::cuda_host ? 0 : d.id}; }

// The calling thread's scoped_resource guards, innermost last (a handful at most).
thread_local std::vector<std::pair<std::pair<int, int>, resource_ptr>> thread_overrides;
}  // namespace

scoped_resource::scoped_resource(resource_ptr r) : depth_{thread_overrides.size()} {
  ZF_EXPECTS(r != nullptr, "scoped_resource needs a resource");
  const auto k = key(r->where());
  thread_overrides.emplace_back(k, std::move(r));
}

scoped_resource::~scoped_resource() { thread_overrides.resize(depth_); }

resource_ptr current_resource(device where) {
  if (!thread_overrides.empty()) {
    const auto k = key(where);
    for (auto it = thread_overrides.rbegin(); it != thread_overrides.rend(); ++it)
      if (it->first == k) return it->second;
  }
  std::lock_guard lock(registry_mutex);
  auto& slot = registry()[key(where)];
  if (!slot) slot = make_default_resource(where);
  return slot;
}

resource_ptr set_current_resource(resource_ptr r) {
  ZF_EXPECTS(r != nullptr, "set_current_resource needs a resource");
  std::lock_guard lock(registry_mutex);
  auto& slot = registry()[key(r->where())];
  auto previous = slot;
  slot = std::move(r);
  return previous;
}

}  // namespace zeroflow::memory
