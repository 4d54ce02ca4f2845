#pragma once
// `--io auto|kvikio|posix|mmap` on the commands that read recordings: how a file's bytes reach
// the GPU (zeroflow/io/file_loading.hpp), handed to the command's reads in their options.
#include <CLI/CLI.hpp>

#include "zeroflow/io/file_loading.hpp"

namespace zeroflow::cli {

/// @brief Adds --io to `cmd`, whose value goes into `method`. `kvikio` in a build without KvikIO
/// is a usage error (exit 2) that says so and names the methods that work.
void add_io_flag(CLI::App& cmd, io::io_method& method);

}  // namespace zeroflow::cli
