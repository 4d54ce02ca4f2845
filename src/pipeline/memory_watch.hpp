#pragma once
// Private to the pipeline: a run's peak memory, per device, for its summary.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "zeroflow/core/device.hpp"
#include "zeroflow/memory/resource.hpp"
#include "zeroflow/memory/statistics_adaptor.hpp"

namespace zeroflow::pipeline::detail {

/// Wraps the current resources of `where` (and the host) in statistics adaptors, so the summary
/// can report peak memory. Runs at the same time in other threads (many recordings on one GPU)
/// share the adaptors: the first run in progress on a device installs them, the last one to end
/// puts back what was there. A run's peak is therefore the process's peak while it ran.
class memory_watch {
 public:
  explicit memory_watch(device where) {
    watch(cpu_device);
    if (where.type == device_type::cuda) watch(where);
  }
  ~memory_watch() {
    watches& w = all();
    const std::lock_guard lock(w.mutex);
    for (const auto& [d, stats] : watched_) {
      auto found = w.by_device.find({d.type, d.id});
      if (found == w.by_device.end() || --found->second.users > 0) continue;
      memory::set_current_resource(found->second.previous);
      w.by_device.erase(found);
    }
  }
  memory_watch(const memory_watch&) = delete;
  memory_watch& operator=(const memory_watch&) = delete;
  std::int64_t peak(device_type type) const {
    for (const auto& [d, stats] : watched_)
      if (d.type == type) return static_cast<std::int64_t>(stats->statistics().peak_bytes);
    return 0;
  }

 private:
  struct installed {
    int users = 0;
    memory::resource_ptr previous;
    std::shared_ptr<memory::statistics_adaptor> stats;
  };
  struct watches {
    std::mutex mutex;
    std::map<std::pair<device_type, int>, installed> by_device;
  };
  static watches& all() {
    static watches w;
    return w;
  }
  void watch(device d) {
    watches& w = all();
    const std::lock_guard lock(w.mutex);
    installed& entry = w.by_device[{d.type, d.id}];
    if (entry.users == 0) {
      entry.stats = std::make_shared<memory::statistics_adaptor>(memory::current_resource(d));
      entry.previous = memory::set_current_resource(entry.stats);
    }
    ++entry.users;
    watched_.emplace_back(d, entry.stats);
  }
  std::vector<std::pair<device, std::shared_ptr<memory::statistics_adaptor>>> watched_;
};

}  // namespace zeroflow::pipeline::detail
