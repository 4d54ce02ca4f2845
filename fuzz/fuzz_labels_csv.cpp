// Fuzzes the labels CSV reader (read_labels through its `.csv` dispatch) and checks what it
// promises of the labels it returns: one symbol and one AAMI class per beat, sample indices
// >= 0 and strictly increasing, classes among N, S, V, F, Q. The input is the file's bytes.
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "labels_checks.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/labels.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = zeroflow::fuzz::scratch::get().write("fuzz.labels.csv", zeroflow::fuzz::as_text(data, size));
  try {
    const zeroflow::io::beat_labels labels = zeroflow::io::read_labels(path);
    zeroflow::fuzz::check_labels(labels);
    for (const auto sample : labels.samples) zeroflow::fuzz::check(sample >= 0, "a labels CSV gives a negative sample");
  } catch (const zeroflow::parse_error&) {
  }
  return 0;
}
