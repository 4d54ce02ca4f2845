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

}  // namespace zeroflow::io
