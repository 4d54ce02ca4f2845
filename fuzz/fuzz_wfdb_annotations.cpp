// Fuzzes the WFDB annotation reader (MIT format; read_labels through its dispatch for any
// extension but `.csv`) and checks the promises of the labels it returns (labels_checks.hpp).
// The input is the annotation file's bytes.
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
