/// @file concurrent_jobs.cpp
/// A fixed set of threads taking indices in turn (concurrent_jobs.hpp).
#include "concurrent_jobs.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace zeroflow::cli {

void run_concurrently(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& work) {
  if (jobs <= 1 || count <= 1) {
    for (std::size_t i = 0; i < count; ++i) work(i);
    return;
  }
  // Indices are taken in order, so the first recordings start first and progress reads naturally.
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) work(i);
  };
  std::vector<std::jthread> threads;
  const std::size_t n = std::min<std::size_t>(jobs, count);
  threads.reserve(n);
  for (std::size_t t = 0; t < n; ++t) threads.emplace_back(worker);
}

}  // namespace zeroflow::cli
