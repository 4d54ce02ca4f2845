#pragma once
/// @file arena_resource.hpp
/// One upstream allocation carved into many: for a burst of scratch and result buffers whose
/// sizes are known roughly in advance (a segmentation on a GPU makes ~25 of them), where each
/// upstream call would cost more host time than the GPU work it feeds.
#include <cstddef>
#include <mutex>

#include "zeroflow/memory/resource.hpp"

namespace zeroflow::memory {

/// @brief A monotonic arena over one chunk of `upstream`, stream-ordered on one stream.
///
/// The chunk is allocated from `upstream` on `home` when the arena is made. An allocation on
/// `home` of at most `largest_carved` bytes that fits in the room left is carved from it
/// (256-byte aligned, no upstream call); any other allocation, and every allocation on another
/// stream, goes to `upstream` and back to it when released, as without the arena. Releasing a
/// carved allocation frees nothing: the chunk goes back to `upstream`, on `home`, once the arena
/// and every allocation carved from it are gone (each buffer holds its resource), so an
/// allocation that outlives the burst keeps the whole chunk.
///
/// Carved memory follows the stream-ordered rules of `home`: work on another stream that uses it
/// must be joined back into `home` (an event) before its buffer is released, as for any
/// stream-ordered allocation, and `home` must outlive the arena's allocations.
///
/// Thread-safe. Usually made current for one thread and one scope with scoped_resource.
class arena_resource final : public resource {
 public:
  /// @throws zeroflow::invalid_argument when `upstream` is null
  /// @throws zeroflow::out_of_memory (or what upstream throws) when the chunk cannot be had
  arena_resource(resource_ptr upstream, std::size_t chunk_bytes, std::size_t largest_carved, stream_view home);
  ~arena_resource() override;
  arena_resource(const arena_resource&) = delete;
  arena_resource& operator=(const arena_resource&) = delete;

  [[nodiscard]] device where() const override { return upstream_->where(); }
  [[nodiscard]] std::string name() const override { return "arena(" + upstream_->name() + ")"; }
  /// The chunk's size (the requested one rounded up to 256 bytes).
  [[nodiscard]] std::size_t chunk_bytes() const { return chunk_bytes_; }
  /// Bytes of the chunk carved so far, alignment included.
  [[nodiscard]] std::size_t carved_bytes() const;
  /// Allocations passed on to upstream so far (too large, no room, or another stream).
  [[nodiscard]] std::size_t passed_on() const;

 private:
  void* do_allocate(std::size_t bytes, stream_view stream) override;
  void do_deallocate(void* p, std::size_t bytes, stream_view stream) override;
  [[nodiscard]] bool in_chunk(const void* p) const;

  resource_ptr upstream_;
  std::byte* chunk_ = nullptr;
  std::size_t chunk_bytes_;
  std::size_t largest_carved_;
  stream_view home_;
  mutable std::mutex mutex_;
  std::size_t used_ = 0;
  std::size_t passed_on_ = 0;
};

}  // namespace zeroflow::memory
