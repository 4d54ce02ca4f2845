#pragma once
// What every fuzz target shares: a scratch folder of its own for readers that take a path, and
// checks that abort (so that libFuzzer keeps the input) when a reader breaks its own contract.
//
// A reader may refuse any input with a zeroflow::parse_error (or a plain zeroflow::error for a
// file it cannot open); anything else that escapes it (invalid_argument from a broken internal
// precondition, std::out_of_range, std::bad_alloc, ...) is a bug: refused() aborts on the first,
// and the others are left uncaught, so that libFuzzer reports them as crashes.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <typeinfo>

#include "zeroflow/core/error.hpp"

namespace zeroflow::fuzz {

/// Aborts with `what` on stderr unless `condition` holds.
inline void check(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

/// Accepts `e` as a reader's refusal of bad input when it is a parse_error or a plain error
/// (a file it cannot open), and aborts with its message otherwise.
inline void refused(const zeroflow::error& e) {
  if (dynamic_cast<const zeroflow::parse_error*>(&e) != nullptr || typeid(e) == typeid(zeroflow::error)) return;
  std::fprintf(stderr, "fuzz check failed: a reader threw %s (%s): %s\n", typeid(e).name(), e.where().c_str(),
               e.what());
  std::abort();
}

/// The bytes libFuzzer hands a target, as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A folder of this process's own under $ZEROFLOW_FUZZ_TMP (else the system temp folder), made on
/// first use and removed when the process ends normally. Each input is written over the same few paths inside it.
class scratch {
 public:
  static scratch& get() {
    static scratch instance;
    return instance;
  }

  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }

  /// Writes `bytes` to `name` inside the folder (replacing what was there) and returns its path.
  std::filesystem::path write(const std::string& name, std::string_view bytes) const {
    check(try_write(name, bytes), "cannot write a file in the scratch folder");
    return dir_ / name;
  }

  /// write() for a name taken from the input, which the file system may refuse (too long, say):
  /// false then, and the reader finds no such file.
  bool try_write(const std::string& name, std::string_view bytes) const {
    std::FILE* out = std::fopen((dir_ / name).c_str(), "wb");
    if (out == nullptr) return false;
    const bool written = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
    return std::fclose(out) == 0 && written;
  }

  /// Removes everything in the folder (inputs that name their own files leave some behind).
  void clear() const {
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator(dir_, ignored))
      std::filesystem::remove_all(entry.path(), ignored);
  }

  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;

 private:
  scratch() {
    const char* env = std::getenv("ZEROFLOW_FUZZ_TMP");
    const std::filesystem::path base = env != nullptr && *env != '\0' ? env : std::filesystem::temp_directory_path();
    std::string pattern = (base / "zeroflow-fuzz-XXXXXX").string();
    check(::mkdtemp(pattern.data()) != nullptr, "cannot create the scratch folder");
    dir_ = pattern;
  }
  ~scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::filesystem::path dir_;
};

}  // namespace zeroflow::fuzz
