#pragma once
// A file written under a temporary name beside its destination and renamed into place on
// commit(), so readers never see a partial file under the final name.
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string_view>

namespace zeroflow::synth::detail {

class atomic_file {
 public:
  /// Opens a temporary file in the folder of `destination`.
  /// @throws zeroflow::error when it cannot be created (e.g. the folder does not exist).
  explicit atomic_file(std::filesystem::path destination);
  /// Removes the temporary file unless commit() succeeded.
  ~atomic_file();
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;

  /// Appends bytes. @throws zeroflow::error on a write error.
  void write(std::string_view bytes);
  /// Closes the file and renames it to the destination. @throws zeroflow::error on failure.
  void commit();

  const std::filesystem::path& temporary_path() const { return temporary_; }

 private:
  std::filesystem::path destination_;
  std::filesystem::path temporary_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

}  // namespace zeroflow::synth::detail
