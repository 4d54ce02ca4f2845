#pragma once
// Private to src/io: where read_csv's CUDA path gets its bytes. A file is read with pread (from
// the page cache straight into the pinned staging buffers, without the page faults and TLB
// shootdowns of a memory map); text already in memory is copied.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace zeroflow::io::detail {

class byte_source {
 public:
  virtual ~byte_source() = default;
  [[nodiscard]] virtual std::size_t size() const = 0;
  /// Copies bytes [offset, offset + bytes) (inside size()) to dst; callable from several threads.
  /// @throws zeroflow::error when the bytes cannot be read
  virtual void read(std::size_t offset, std::size_t bytes, char* dst) const = 0;

  /// Bytes [offset, offset + bytes) as a string (clipped to size()).
  [[nodiscard]] std::string read_string(std::size_t offset, std::size_t bytes) const;
  /// The line starting at `offset`, with its '\n' when it has one.
  [[nodiscard]] std::string read_line(std::size_t offset) const;
  /// The file the bytes come from, so that a copy to the device can take another way there
  /// (io::read_file_to_device); null for bytes in memory.
  [[nodiscard]] virtual const std::filesystem::path* file_path() const { return nullptr; }
};

/// Text in memory (not copied; it must outlive the source).
class memory_source final : public byte_source {
 public:
  explicit memory_source(std::string_view text) : text_(text) {}
  [[nodiscard]] std::size_t size() const override { return text_.size(); }
  void read(std::size_t offset, std::size_t bytes, char* dst) const override;

 private:
  std::string_view text_;
};

/// A regular file, opened for reading (RAII; not copyable).
class file_source final : public byte_source {
 public:
  /// @throws zeroflow::error naming the path and strerror when it cannot be opened or is not a regular file
  explicit file_source(const std::filesystem::path& path);
  file_source(const file_source&) = delete;
  file_source& operator=(const file_source&) = delete;
  ~file_source() override;

  [[nodiscard]] std::size_t size() const override { return size_; }
  void read(std::size_t offset, std::size_t bytes, char* dst) const override;
  [[nodiscard]] const std::filesystem::path* file_path() const override { return &path_; }

 private:
  std::filesystem::path path_;
  int fd_{-1};
  std::size_t size_{0};
};

}  // namespace zeroflow::io::detail
