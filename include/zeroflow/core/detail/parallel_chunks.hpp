#pragma once
/// @file parallel_chunks.hpp
/// A minimal fork-join over index ranges for the host kernels of every layer (no pool: the stages
/// are long enough that starting a few threads costs nothing measurable).
#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace zeroflow::detail {

/// Calls body(begin, end) on disjoint chunks covering [0, n), on up to hardware_concurrency()
/// threads, each chunk at least `min_chunk` long; rethrows the first exception after joining.
template <class Body>
void parallel_chunks(std::int64_t n, std::int64_t min_chunk, Body&& body) {
  if (n <= 0) return;
  const std::int64_t cores = std::max<std::int64_t>(1, std::thread::hardware_concurrency());
  const std::int64_t parts =
      std::clamp<std::int64_t>(n / std::max<std::int64_t>(min_chunk, 1), 1, std::min<std::int64_t>(cores, 64));
  if (parts == 1) {
    body(std::int64_t{0}, n);
    return;
  }
  const std::int64_t chunk = (n + parts - 1) / parts;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(parts));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(parts - 1));
  auto run = [&](std::int64_t part) {
    try {
      const std::int64_t begin = part * chunk, end = std::min(n, begin + chunk);
      if (begin < end) body(begin, end);
    } catch (...) {
      errors[static_cast<std::size_t>(part)] = std::current_exception();
    }
  };
  for (std::int64_t part = 1; part < parts; ++part) threads.emplace_back(run, part);
  run(0);
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace zeroflow::detail
