#include "zeroflow/io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <thread>
#include <utility>

#include "parallel_tasks.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::io {

namespace {

constexpr std::size_t page = 4096;
constexpr std::size_t piece_bytes = std::size_t{16} << 20;  // one thread's share of a large file

// Closes the descriptor on every path out of the constructor.
struct fd_guard {
  int fd;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

int advice_for(access_pattern pattern) {
  switch (pattern) {
    case access_pattern::sequential:
      return POSIX_FADV_SEQUENTIAL;
    case access_pattern::random:
      return POSIX_FADV_RANDOM;
    case access_pattern::normal:
      break;
  }
  return POSIX_FADV_NORMAL;
}

void read_piece(int fd, std::size_t offset, std::size_t bytes, char* dst, std::size_t size,
                const std::filesystem::path& path) {
  while (bytes > 0) {
    const ::ssize_t got = ::pread(fd, dst, bytes, static_cast<::off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) ZF_THROW(error, "cannot read \"", path.string(), "\" at byte ", offset, ": ", std::strerror(errno));
    if (got == 0)
      ZF_THROW(error, "\"", path.string(), "\" ended at byte ", offset, " while being read, but had ", size,
               " bytes when it was opened: another program truncated or rewrote it; read it again once it is "
               "complete");
    dst += got;
    offset += static_cast<std::size_t>(got);
    bytes -= static_cast<std::size_t>(got);
  }
}

}  // namespace

namespace detail {

void read_file_bytes(int fd, std::size_t size, char* dst, const std::filesystem::path& path) {
  const std::size_t pieces = (size + piece_bytes - 1) / piece_bytes;
  if (pieces <= 1) {
    read_piece(fd, 0, size, dst, size, path);
    return;
  }
  // From the page cache a single thread copies well below memory bandwidth; a few share the work.
  const unsigned threads = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
  run_tasks(pieces, threads, [&](std::size_t i) {
    const std::size_t offset = i * piece_bytes;
    read_piece(fd, offset, std::min(piece_bytes, size - offset), dst + offset, size, path);
  });
}

}  // namespace detail

void mapped_file::page_delete::operator()(char* p) const noexcept { ::operator delete[](p, std::align_val_t{page}); }

mapped_file::mapped_file(const std::filesystem::path& path, access_pattern pattern) : path_(path) {
  fd_guard file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) ZF_THROW(error, "cannot open \"", path.string(), "\" for reading: ", std::strerror(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) ZF_THROW(error, "cannot stat \"", path.string(), "\": ", std::strerror(errno));
  if (S_ISDIR(info.st_mode)) ZF_THROW(error, "cannot read \"", path.string(), "\": it is a directory");
  if (!S_ISREG(info.st_mode)) ZF_THROW(error, "cannot read \"", path.string(), "\": not a regular file");
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size == 0) return;
  // Whole pages, the tail zeroed: what a mapping gave, so that no parser sees a difference.
  const std::size_t capacity = (size + page - 1) / page * page;
  char* p = static_cast<char*>(::operator new[](capacity, std::align_val_t{page}, std::nothrow));
  if (p == nullptr)
    ZF_THROW(out_of_memory, "cannot read \"", path.string(), "\": its ", size, " bytes do not fit in memory");
  std::unique_ptr<char[], page_delete> bytes(p);
  std::memset(p + size, 0, capacity - size);
  // Advice only: a kernel that ignores it still reads the right bytes.
  (void)::posix_fadvise(file.fd, 0, 0, advice_for(pattern));
  detail::read_file_bytes(file.fd, size, p, path);
  bytes_ = std::move(bytes);
  size_ = size;
}

mapped_file::mapped_file(mapped_file&& other) noexcept
    : path_(std::move(other.path_)), bytes_(std::move(other.bytes_)), size_(std::exchange(other.size_, 0)) {}

mapped_file& mapped_file::operator=(mapped_file&& other) noexcept {
  if (this != &other) {
    path_ = std::move(other.path_);
    bytes_ = std::move(other.bytes_);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

mapped_file::~mapped_file() = default;

}  // namespace zeroflow::io
