#pragma once
// Private to src/io: a tiny fork-join helper for the CSV reader's two passes.
#include <cstddef>
#include <functional>

namespace zeroflow::io::detail {

/// Runs task(i) for every i in [0, count) on up to `threads` threads, taking indices in order.
/// Without `tick` the calling thread works too; with it, the calling thread only calls tick()
/// about every 50 ms (so callbacks never run on a worker). Once task i throws, no task above i
/// starts; after every thread is joined, the exception of the lowest failed index is rethrown.
/// With tasks over consecutive ranges of a file, that is the error nearest the start.
/// An exception from tick() stops the tasks the same way and is rethrown after the join.
void run_tasks(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& task,
               const std::function<void()>& tick = {});

}  // namespace zeroflow::io::detail
