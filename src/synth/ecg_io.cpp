#include "zeroflow/synth/ecg_io.hpp"

#include <charconv>
#include <cstdint>
#include <ostream>
#include <string>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::synth {
namespace {

/// Text is assembled in chunks of about this size and handed to the file in one write.
constexpr std::size_t chunk_bytes = 1 << 20;

/// The AAMI class of the generator's beat symbols, 0 for anything else.
char aami_class_of_label(char label) {
  switch (label) {
    case 'N':
      return 'N';
    case 'A':
      return 'S';
    case 'V':
      return 'V';
    default:
      return 0;
  }
}

/// Hands `text` to the file once it has grown to a chunk.
void flush_when_full(std::ostream& file, std::string& text) {
  if (text.size() < chunk_bytes) return;
  file.write(text.data(), static_cast<std::streamsize>(text.size()));
  text.clear();
}

void append_integer(std::string& text, std::int64_t value) {
  char number[32];
  const auto [end, ec] = std::to_chars(number, number + sizeof number, value);
  (void)ec;  // an int64 always fits in 32 characters
  text.append(number, end);
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
      flush_when_full(file, text);
    }
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
}

void write_labels_csv(const ecg_recording& recording, const std::filesystem::path& path) {
  ZF_EXPECTS(recording.r_peaks.size() == recording.labels.size(), "write_labels_csv: ", recording.r_peaks.size(),
             " r_peaks but ", recording.labels.size(), " labels");
  for (std::size_t i = 0; i < recording.labels.size(); ++i)
    ZF_EXPECTS(aami_class_of_label(recording.labels[i]) != 0, "write_labels_csv: beat ", i, " has the label '",
               recording.labels[i], "'; a synthetic beat is 'N', 'A' or 'V'");
  io::write_atomically(path, [&](std::ostream& file) {
    std::string text = "sample,symbol,aami\n";
    for (std::size_t i = 0; i < recording.r_peaks.size(); ++i) {
      append_integer(text, recording.r_peaks[i]);
      text.push_back(',');
      text.push_back(recording.labels[i]);
      text.push_back(',');
      text.push_back(aami_class_of_label(recording.labels[i]));
      text.push_back('\n');
      flush_when_full(file, text);
    }
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
}

void write_artefacts_csv(const ecg_recording& recording, const std::filesystem::path& path) {
  io::write_atomically(path, [&](std::ostream& file) {
    std::string text = "start,end,kind\n";
    for (const artefact_interval& a : recording.artefacts) {
      append_integer(text, a.start);
      text.push_back(',');
      append_integer(text, a.end);
      text += a.kind == artefact_kind::noise_burst ? ",noise_burst\n" : ",baseline_jump\n";
      flush_when_full(file, text);
    }
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
}

std::filesystem::path labels_path_for(const std::filesystem::path& csv) {
  return csv.parent_path() / (csv.stem().string() + ".labels.csv");
}

std::filesystem::path artefacts_path_for(const std::filesystem::path& csv) {
  return csv.parent_path() / (csv.stem().string() + ".artefacts.csv");
}

}  // namespace zeroflow::synth
