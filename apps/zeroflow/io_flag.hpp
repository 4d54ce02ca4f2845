#pragma once
// `--io auto|kvikio|posix|mmap` on the commands that read recordings: how a file's bytes reach
// the GPU (zeroflow/io/file_loading.hpp). It sets the process-wide loading method, so that every
// reader of the command that loads a file into GPU memory takes it (see file_loading.hpp).
#include <CLI/CLI.hpp>

namespace zeroflow::cli {

/// @brief Adds --io to `cmd`. `kvikio` in a build without KvikIO is a usage error (exit 2) that
/// says so and names the methods that work.
void add_io_flag(CLI::App& cmd);

}  // namespace zeroflow::cli
