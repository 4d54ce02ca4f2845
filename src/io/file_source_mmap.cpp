#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "file_source_mmap.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::io::detail {

namespace {

struct fd_closer {
  int fd;
  ~fd_closer() {
    if (fd >= 0) ::close(fd);
  }
};

struct unmapper {
  void* at;
  std::size_t bytes;
  ~unmapper() {
    if (at != MAP_FAILED) ::munmap(at, bytes);
  }
};

}  // namespace

void mmap_read_to_device(const std::filesystem::path& path, std::uint64_t offset, std::size_t bytes, void* device_dst,
                         cudaStream_t stream) {
  const fd_closer file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) ZF_THROW(error, "cannot open ", path.string(), ": ", std::strerror(errno));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode))
    ZF_THROW(error, "cannot read ", path.string(), ": not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (offset > size || bytes > size - offset)
    ZF_THROW(error, "reading ", path.string(), ": it has ", size, " bytes, fewer than the ", offset + bytes,
             " needed (was it truncated?)");
  if (bytes == 0) return;
  // A mapping starts on a page boundary.
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t start = offset / page * page;
  const std::size_t lead = static_cast<std::size_t>(offset - start);
  const unmapper map{::mmap(nullptr, lead + bytes, PROT_READ, MAP_PRIVATE, file.fd, static_cast<::off_t>(start)),
                     lead + bytes};
  if (map.at == MAP_FAILED) ZF_THROW(error, "cannot map ", path.string(), " into memory: ", std::strerror(errno));
  (void)::madvise(map.at, map.bytes, MADV_SEQUENTIAL);
  ZF_CUDA_TRY(
      cudaMemcpyAsync(device_dst, static_cast<const char*>(map.at) + lead, bytes, cudaMemcpyHostToDevice, stream));
  ZF_CUDA_TRY(cudaStreamSynchronize(stream));  // the mapping goes when this frame ends
}

}  // namespace zeroflow::io::detail

#endif  // ZEROFLOW_HAS_CUDA
