#include "input_checks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/labels.hpp"
#include "zeroflow/io/wfdb.hpp"

namespace zeroflow::cli {

namespace {

std::string gigabytes(double bytes) {
  char text[32];
  if (bytes < 1e9)
    std::snprintf(text, sizeof text, "%.0f MB", std::max(1.0, bytes / 1e6));
  else
    std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
  return text;
}

std::string lower_extension(const std::filesystem::path& path) {
  std::string e = path.extension().string();
  for (auto& c : e)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return e;
}

}  // namespace

void require_readable_file(const std::filesystem::path& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    ZF_THROW(error, "cannot read the ", what, " ", path.string(), ": ", std::strerror(errno));
  if (S_ISDIR(st.st_mode)) ZF_THROW(error, path.string(), " is a folder; give the ", what, " itself");
  if (!S_ISREG(st.st_mode))
    ZF_THROW(error, path.string(), " is not a regular file (a FIFO, socket or device); zeroflow reads the ", what,
             " from a file: save it to one first");
  // Non-blocking, so that a FIFO put in its place since the check cannot make this wait.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) ZF_THROW(error, "cannot read the ", what, " ", path.string(), ": ", std::strerror(errno));
  ::close(fd);
}

void require_replaceable_file(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(path, ec);
  if (!std::filesystem::exists(status) || std::filesystem::is_regular_file(status)) return;
  ZF_THROW(error, "cannot write ", what, " ", path.string(), ": ",
           std::filesystem::is_directory(status) ? "it is a folder" : "it exists and is not a regular file",
           "; give the name of a file to write");
}

void require_readable_recording(const std::filesystem::path& path, io::record_files files) {
  require_readable_file(path, "recording");
  if (lower_extension(path) != ".hea") return;
  const auto header = io::read_wfdb_header(path);
  // The name is checked before the file is looked at: an error must not tell whether a file
  // outside the record exists.
  for (std::size_t i = 0; i < header.signals.size(); ++i)
    require_readable_file(io::wfdb_signal_path(path, header, i, files), "signal file");
}

std::optional<std::filesystem::path> readable_labels(const std::filesystem::path& path,
                                                     void (*warn)(const std::string&)) {
  try {
    require_readable_file(path, "labels");
    (void)io::read_labels(path);
    return path;
  } catch (const std::exception& e) {
    warn("warning: labels " + path.string() + ": " + e.what() + "; the run goes on without evaluation");
    return std::nullopt;
  }
}

void require_room_for_recording(const std::filesystem::path& file, double samples, double bytes_per_sample,
                                double extra_bytes) {
  const double bytes = samples * bytes_per_sample + extra_bytes;
  std::error_code ec;
  auto folder = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  // The nearest folder that exists: missing ones are made on the same disk.
  while (!std::filesystem::exists(folder, ec) && folder.has_parent_path() && folder != folder.parent_path())
    folder = folder.parent_path();
  const auto space = std::filesystem::space(folder, ec);
  if (!ec && bytes > static_cast<double>(space.available))
    ZF_THROW(error, "writing ", file.string(), " needs about ", gigabytes(bytes), ", but its disk has ",
             gigabytes(static_cast<double>(space.available)), " free; ask for fewer --hours or a lower --sample-rate");
  // The generator holds every sample (float32) and its beats in memory before writing.
  const double memory = samples * 4.0;
  const double installed =
      static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  if (installed > 0 && memory > installed)
    ZF_THROW(error, "generating ", file.string(), " needs about ", gigabytes(memory),
             " of memory, but this machine has ", gigabytes(installed),
             "; ask for fewer --hours or a lower --sample-rate");
}

}  // namespace zeroflow::cli
