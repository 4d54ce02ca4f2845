#pragma once
// The promises of io::beat_labels (labels.hpp) that both labels readers must keep.
#include <cstddef>
#include <string_view>

#include "fuzz_support.hpp"
#include "zeroflow/io/labels.hpp"

namespace zeroflow::fuzz {

inline void check_labels(const io::beat_labels& labels) {
  check(labels.symbols.size() == labels.samples.size() && labels.classes.size() == labels.samples.size(),
        "the labels hold different numbers of samples, symbols and classes");
  for (std::size_t i = 0; i < labels.samples.size(); ++i) {
    if (i > 0) check(labels.samples[i] > labels.samples[i - 1], "the labels' samples do not increase strictly");
    check(labels.samples[i] >= 0, "a beat lies before the recording's start");
    check(labels.classes[i] != 0 && std::string_view("NSVFQ").find(labels.classes[i]) != std::string_view::npos,
          "a beat has no AAMI class (N, S, V, F or Q)");
  }
}

}  // namespace zeroflow::fuzz
