#include "io_flag.hpp"

#include <string>

#include "zeroflow/io/file_loading.hpp"

namespace zeroflow::cli {

void add_io_flag(CLI::App& cmd, io::io_method& method) {
  CLI::Validator known(
      [](std::string& text) -> std::string {
        if (text != "auto" && text != "kvikio" && text != "posix" && text != "mmap")
          return "--io " + text + ": not a loading method; choose auto, kvikio, posix or mmap";
        if (text == "kvikio" && !io::query_gds().kvikio_built_in)
          return "--io kvikio: this zeroflow was built without KvikIO; use --io auto, posix or mmap (or rebuild "
                 "with KvikIO: scripts/setup, then a CUDA build)";
        return {};
      },
      "auto|kvikio|posix|mmap", "io_method");
  cmd.add_option_function<std::string>(
         "--io", [&method](const std::string& text) { method = io::parse_io_method(text); },
         "how files reach the GPU: auto (KvikIO where GPUDirect Storage runs, else posix), kvikio (KvikIO/cuFile; "
         "its compatibility mode without the nvidia-fs driver), posix (threads pread into pinned buffers, pipelined "
         "with the copies) or mmap (a memory map copied by the driver); `zeroflow info` says which GDS mode is active")
      ->default_str("auto")
      ->check(known);
}

}  // namespace zeroflow::cli
