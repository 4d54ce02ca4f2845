#include "zeroflow/io/atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include <unistd.h>

#include "zeroflow/core/error.hpp"

namespace zeroflow::io {

void write_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  static std::atomic<unsigned> counter{0};
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder))
    ZF_THROW(error, "cannot write ", path.string(), ": folder ", folder.string(), " does not exist");
  auto temp = folder / ("." + path.filename().string() + ".tmp" + std::to_string(::getpid()) + "-" +
                        std::to_string(counter++));
  try {
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      if (!out) ZF_THROW(error, "cannot create ", temp.string(), ": ", std::strerror(errno));
      write(out);
      out.flush();
      if (!out) ZF_THROW(error, "writing ", path.string(), " failed (disk full?)");
    }
    std::error_code ec;
    std::filesystem::rename(temp, path, ec);
    if (ec) ZF_THROW(error, "cannot write ", path.string(), ": ", ec.message());
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw;
  }
}

}  // namespace zeroflow::io
