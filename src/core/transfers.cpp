#include "zeroflow/core/transfers.hpp"

#include <atomic>

namespace zeroflow {

namespace {
std::atomic<std::int64_t> copies{0};
std::atomic<std::int64_t> bytes{0};
std::atomic<std::int64_t> largest{0};
}  // namespace

transfer_counts device_to_host_transfers() { return {copies.load(), bytes.load(), largest.load()}; }

namespace detail {
void note_device_to_host(std::size_t n) {
  const auto v = static_cast<std::int64_t>(n);
  copies.fetch_add(1);
  bytes.fetch_add(v);
  std::int64_t seen = largest.load();
  while (v > seen && !largest.compare_exchange_weak(seen, v)) {
  }
}
}  // namespace detail

}  // namespace zeroflow
