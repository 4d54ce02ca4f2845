/// @file cpu_threads.cpp
/// The thread count of the own CPU kernels (cpu_threads.hpp).
#include "cpu_threads.hpp"

#include <sched.h>

#include <atomic>
#include <cstdlib>

namespace zeroflow::model::detail {

namespace {

int default_threads() {
  if (const char* env = std::getenv("OMP_NUM_THREADS"); env != nullptr) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v >= 1 && v <= 4096) return static_cast<int>(v);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  const int usable = CPU_COUNT(&set);
  return usable > 0 ? usable : 1;
}

std::atomic<int>& chosen() {
  static std::atomic<int> threads{default_threads()};
  return threads;
}

}  // namespace

int kernel_threads() { return chosen().load(std::memory_order_relaxed); }

void set_kernel_threads(int threads) { chosen().store(threads, std::memory_order_relaxed); }

}  // namespace zeroflow::model::detail
