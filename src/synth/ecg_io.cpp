#include "zeroflow/synth/ecg_io.hpp"

#include <cctype>
#include <charconv>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::synth {
namespace {

/// Text is assembled in chunks of about this size and handed to the file in one write.
constexpr std::size_t chunk_bytes = 1 << 20;

/// Quotes a line for an error message, cut short when long.
std::string quoted(std::string_view line) {
  constexpr std::size_t max_shown = 60;
  std::string out = "'";
  out += line.substr(0, max_shown);
  if (line.size() > max_shown) out += "...";
  out += "'";
  return out;
}

}  // namespace

void write_ecg_csv(const ecg_recording& recording, const std::filesystem::path& csv, int decimals) {
  ZF_EXPECTS(decimals >= 0 && decimals <= 9, "write_ecg_csv: decimals must be in [0, 9], got ", decimals);
  io::write_atomically(csv, [&](std::ostream& file) {
    std::string text = "heartbeats\n";
    text.reserve(chunk_bytes + 128);
    char number[64];  // the widest float in fixed notation with 9 decimals needs 50
    for (const float value : recording.samples) {
      const auto [end, ec] = std::to_chars(number, number + sizeof number, value, std::chars_format::fixed, decimals);
      if (ec != std::errc{}) ZF_THROW(error, "write_ecg_csv: cannot format ", value);
      text.append(number, end);
      text.push_back('\n');
      if (text.size() >= chunk_bytes) {
        file.write(text.data(), static_cast<std::streamsize>(text.size()));
        text.clear();
      }
    }
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
}

void write_labels_csv(const ecg_recording& recording, const std::filesystem::path& path) {
  ZF_EXPECTS(recording.r_peaks.size() == recording.labels.size(), "write_labels_csv: ", recording.r_peaks.size(),
             " r_peaks but ", recording.labels.size(), " labels");
  io::write_atomically(path, [&](std::ostream& file) {
    std::string text = "sample,label\n";
    char number[32];
    for (std::size_t i = 0; i < recording.r_peaks.size(); ++i) {
      const auto [end, ec] = std::to_chars(number, number + sizeof number, recording.r_peaks[i]);
      (void)ec;  // an int64 always fits in 32 characters
      text.append(number, end);
      text.push_back(',');
      text.push_back(recording.labels[i]);
      text.push_back('\n');
      if (text.size() >= chunk_bytes) {
        file.write(text.data(), static_cast<std::streamsize>(text.size()));
        text.clear();
      }
    }
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
}

std::filesystem::path labels_path_for(const std::filesystem::path& csv) {
  return csv.parent_path() / (csv.stem().string() + ".labels.csv");
}

beat_labels read_labels_csv(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ZF_THROW(error, "cannot open labels file '", path.string(), "'");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) ZF_THROW(error, "cannot read labels file '", path.string(), "'");

  const std::string name = path.string();
  beat_labels out;
  bool header_seen = false;
  std::size_t line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!header_seen) {
      if (line != "sample,label")
        ZF_THROW(parse_error, name, ':', line_number, ": expected the header 'sample,label', got ", quoted(line));
      header_seen = true;
      continue;
    }
    std::int64_t sample = 0;
    const char* first = line.data();
    const char* last = line.data() + line.size();
    const auto [p, ec] = std::from_chars(first, last, sample);
    if (ec != std::errc{} || p == first)
      ZF_THROW(parse_error, name, ':', line_number, ":1: expected a sample index, got ", quoted(line));
    const auto column = static_cast<std::size_t>(p - first) + 1;
    if (p == last || *p != ',')
      ZF_THROW(parse_error, name, ':', line_number, ':', column, ": expected ',' after the sample index in ",
               quoted(line));
    if (last - p != 2 || !std::isalpha(static_cast<unsigned char>(p[1])))
      ZF_THROW(parse_error, name, ':', line_number, ':', column + 1, ": expected a one-letter label, got ",
               quoted(std::string_view(p + 1, static_cast<std::size_t>(last - p - 1))));
    if (sample < 0) ZF_THROW(parse_error, name, ':', line_number, ":1: negative sample index ", sample);
    if (!out.samples.empty() && sample <= out.samples.back())
      ZF_THROW(parse_error, name, ':', line_number, ":1: sample indices must increase, ", sample, " follows ",
               out.samples.back());
    out.samples.push_back(sample);
    out.labels.push_back(p[1]);
  }
  if (!header_seen) ZF_THROW(parse_error, name, ":1: empty file, expected the header 'sample,label'");
  return out;
}

}  // namespace zeroflow::synth
