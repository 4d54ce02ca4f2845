// Fuzzes the EDF/EDF+ readers: the header, every data signal's samples (digital and physical),
// the EDF+ annotation lists, and read_recording's EDF path. Checks what they promise: records x
// samples per record samples per signal, physical = physical_min + (digital - digital_min) x
// scale, annotations with finite onsets and a duration that is -1 or >= 0.
// The input is the file's bytes.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "fuzz_support.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/edf.hpp"
#include "zeroflow/io/recording.hpp"

namespace {

namespace io = zeroflow::io;
using zeroflow::fuzz::check;

constexpr std::size_t max_signals_read = 8;

std::uint32_t bits_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

void check_signal(const std::filesystem::path& path, const io::edf_header& header, std::size_t index) {
  const io::edf_signal& s = header.signals[index];
  const auto digital = io::read_edf_samples(path, header, index);
  check(digital.size() == static_cast<std::size_t>(header.records) * static_cast<std::size_t>(s.samples_per_record),
        "a signal's length is not records x samples per record");
  if (s.digital_max <= s.digital_min) return;  // read_edf_signal refuses it (a parse_error)
  const zeroflow::array physical = io::read_edf_signal(path, header, index, 1);
  check(physical.size() == static_cast<std::int64_t>(digital.size()),
        "read_edf_signal and read_edf_samples give different lengths");
  const double scale = (s.physical_max - s.physical_min) / (static_cast<double>(s.digital_max) - s.digital_min);
  const float* values = physical.data_as<float>();
  for (std::size_t i = 0; i < digital.size(); ++i) {
    const auto want = static_cast<float>(s.physical_min + (static_cast<double>(digital[i]) - s.digital_min) * scale);
    check(bits_of(values[i]) == bits_of(want), "a sample is not physical_min + (digital - digital_min) x scale");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = zeroflow::fuzz::scratch::get().write("fuzz.edf", zeroflow::fuzz::as_text(data, size));
  io::edf_header header;
  try {
    header = io::read_edf_header(path);
  } catch (const zeroflow::parse_error&) {
    return 0;
  }
  check(header.records >= 0 && !header.signals.empty(), "an EDF header with negative records or no signals");
  for (std::size_t i = 0; i < header.signals.size() && i < max_signals_read; ++i) {
    if (header.signals[i].annotations) continue;
    try {
      check_signal(path, header, i);
    } catch (const zeroflow::parse_error&) {
    }
  }
  try {
    for (const io::edf_annotation& a : io::read_edf_annotations(path)) {
      check(std::isfinite(a.onset), "an annotation onset is not finite");
      check(a.duration == -1 || (std::isfinite(a.duration) && a.duration >= 0), "an annotation duration is invalid");
      check(!a.text.empty(), "an empty annotation is returned");
    }
  } catch (const zeroflow::parse_error&) {
  }
  try {
    io::recording_options options;
    options.threads = 1;
    (void)io::read_recording(path, options);
  } catch (const zeroflow::error& e) {
    zeroflow::fuzz::refused(e);
  }
  return 0;
}
