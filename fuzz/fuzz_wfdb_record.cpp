// Fuzzes the WFDB record readers: the header parser, the signal decoders of every storage format
// (with samples per frame, skew, byte offsets, signals sharing a file) and read_recording's WFDB
// path. Checks what the readers promise: as many samples as frames x samples per frame (the
// header's frame count when it gives one), NaN exactly where the stored sample is the format's
// invalid value, and (digital - baseline) / gain elsewhere.
//
// Input: the header's text, a NUL byte, then the bytes of the signal file. Every file the header
// names is written with those bytes (names with a '/' are not: the reads stay in the scratch folder).
// A name that leaves the record's folder (absolute, or through "..") must be refused, by name.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/recording.hpp"
#include "zeroflow/io/wfdb.hpp"

namespace {

namespace io = zeroflow::io;
using zeroflow::fuzz::check;

constexpr std::size_t max_signals_read = 8;

bool stays_inside(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

// The names the readers must refuse before touching any file (wfdb.hpp): absolute, or through "..".
bool leaves_the_folder(const std::string& name) {
  const std::filesystem::path p(name);
  bool leaves = p.has_root_path();
  for (const auto& part : p) leaves = leaves || part == "..";
  return leaves;
}

// A signal whose file is outside the record's folder is refused as such, by every reader.
void check_refused_outside(const std::filesystem::path& hea, const io::wfdb_header& header, std::size_t index) {
  const auto refuses = [&](auto&& read) {
    try {
      read();
    } catch (const zeroflow::parse_error& e) {
      return std::string_view(e.what()).find("outside the record's folder") != std::string_view::npos;
    } catch (const zeroflow::error&) {
      return false;  // e.g. "missing": the file was looked for
    }
    return false;
  };
  // A null signal or one read from standard input is refused for that first.
  if (header.signals[index].format == 0 || header.signals[index].file_name == "-") return;
  check(refuses([&] { (void)io::read_wfdb_samples(hea, header, index, 1); }),
        "read_wfdb_samples did not refuse a signal file outside the record's folder");
  check(refuses([&] { (void)io::read_wfdb_signal(hea, header, index, 1); }),
        "read_wfdb_signal did not refuse a signal file outside the record's folder");
}

std::uint32_t bits_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

void check_signal(const std::filesystem::path& hea, const io::wfdb_header& header, std::size_t index) {
  const io::wfdb_signal& s = header.signals[index];
  const auto digital = io::read_wfdb_samples(hea, header, index, 1);
  const zeroflow::array physical = io::read_wfdb_signal(hea, header, index, 1);
  check(physical.size() == static_cast<std::int64_t>(digital.size()),
        "read_wfdb_signal and read_wfdb_samples give different lengths");
  check(digital.size() % static_cast<std::size_t>(s.samples_per_frame) == 0,
        "a signal's length is not a whole number of frames");
  if (header.frames > 0)
    check(digital.size() == static_cast<std::size_t>(header.frames) * static_cast<std::size_t>(s.samples_per_frame),
          "a signal's length is not the header's frames x samples per frame");
  const std::int32_t invalid = io::wfdb_invalid_sample(s.format);
  const float* values = physical.data_as<float>();
  for (std::size_t i = 0; i < digital.size(); ++i) {
    if (digital[i] == invalid) {
      check(std::isnan(values[i]), "an invalid sample does not read as NaN");
      continue;
    }
    const auto want = static_cast<float>((static_cast<double>(digital[i]) - static_cast<double>(s.baseline)) / s.gain);
    check(bits_of(values[i]) == bits_of(want), "a sample is not (digital - baseline) / gain");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = zeroflow::fuzz::as_text(data, size);
  const std::size_t nul = input.find('\0');
  const std::string_view header_text = input.substr(0, nul);
  const std::string_view signal_bytes = nul == std::string_view::npos ? std::string_view{} : input.substr(nul + 1);

  const zeroflow::fuzz::scratch& scratch = zeroflow::fuzz::scratch::get();
  scratch.clear();
  const auto hea = scratch.write("fuzz.hea", header_text);
  io::wfdb_header header;
  try {
    header = io::parse_wfdb_header(header_text, "fuzz.hea");
  } catch (const zeroflow::parse_error&) {
    return 0;
  }
  const io::wfdb_header from_file = io::read_wfdb_header(hea);
  check(from_file.signals.size() == header.signals.size() && from_file.frames == header.frames,
        "parse_wfdb_header and read_wfdb_header disagree");

  std::set<std::string> written;
  for (const auto& s : header.signals) {
    if (!stays_inside(s.file_name) || s.file_name == "fuzz.hea" || !written.insert(s.file_name).second) continue;
    (void)scratch.try_write(s.file_name, signal_bytes);
  }
  bool every_file_inside = true;
  for (std::size_t i = 0; i < header.signals.size(); ++i) {
    if (!stays_inside(header.signals[i].file_name)) {
      every_file_inside = false;
      if (i < max_signals_read && leaves_the_folder(header.signals[i].file_name)) check_refused_outside(hea, header, i);
      continue;
    }
    if (i >= max_signals_read) continue;
    try {
      check_signal(hea, header, i);
    } catch (const zeroflow::error& e) {
      zeroflow::fuzz::refused(e);
    }
  }
  if (every_file_inside) {
    try {
      io::recording_options options;
      options.threads = 1;
      (void)io::read_recording(hea, options);
    } catch (const zeroflow::error& e) {
      zeroflow::fuzz::refused(e);
    }
  }
  return 0;
}
