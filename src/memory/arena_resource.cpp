#include "zeroflow/memory/arena_resource.hpp"

#include <exception>
#include <iostream>

#include "zeroflow/core/error.hpp"

namespace zeroflow::memory {

namespace {
constexpr std::size_t alignment = 256;
constexpr std::size_t aligned(std::size_t bytes) { return (bytes + alignment - 1) / alignment * alignment; }
}  // namespace

arena_resource::arena_resource(resource_ptr upstream, std::size_t chunk_bytes, std::size_t largest_carved,
                               stream_view home)
    : upstream_{std::move(upstream)}, chunk_bytes_{aligned(chunk_bytes)}, largest_carved_{largest_carved}, home_{home} {
  ZF_EXPECTS(upstream_ != nullptr, "arena_resource needs an upstream resource");
  chunk_ = static_cast<std::byte*>(upstream_->allocate(chunk_bytes_, home_));
}

arena_resource::~arena_resource() {
  // Every carved allocation is gone (each held the arena), so their releases on home are queued.
  try {
    upstream_->deallocate(chunk_, chunk_bytes_, home_);
  } catch (const std::exception& e) {  // a destructor must not throw: say it, and go on
    std::cerr << "zeroflow: arena_resource: " << e.what() << '\n';
  }
}

std::size_t arena_resource::carved_bytes() const {
  std::lock_guard lock(mutex_);
  return used_;
}

std::size_t arena_resource::passed_on() const {
  std::lock_guard lock(mutex_);
  return passed_on_;
}

bool arena_resource::in_chunk(const void* p) const {
  const auto* b = static_cast<const std::byte*>(p);
  return chunk_ != nullptr && b >= chunk_ && b < chunk_ + chunk_bytes_;
}

void* arena_resource::do_allocate(std::size_t bytes, stream_view stream) {
  {
    std::lock_guard lock(mutex_);
    const std::size_t size = aligned(bytes);
    if (stream == home_ && bytes <= largest_carved_ && size <= chunk_bytes_ - used_) {
      void* p = chunk_ + used_;
      used_ += size;
      return p;
    }
    ++passed_on_;
  }
  return upstream_->allocate(bytes, stream);
}

void arena_resource::do_deallocate(void* p, std::size_t bytes, stream_view stream) {
  if (!in_chunk(p)) upstream_->deallocate(p, bytes, stream);
  // Carved: nothing to do until the chunk goes back.
}

}  // namespace zeroflow::memory
