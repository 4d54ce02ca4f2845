// Fuzzes the labels readers through read_labels' dispatch by content (MIT format for binary
// bytes, the labels CSV for text, whatever the name: here `.atr`) and checks the promises of the
// labels it returns (labels_checks.hpp). The input is the file's bytes.
#include <cstdint>

#include "fuzz_support.hpp"
#include "labels_checks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/labels.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = zeroflow::fuzz::scratch::get().write("fuzz.atr", zeroflow::fuzz::as_text(data, size));
  try {
    zeroflow::fuzz::check_labels(zeroflow::io::read_labels(path));
  } catch (const zeroflow::parse_error&) {
  }
  return 0;
}
