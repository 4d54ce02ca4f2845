#include "zeroflow/io/file_loading.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "kvikio_file.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"

#if ZEROFLOW_HAS_CUDA
#include "csv_cuda_source.hpp"
#include "csv_cuda_staging.hpp"
#include "file_source_mmap.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow::io {

std::string_view to_string(io_method method) noexcept {
  switch (method) {
    case io_method::kvikio:
      return "kvikio";
    case io_method::posix:
      return "posix";
    case io_method::mmap:
      return "mmap";
    case io_method::automatic:
      break;
  }
  return "auto";
}

io_method parse_io_method(std::string_view text) {
  for (io_method m : {io_method::automatic, io_method::kvikio, io_method::posix, io_method::mmap})
    if (text == to_string(m)) return m;
  ZF_THROW(invalid_argument, "`io`=", text, ": not a loading method; choose auto, kvikio, posix or mmap");
}

const gds_status& query_gds() {
  static const gds_status status = [] {
    gds_status s;
    detail::probe_kvikio(s);
    return s;
  }();
  return status;
}

io_method resolve_io_method(io_method requested) {
  switch (requested) {
    case io_method::automatic:
      return query_gds().gds_active ? io_method::kvikio : io_method::posix;
    case io_method::kvikio:
      if (!detail::kvikio_built_in())
        ZF_THROW(invalid_argument,
                 "`io`=kvikio: this zeroflow was built without KvikIO; use `io`=auto, posix or "
                 "mmap (or rebuild with KvikIO: scripts/setup, then a CUDA build)");
      return requested;
    case io_method::posix:
    case io_method::mmap:
      return requested;
  }
  return io_method::posix;
}

void read_file_to_device(const std::filesystem::path& path, std::uint64_t offset, std::size_t bytes, void* device_dst,
                         device where, stream_view stream, io_method method, unsigned threads,
                         file_load_report* report) {
  ZF_EXPECTS(where.type == device_type::cuda, "read_file_to_device reads into a CUDA device, not ", where.name());
  const io_method used = resolve_io_method(method);
  require_cuda("reading a file into GPU memory");
#if ZEROFLOW_HAS_CUDA
  const auto started = std::chrono::steady_clock::now();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const cudaStream_t s = stream.value();
  bool gds = false;
  switch (used) {
    case io_method::kvikio:
      // KvikIO copies on streams of its own: whatever the caller queued must be done first.
      ZF_CUDA_TRY(cudaStreamSynchronize(s));
      gds = detail::kvikio_read(path, offset, bytes, device_dst, threads);
      break;
    case io_method::mmap:
      detail::mmap_read_to_device(path, offset, bytes, device_dst, s);
      break;
    case io_method::posix:
    case io_method::automatic: {
      const detail::file_source source(path);
      if (offset > source.size() || bytes > source.size() - offset)
        ZF_THROW(error, "reading ", path.string(), ": it has ", source.size(), " bytes, fewer than the ",
                 offset + bytes, " needed (was it truncated?)");
      const unsigned n = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
      detail::staged_copy copy(source, static_cast<std::size_t>(offset), bytes, device_dst, 0, n, s, {},
                               io_method::posix);
      copy.finish();
      break;
    }
  }
  if (report != nullptr) {
    report->method = used;
    report->gds = gds;
    report->bytes = bytes;
    report->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
#else
  (void)path, (void)offset, (void)bytes, (void)device_dst, (void)stream, (void)threads, (void)report, (void)used;
#endif
}

}  // namespace zeroflow::io
