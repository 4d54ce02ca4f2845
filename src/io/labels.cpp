#include "zeroflow/io/labels.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/byte_fields.hpp"
#include "zeroflow/io/mapped_file.hpp"
#include "zeroflow/io/recording.hpp"

namespace zeroflow::io {

namespace {

// An MIT annotation word's high byte is code << 2: a beat code (1-13) gives bytes 0x04-0x37,
// and the file ends with the zero word. Text has neither NUL nor control bytes but tab, CR, LF.
bool text_head(std::string_view head) {
  return !head.empty() && std::none_of(head.begin(), head.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c < 0x20 && c != '\t' && c != '\r' && c != '\n';
  });
}

/// Refuses what is plainly neither a labels CSV nor MIT annotations, by the file's first bytes:
/// text in UTF-16 (a spreadsheet's "Unicode text") and an EDF file (an EDF+ annotation signal is
/// no beat list zeroflow reads).
void refuse_other_formats(std::string_view head, const std::filesystem::path& path) {
  head = head.substr(0, 512);
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(head[i]); };
  bool utf16 = head.size() >= 2 && ((byte(0) == 0xFF && byte(1) == 0xFE) || (byte(0) == 0xFE && byte(1) == 0xFF));
  if (!utf16 && head.size() >= 16) {  // without a byte-order mark: ASCII with every other byte NUL
    std::size_t odd_nul = 0, even_nul = 0;
    for (std::size_t i = 0; i + 1 < head.size(); i += 2) {
      even_nul += byte(i) == 0;
      odd_nul += byte(i + 1) == 0;
    }
    const std::size_t pairs = head.size() / 2;
    utf16 = (odd_nul == pairs && even_nul == 0) || (even_nul == pairs && odd_nul == 0);
  }
  if (utf16)
    ZF_THROW(parse_error, path.string(),
             ": text in UTF-16; save the labels as UTF-8 (a CSV with the header sample,symbol) or give WFDB "
             "annotations (NAME.atr)");
  if (head.size() >= 256 && head.substr(0, 8) == "0       ")
    ZF_THROW(parse_error, path.string(),
             ": an EDF file; labels are read from a CSV (sample,symbol) or WFDB annotations (NAME.atr), not from "
             "EDF+ annotations");
}

}  // namespace

bool looks_like_text(const std::filesystem::path& path) {
  const mapped_file file(path);
  return text_head(file.view().substr(0, 4096));
}

beat_labels read_labels(const std::filesystem::path& path) {
  // By what the file holds, not its name: a text file (a CSV, rdann's printout, a .txt copy)
  // is read as a labels CSV, which names what it expected; anything else as MIT annotations,
  // whose reader checks their structure. Both checks read the first bytes of one mapping.
  bool text = false;
  {
    const mapped_file file(path);
    const auto head = file.view().substr(0, 4096);
    refuse_other_formats(head, path);
    text = text_head(head);
  }
  return text ? read_labels_csv(path) : read_wfdb_annotations(path);
}

beat_labels read_labels_for(const std::filesystem::path& path, double sample_rate, std::int64_t samples) {
  beat_labels l = read_labels(path);
  if (l.time_resolution > 0 && !same_sample_rate(l.time_resolution, sample_rate)) {
    const double scale = sample_rate / l.time_resolution;
    const auto at = [&](std::int64_t s) {
      return static_cast<std::int64_t>(std::llround(static_cast<double>(s) * scale));
    };
    for (std::size_t i = 0; i < l.samples.size(); ++i) {
      l.samples[i] = at(l.samples[i]);
      if (i > 0 && l.samples[i] <= l.samples[i - 1])
        ZF_THROW(parse_error, path.string(), ": at its time resolution of ", l.time_resolution, " Hz, beats ", i - 1,
                 " and ", i, " fall on one sample of the recording (", sample_rate, " Hz)");
    }
    for (auto& r : l.rhythm) r.sample = at(r.sample);
    for (auto& [from, to] : l.ventricular_flutter) {
      from = at(from);
      if (to != std::numeric_limits<std::int64_t>::max()) to = at(to);
    }
    l.time_resolution = sample_rate;
  }
  check_labels_within(l, samples, path);
  return l;
}

void check_labels_within(const beat_labels& labels, std::int64_t samples, const std::filesystem::path& path) {
  if (samples <= 0 || labels.samples.empty() || labels.samples.back() < samples) return;
  const auto past = std::count_if(labels.samples.begin(), labels.samples.end(), [&](auto s) { return s >= samples; });
  ZF_THROW(parse_error, path.string(), ": ", past, " of ", labels.samples.size(), " beats lie past the end of the ",
           "recording (", samples, " samples; the last at sample ", labels.samples.back(),
           "); are these the labels of another recording or another sample rate?");
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
