#include "zeroflow/io/atomic_file.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "zeroflow/core/error.hpp"

namespace zeroflow::io {

namespace {

/// The temporaries being written, so that a process ending on a signal can remove them.
struct writes_in_flight {
  std::mutex lock;
  std::vector<std::filesystem::path> temporaries;
  bool abandoned = false;
};

writes_in_flight& in_flight() {
  // Never destroyed: a writer in another thread may still reach it while the process exits.
  static auto* registry = new writes_in_flight;
  return *registry;
}

[[noreturn]] void wait_for_exit() {
  for (;;) ::pause();
}

/// Creates `temp` for writing, registered first, under the lock abandon_writes takes: a temporary
/// either exists in the list, where abandon_writes finds it, or is never made.
void create_registered(std::ofstream& out, const std::filesystem::path& temp) {
  auto& r = in_flight();
  std::unique_lock guard(r.lock);
  if (r.abandoned) {
    guard.unlock();
    wait_for_exit();  // the process is ending; a new file would outlive it
  }
  r.temporaries.push_back(temp);
  out.open(temp, std::ios::binary | std::ios::trunc);
}

void unregister(const std::filesystem::path& temp) noexcept {
  auto& r = in_flight();
  const std::lock_guard guard(r.lock);
  for (auto it = r.temporaries.begin(); it != r.temporaries.end(); ++it) {
    if (*it == temp) {
      r.temporaries.erase(it);
      return;
    }
  }
}

}  // namespace

void abandon_writes() noexcept {
  auto& r = in_flight();
  const std::lock_guard guard(r.lock);
  r.abandoned = true;
  for (const auto& temp : r.temporaries) ::unlink(temp.c_str());
  r.temporaries.clear();
}

void write_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  static std::atomic<unsigned> counter{0};
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder))
    ZF_THROW(error, "cannot write ", path.string(), ": folder ", folder.string(), " does not exist");
  // ".NAME.tmpPID-N" beside the file, NAME cut short where the whole would pass the 255 bytes a
  // file name may have (a legal NAME near that length must still be writable).
  const std::string suffix = ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const std::string name = path.filename().string();
  constexpr std::size_t longest_name = 255;
  std::string temp_name = ".";
  temp_name.append(name, 0, longest_name - 1 - suffix.size());
  temp_name += suffix;
  const auto temp = folder / temp_name;
  try {
    {
      std::ofstream out;
      create_registered(out, temp);
      if (!out) ZF_THROW(error, "cannot write ", path.string(), ": ", std::strerror(errno));
      write(out);
      out.flush();
      if (!out) ZF_THROW(error, "writing ", path.string(), " failed (disk full?)");
    }
    std::error_code ec;
    std::filesystem::rename(temp, path, ec);
    if (ec) ZF_THROW(error, "cannot write ", path.string(), ": ", ec.message());
    unregister(temp);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    unregister(temp);
    throw;
  }
}

}  // namespace zeroflow::io
