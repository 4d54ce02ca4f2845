#pragma once
/// @file mapped_file.hpp
/// A read-only memory map of a whole file: the bytes are read by the kernel on first touch,
/// straight from the page cache, with no copy into a user buffer.
#include <cstddef>
#include <filesystem>
#include <string_view>

namespace zeroflow::io {

/// How the mapping will be read; passed to madvise so the kernel reads ahead accordingly.
enum class access_pattern { sequential, random, normal };

/// Owns a read-only, private mapping of a file (RAII; movable, not copyable). An empty file is
/// fine: data() is nullptr and size() is 0.
class mapped_file {
 public:
  /// Maps `path` for reading.
  /// @throws zeroflow::error naming the path and the reason (strerror) when the file cannot be
  ///         opened, is not a regular file, or cannot be mapped.
  explicit mapped_file(const std::filesystem::path& path, access_pattern pattern = access_pattern::sequential);
  mapped_file(mapped_file&& other) noexcept;
  mapped_file& operator=(mapped_file&& other) noexcept;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();

  [[nodiscard]] const char* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::string_view view() const { return {data_, size_}; }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  void unmap() noexcept;

  std::filesystem::path path_;
  const char* data_{nullptr};
  std::size_t size_{0};
};

}  // namespace zeroflow::io
