#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "csv_cuda_staging.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/io/detail/csv_cuda.hpp"
#include "zeroflow/io/file_loading.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::io::detail {

namespace {

// Pinned chunks kept between reads: cudaMallocHost of 48 MiB costs more than reading 500 MB
// takes, so the first read pays it and later ones reuse the chunks. Never destroyed (freeing
// pinned memory while the CUDA runtime shuts down fails); the process exit gives it back.
class staging_cache {
 public:
  static staging_cache& instance() {
    static auto* cache = new staging_cache;
    return *cache;
  }

  std::vector<std::shared_ptr<buffer>> take(std::size_t count, std::size_t bytes) {
    std::vector<std::shared_ptr<buffer>> out;
    {
      std::lock_guard lock(mutex_);
      while (bytes == bytes_ && !free_.empty() && out.size() < count) {
        out.push_back(std::move(free_.back()));
        free_.pop_back();
      }
    }
    // Allocated for the legacy stream: the chunks outlive the caller's stream, and every copy
    // from them is waited for before they come back here.
    const auto pinned = memory::current_resource({device_type::cuda_host, 0});
    while (out.size() < count) out.push_back(allocate_buffer(bytes, stream_view::legacy(), pinned));
    return out;
  }

  void give_back(std::vector<std::shared_ptr<buffer>> chunks, std::size_t bytes) {
    std::vector<std::shared_ptr<buffer>> dropped;  // freed outside the lock
    std::lock_guard lock(mutex_);
    if (bytes != bytes_) {
      dropped.swap(free_);
      bytes_ = bytes;
    }
    for (auto& c : chunks) {
      if (free_.size() < kept) free_.push_back(std::move(c));
    }
  }

  std::size_t cached(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    return bytes == bytes_ ? free_.size() : 0;
  }

  std::vector<std::shared_ptr<buffer>> take_all() {
    std::lock_guard lock(mutex_);
    return std::exchange(free_, {});
  }

  static constexpr std::size_t kept = 3;

 private:
  std::mutex mutex_;
  std::size_t bytes_{0};
  std::vector<std::shared_ptr<buffer>> free_;
};

}  // namespace

