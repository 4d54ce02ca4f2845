#include "parallel_tasks.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace zeroflow::io::detail {

void run_tasks(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& task,
               const std::function<void()>& tick) {
  if (count == 0) return;
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> first_failed{none};
  std::mutex mutex;
  std::condition_variable finished_cv;
  std::size_t failed_index = none;
  std::exception_ptr failure;
  unsigned finished = 0;

  auto record = [&](std::size_t index, std::exception_ptr e) {
    std::lock_guard lock(mutex);
    if (index < failed_index) {
      failed_index = index;
      failure = std::move(e);
    }
    std::size_t seen = first_failed.load();
    while (index < seen && !first_failed.compare_exchange_weak(seen, index)) {
    }
  };
  auto work = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= count || i > first_failed.load(std::memory_order_relaxed)) break;
      try {
        task(i);
      } catch (...) {
        record(i, std::current_exception());
      }
    }
  };

  const auto workers = static_cast<unsigned>(std::min<std::size_t>(std::max(threads, 1u), count));
  if (!tick && workers == 1) {
    work();
  } else {
    std::vector<std::jthread> pool;  // joined on every way out, exceptions included
    const unsigned spawned = tick ? workers : workers - 1;
    pool.reserve(spawned);
    for (unsigned t = 0; t < spawned; ++t)
      pool.emplace_back([&] {
        work();
        std::lock_guard lock(mutex);
        ++finished;
        finished_cv.notify_all();
      });
    if (!tick) {
      work();
    } else {
      bool ticking = true;
      std::unique_lock lock(mutex);
      while (!finished_cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return finished == spawned; })) {
        if (!ticking) continue;
        lock.unlock();
        try {
          tick();
        } catch (...) {
          ticking = false;
          record(0, std::current_exception());  // index 0: wins, and stops every task
        }
        lock.lock();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace zeroflow::io::detail
