#include "csv_cuda_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "zeroflow/core/error.hpp"

namespace zeroflow::io::detail {

std::string byte_source::read_string(std::size_t offset, std::size_t bytes) const {
  if (offset >= size()) return {};
  std::string out(std::min(bytes, size() - offset), '\0');
  read(offset, out.size(), out.data());
  return out;
}

std::string byte_source::read_line(std::size_t offset) const {
  std::string line;
  std::size_t piece = 4096;
  while (offset < size()) {
    const std::string part = read_string(offset, piece);
    const std::size_t nl = part.find('\n');
    if (nl != std::string::npos) return line.append(part, 0, nl + 1);
    line += part;
    offset += part.size();
    piece = std::min<std::size_t>(piece * 2, 1 << 20);
  }
  return line;
}

void memory_source::read(std::size_t offset, std::size_t bytes, char* dst) const {
  ZF_EXPECTS(offset <= text_.size() && bytes <= text_.size() - offset, "read past the end of the text");
  std::memcpy(dst, text_.data() + offset, bytes);
}

file_source::file_source(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) ZF_THROW(error, "cannot open ", path.string(), ": ", std::strerror(errno));
  struct stat st {};
  const bool stat_failed = ::fstat(fd_, &st) != 0;
  if (stat_failed || !S_ISREG(st.st_mode)) {
    const int code = errno;
    ::close(fd_);
    fd_ = -1;
    ZF_THROW(error, "cannot read ", path.string(), ": ", stat_failed ? std::strerror(code) : "not a regular file");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

file_source::~file_source() {
  if (fd_ >= 0) ::close(fd_);
}

void file_source::read(std::size_t offset, std::size_t bytes, char* dst) const {
  while (bytes > 0) {
    const ::ssize_t got = ::pread(fd_, dst, bytes, static_cast<::off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      ZF_THROW(error, "reading ", path_.string(), " at byte ", offset, ": ",
               got == 0 ? "the file ended early (was it truncated while being read?)" : std::strerror(errno));
    dst += got;
    offset += static_cast<std::size_t>(got);
    bytes -= static_cast<std::size_t>(got);
  }
}

}  // namespace zeroflow::io::detail
