#pragma once
/// @file concurrent_jobs.hpp
/// Many recordings at once in one process (`--jobs`): a few threads take the recordings in turn.
#include <cstddef>
#include <functional>

namespace zeroflow::cli {

/// Calls `work(i)` once for every i in [0, count), up to `jobs` at a time, each call on one of
/// `jobs` threads; returns when all are done. With jobs <= 1 the calls run in order on the calling
/// thread. `work` reports its own failures: an exception escaping it ends the process.
void run_concurrently(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& work);

}  // namespace zeroflow::cli
