#pragma once
// Private to src/io (CUDA builds): copying a stretch of a byte_source to device memory through
// pinned staging chunks. Several host threads fill a chunk together (pread from the page cache,
// or memcpy), then one cudaMemcpyAsync sends it while the threads fill the next one; three
// chunks rotate, so a chunk is refilled only after its previous copy has finished (an event).
// Only the calling thread makes CUDA calls (the stream may be cudaStreamPerThread).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "csv_cuda_source.hpp"
#include "zeroflow/core/buffer.hpp"
#include "zeroflow/io/file_loading.hpp"

namespace zeroflow::io::detail {

/// Default staging chunk: large enough that the fixed cost of each copy is small against its
/// transfer time, small enough that the pipeline fills and drains quickly.
inline constexpr std::size_t default_staging_chunk = std::size_t{16} << 20;

/// Pins the staging chunks a read of the default chunk size uses and keeps them for it (see
/// prepare_csv_reads); chunks already kept count.
void reserve_staging_chunks();

class staged_copy {
 public:
  /// Queues the copy of source[offset, offset + bytes) to `device_dst` on `stream` and returns
  /// once every chunk has been filled and its copy queued; the copies may still be running.
  /// `tick(bytes staged so far)` is called on the calling thread between chunks; an exception
  /// from it (or from reading the source) stops the copy and is rethrown here, after the copies
  /// already queued have finished.
  /// A file read with the default chunking (chunk_bytes 0) goes by `method` (file_loading.hpp);
  /// `posix` is this class's own staging.
  staged_copy(const byte_source& source, std::size_t offset, std::size_t bytes, void* device_dst,
              std::size_t chunk_bytes, unsigned threads, cudaStream_t stream,
              const std::function<void(std::size_t)>& tick, io_method method);
  staged_copy(const staged_copy&) = delete;
  staged_copy& operator=(const staged_copy&) = delete;
  /// Waits for the queued copies (errors are printed, not thrown) and recycles the staging chunks.
  ~staged_copy();

  /// Waits for the queued copies and recycles the staging chunks (idempotent).
  void finish();

  [[nodiscard]] std::size_t chunks() const { return chunks_; }
  [[nodiscard]] std::size_t chunk_bytes() const { return chunk_bytes_; }
  [[nodiscard]] unsigned threads() const { return threads_; }

 private:
  void release() noexcept;

  std::size_t chunks_{0};
  std::size_t chunk_bytes_{0};
  unsigned threads_{1};
  std::vector<std::shared_ptr<buffer>> slots_;
  std::vector<cudaEvent_t> events_;
  std::vector<bool> recorded_;
};

}  // namespace zeroflow::io::detail
