#pragma once
/// @file mapped_file.hpp
/// The bytes of a whole file, read once into memory the process owns.
///
/// Not a memory map, although the name stays: a mapped file that shrinks while it is read (another
/// program truncating or rewriting it) turns the next touch of a page past the new end into SIGBUS,
/// which kills the process. Catching that would need a signal handler that longjmps out of the
/// parsers, skipping the destructors of their strings and vectors, on whichever of their threads
/// faulted. Reading with pread instead turns a file that ends early into a short read and a clear
/// error, and a file that changes after it was read into no harm at all: the parsers see a copy.
/// The GPU CSV path reads the same way (pread into its staging buffers).
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string_view>

namespace zeroflow::io {

/// How the file will be read; passed to the kernel (posix_fadvise) so that it reads ahead accordingly.
enum class access_pattern { sequential, random, normal };

/// Owns the bytes of a file as they were when it was read (RAII; movable, not copyable). The bytes
/// are followed by zeros up to a multiple of the page size, as a mapping's last page is. An empty
/// file is fine: data() is nullptr and size() is 0.
class mapped_file {
 public:
  /// Reads `path` whole (several threads for a large file).
  /// @throws zeroflow::error naming the path and the reason (strerror) when the file cannot be
  ///         opened, is not a regular file, or cannot be read, and naming the byte where it ended
  ///         when it shrank while being read.
  /// @throws zeroflow::out_of_memory when there is no memory for its bytes.
  explicit mapped_file(const std::filesystem::path& path, access_pattern pattern = access_pattern::sequential);
  mapped_file(mapped_file&& other) noexcept;
  mapped_file& operator=(mapped_file&& other) noexcept;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();

  [[nodiscard]] const char* data() const { return bytes_.get(); }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::string_view view() const { return {bytes_.get(), size_}; }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  struct page_delete {
    void operator()(char* p) const noexcept;
  };

  std::filesystem::path path_;
  std::unique_ptr<char[], page_delete> bytes_;
  std::size_t size_{0};
};

namespace detail {
/// @brief Reads bytes [0, size) of the open file `fd` into `dst` with pread, in parallel pieces
/// when it is large.
/// @param path the file's name, for messages
/// @throws zeroflow::error naming the path and the byte offset where the file ended (it was
///         truncated while being read) or the reason the read failed
void read_file_bytes(int fd, std::size_t size, char* dst, const std::filesystem::path& path);
}  // namespace detail

}  // namespace zeroflow::io
