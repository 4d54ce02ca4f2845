#include "zeroflow/io/labels.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace zeroflow::io {

beat_labels read_labels(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // WFDB annotation files are named by annotator (`.atr`, `.qrs`, `.ecg`, ...), so everything
  // that is not a CSV is taken for one.
  return extension == ".csv" ? read_labels_csv(path) : read_wfdb_annotations(path);
}

}  // namespace zeroflow::io
