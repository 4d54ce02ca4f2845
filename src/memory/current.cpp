#include <map>
#include <mutex>

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
}  // namespace

resource_ptr current_resource(device where) {
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
