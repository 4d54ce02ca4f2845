#pragma once
// Test helpers for tests/io: a scratch folder of its own, removed with everything in it.
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>

namespace zeroflow::test {

/// A new, unique folder under $ZEROFLOW_TEST_TMP (else the system temp folder); removed, with
/// its content, when the object goes.
class scratch_dir {
 public:
  scratch_dir() {
    static std::atomic<unsigned> counter{0};
    const char* env = std::getenv("ZEROFLOW_TEST_TMP");
    const std::filesystem::path base = env != nullptr && *env != '\0' ? env : std::filesystem::temp_directory_path();
    std::random_device entropy;
    path_ = base / ("zeroflow-io-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
                    std::to_string(entropy()));
    std::filesystem::create_directories(path_);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

  /// Writes `content` byte for byte to `name` inside the folder and returns its path.
  std::filesystem::path write(const std::string& name, std::string_view content) const {
    const auto file = path_ / name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    return file;
  }

 private:
  std::filesystem::path path_;
};

/// The sample records copied into the repository (tests/data/wfdb).
inline const std::filesystem::path wfdb_samples_dir = std::filesystem::path(ZEROFLOW_TEST_DATA_DIR) / "wfdb";

/// ../shared/data beside the repository (tests/data -> repository -> its parent), when present.
inline const std::filesystem::path shared_data_dir =
    std::filesystem::path(ZEROFLOW_TEST_DATA_DIR).parent_path().parent_path().parent_path() / "shared" / "data";

/// What `f` throws as a zeroflow error, or "(no exception)".
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace zeroflow::test
