#include "zeroflow/io/mapped_file.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zeroflow/core/error.hpp"

namespace zeroflow::io {

namespace {
// Closes the descriptor on every path out of the constructor; the mapping outlives it.
struct fd_guard {
  int fd;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

int advice_for(access_pattern pattern) {
  switch (pattern) {
    case access_pattern::sequential: return MADV_SEQUENTIAL;
    case access_pattern::random: return MADV_RANDOM;
    case access_pattern::normal: break;
  }
  return MADV_NORMAL;
}
}  // namespace

mapped_file::mapped_file(const std::filesystem::path& path, access_pattern pattern) : path_(path) {
  fd_guard file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) ZF_THROW(error, "cannot open \"", path.string(), "\" for reading: ", std::strerror(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) ZF_THROW(error, "cannot stat \"", path.string(), "\": ", std::strerror(errno));
  if (S_ISDIR(info.st_mode)) ZF_THROW(error, "cannot map \"", path.string(), "\": it is a directory");
  if (!S_ISREG(info.st_mode)) ZF_THROW(error, "cannot map \"", path.string(), "\": not a regular file");
  size_ = static_cast<std::size_t>(info.st_size);
  if (size_ == 0) return;  // mmap refuses length 0; an empty file is simply no bytes
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (p == MAP_FAILED) {
    const int e = errno;
    size_ = 0;
    ZF_THROW(error, "cannot map \"", path.string(), "\": ", std::strerror(e));
  }
  data_ = static_cast<const char*>(p);
  // Advice only: a kernel that ignores it still gives a correct mapping.
  (void)::madvise(p, size_, advice_for(pattern));
}

mapped_file::mapped_file(mapped_file&& other) noexcept
    : path_(std::move(other.path_)), data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

mapped_file& mapped_file::operator=(mapped_file&& other) noexcept {
  if (this != &other) {
    unmap();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

mapped_file::~mapped_file() { unmap(); }

void mapped_file::unmap() noexcept {
  if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace zeroflow::io
