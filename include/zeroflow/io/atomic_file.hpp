#pragma once
/// @file atomic_file.hpp
/// Writing a file so that readers see either the old file or the complete new one, never a
/// half-written file: the content goes to a temporary beside it, which is renamed into place.
#include <filesystem>
#include <functional>
#include <ostream>

namespace zeroflow::io {

/// Calls `write` with a stream to a temporary file in `path`'s folder, flushes it, then renames
/// it to `path`. If `write` throws or the stream fails, the temporary is removed, `path` is
/// untouched and the exception (or a zeroflow::error naming the path) propagates.
void write_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

/// @brief Removes the temporary file of every write_atomically in progress, and makes every later
/// call wait for good instead of creating one: for a process about to end on a signal (SIGINT,
/// SIGTERM), so that it leaves no hidden half-written file behind.
///
/// Call it from an ordinary thread (one that waits for the signal), not from a signal handler, and
/// end the process right after it (`_exit`): the writers it stops never return. A temporary is
/// registered before it is created, under the same lock this function takes, so none escapes.
void abandon_writes() noexcept;

}  // namespace zeroflow::io
