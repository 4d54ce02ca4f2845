#pragma once
/// @file buffer.hpp
/// A block of memory and the one action that gives it back; shared by every array view
/// and every export of it, so it lives as long as the longest of them.
#include <cstddef>
#include <functional>
#include <memory>

#include "zeroflow/core/device.hpp"

namespace zeroflow {

class buffer {
 public:
  /// Called exactly once, when the last owner lets go. It must not throw.
  using release_fn = std::function<void(void* data, std::size_t bytes)>;

  /// Takes ownership of `data` (`bytes` long, on `where`); `release` gives it back.
  /// A null `release` means the memory is borrowed and outlives the buffer.
  static std::shared_ptr<buffer> adopt(void* data, std::size_t bytes, device where, release_fn release);

  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  ~buffer();

  [[nodiscard]] void* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return bytes_; }
  [[nodiscard]] device where() const { return device_; }

 private:
  buffer(void* data, std::size_t bytes, device where, release_fn release);
  void* data_;
  std::size_t bytes_;
  device device_;
  release_fn release_;
};

}  // namespace zeroflow
