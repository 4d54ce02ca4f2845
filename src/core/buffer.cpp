#include "zeroflow/core/buffer.hpp"

#include <cstdio>

namespace zeroflow {

buffer::buffer(void* data, std::size_t bytes, device where, release_fn release)
    : data_{data}, bytes_{bytes}, device_{where}, release_{std::move(release)} {}

std::shared_ptr<buffer> buffer::adopt(void* data, std::size_t bytes, device where, release_fn release) {
  return std::shared_ptr<buffer>(new buffer(data, bytes, where, std::move(release)));
}

buffer::~buffer() {
  if (!release_) return;
  // A destructor must not throw; a failing release is a bug we report rather than hide.
  try {
    release_(data_, bytes_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zeroflow: releasing a %zu-byte buffer failed: %s\n", bytes_, e.what());
  }
}

}  // namespace zeroflow