staged_copy::staged_copy(const byte_source& source, std::size_t offset, std::size_t bytes, void* device_dst,
                         std::size_t chunk_bytes, unsigned threads, cudaStream_t stream,
                         const std::function<void(std::size_t)>& tick, io_method requested) {
  if (bytes == 0) return;
  // A file read with the default chunking takes the read's loading method: KvikIO or a memory map
  // move it in one piece. A requested chunk size (tests of chunk edges) always stages.
  if (const auto* path = source.file_path(); path != nullptr && chunk_bytes == 0) {
    if (const io_method method = resolve_io_method(requested); method != io_method::posix) {
      int id = 0;
      ZF_CUDA_TRY(cudaGetDevice(&id));  // the caller's device guard made it the target's
      read_file_to_device(*path, offset, bytes, device_dst, cuda_device(id), stream_view{stream}, method, threads);
      chunks_ = 1;
      chunk_bytes_ = bytes;
      threads_ = threads;
      if (tick) tick(bytes);
      return;
    }
  }
  // The default size always, so that the cached chunks fit every read; a requested size as is.
  chunk_bytes_ = chunk_bytes != 0 ? std::min(chunk_bytes, bytes) : default_staging_chunk;
  chunks_ = (bytes + chunk_bytes_ - 1) / chunk_bytes_;
  const std::size_t slots = std::min<std::size_t>(3, chunks_);
  // Slices of at least 1 MiB: smaller ones cost more in coordination than they gain.
  constexpr std::size_t min_slice = std::size_t{1} << 20;
  const std::size_t useful = std::max<std::size_t>(1, std::min(chunk_bytes_, bytes) / min_slice);
  threads_ = static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::min<std::size_t>(useful, 64)));

  slots_ = staging_cache::instance().take(slots, chunk_bytes_);
  events_.assign(slots, nullptr);
  recorded_.assign(slots, false);
  try {
    for (auto& e : events_) ZF_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  } catch (...) {
    release();
    throw;
  }

  std::atomic<bool> stop{false};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto fail = [&](std::exception_ptr e) noexcept {
    std::lock_guard lock(failure_mutex);
    if (!failure) failure = std::move(e);
    stop = true;
  };
  auto chunk_range = [&](std::size_t i) {
    const std::size_t begin = i * chunk_bytes_;
    return std::pair{begin, std::min(chunk_bytes_, bytes - begin)};
  };

  // Every CUDA call is made on the calling thread: the stream may be cudaStreamPerThread, which
  // names a different stream on every thread. Per chunk: all threads fill their slices; the
  // calling thread sends the chunk and waits until the slot of the next chunk is free (its
  // previous copy has finished); then everyone goes on to the next chunk.
  std::barrier sync(static_cast<std::ptrdiff_t>(threads_));
  auto send = [&](std::size_t i) {
    const auto [begin, size] = chunk_range(i);
    const std::size_t slot = i % slots;
    ZF_CUDA_TRY(cudaMemcpyAsync(static_cast<char*>(device_dst) + begin, slots_[slot]->data(), size,
                                cudaMemcpyHostToDevice, stream));
    ZF_CUDA_TRY(cudaEventRecord(events_[slot], stream));
    recorded_[slot] = true;
    const std::size_t next = i + 1;
    if (next < chunks_ && next >= slots) ZF_CUDA_TRY(cudaEventSynchronize(events_[next % slots]));
  };

  auto last_tick = std::chrono::steady_clock::now();
  auto work = [&](unsigned t) {
    for (std::size_t i = 0; i < chunks_; ++i) {
      if (!stop) {
        try {
          const auto [begin, size] = chunk_range(i);
          const std::size_t slice = (size + threads_ - 1) / threads_;
          const std::size_t from = std::min(size, t * slice);
          const std::size_t to = std::min(size, from + slice);
          if (to > from)
            source.read(offset + begin + from, to - from, static_cast<char*>(slots_[i % slots]->data()) + from);
        } catch (...) {
          fail(std::current_exception());
        }
      }
      sync.arrive_and_wait();  // chunk i is filled
      if (t == 0 && !stop) {
        try {
          send(i);
          const auto now = std::chrono::steady_clock::now();
          if (tick && now - last_tick >= std::chrono::milliseconds(50) && i + 1 < chunks_) {
            last_tick = now;  // callbacks only on the calling thread, about every 50 ms
            tick(std::min(bytes, (i + 1) * chunk_bytes_));
          }
        } catch (...) {
          fail(std::current_exception());
        }
      }
      if (threads_ > 1) sync.arrive_and_wait();  // the next chunk's slot is free
    }
  };
  {
    std::vector<std::jthread> helpers;  // joined on every way out
    for (unsigned t = 1; t < threads_; ++t) {
      try {
        helpers.emplace_back([&, t] { work(t); });  // keeps going after a failure: every barrier phase needs it
      } catch (...) {
        // No thread for slices t and up: stop, and take their places out of the barrier.
        fail(std::current_exception());
        for (unsigned missing = t; missing < threads_; ++missing) sync.arrive_and_drop();
        break;
      }
    }
    work(0);
  }
  if (failure) {
    release();
    std::rethrow_exception(failure);
  }
}

staged_copy::~staged_copy() { release(); }

void staged_copy::finish() {
  for (std::size_t i = 0; i < events_.size(); ++i)
    if (recorded_[i]) ZF_CUDA_TRY(cudaEventSynchronize(events_[i]));
  release();
}

void staged_copy::release() noexcept {
  for (std::size_t i = 0; i < events_.size(); ++i) {
    if (events_[i] == nullptr) continue;
    if (recorded_[i]) ZF_CUDA_REPORT(cudaEventSynchronize(events_[i]));  // the chunk may still be read
    ZF_CUDA_REPORT(cudaEventDestroy(events_[i]));
  }
  events_.clear();
  recorded_.clear();
  if (!slots_.empty()) {
    try {
      staging_cache::instance().give_back(std::move(slots_), chunk_bytes_);
    } catch (...) {  // only allocation failures of the cache's vector; the chunks are then freed
    }
    slots_.clear();
  }
}

void reserve_staging_chunks() {
  // The first read asks which loading method --io auto means here; probing KvikIO and cuFile
  // (loading libcufile) costs more than a warm read, so it is done now, with the other set-up.
  (void)query_gds();
  auto& cache = staging_cache::instance();
  cache.give_back(cache.take(staging_cache::kept, default_staging_chunk), default_staging_chunk);
}

std::size_t staging_chunks_cached() { return staging_cache::instance().cached(default_staging_chunk); }

// Cached chunks have no copies in flight (staged_copy waits for its copies before giving them back).
void free_cached_staging_chunks() { staging_cache::instance().take_all(); }

}  // namespace zeroflow::io::detail

#endif  // ZEROFLOW_HAS_CUDA
