#include "zeroflow/io/labels.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>

#include "zeroflow/io/byte_fields.hpp"
#include "zeroflow/io/mapped_file.hpp"

namespace zeroflow::io {

beat_labels read_labels(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // WFDB annotation files are named by annotator (`.atr`, `.qrs`, `.ecg`, ...), so everything
  // that is not a CSV is taken for one.
  return extension == ".csv" ? read_labels_csv(path) : read_wfdb_annotations(path);
}

std::string file_fingerprint(const std::filesystem::path& path) {
  const mapped_file file(path);
  const std::uint64_t hash = fnv1a64_of(file.view());
  char text[48];
  std::snprintf(text, sizeof text, "%zu:%016llx", file.size(), static_cast<unsigned long long>(hash));
  return text;
}

bool has_fingerprint(const std::filesystem::path& path, std::string_view fingerprint) noexcept {
  try {
    std::uint64_t size = 0;
    const auto [end, ec] = std::from_chars(fingerprint.data(), fingerprint.data() + fingerprint.size(), size);
    if (ec != std::errc{} || end == fingerprint.data() + fingerprint.size() || *end != ':') return false;
    // Non-blocking, so that a FIFO put there cannot make this wait; nothing is read unless the
    // file is regular and of the recorded size.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    const bool same_size =
        ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) == size;
    ::close(fd);
    return same_size && file_fingerprint(path) == fingerprint;
  } catch (...) {
    return false;
  }
}

}  // namespace zeroflow::io
