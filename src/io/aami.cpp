#include <string_view>

#include "zeroflow/io/labels.hpp"

namespace zeroflow::io {
namespace {

/// AAMI EC57 grouping of the MIT-BIH beat symbols. Each class letter is also a symbol of its own
/// class (S: supraventricular premature beat, Q: unclassifiable beat), so a file that already
/// holds classes reads unchanged.
struct aami_group {
  char aami;
  std::string_view symbols;
};
constexpr aami_group aami_groups[] = {{'N', "NLRej"}, {'S', "AaJS"}, {'V', "VE"}, {'F', "F"}, {'Q', "/fQB?nr"}};

/// WFDB's mnemonics of the annotations that mark no QRS complex: rhythm, noise, waves, comments.
constexpr std::string_view non_beat_symbols = "~|sT*D\"=p^t+u![]@x()`'";

}  // namespace

char aami_class_of(std::string_view symbol) noexcept {
  if (symbol.size() != 1) return 0;  // every beat symbol is one character
  for (const auto& group : aami_groups)
    if (group.symbols.find(symbol.front()) != std::string_view::npos) return group.aami;
  return 0;
}

bool is_non_beat_annotation(std::string_view symbol) noexcept {
  return symbol.size() == 1 && non_beat_symbols.find(symbol.front()) != std::string_view::npos;
}

}  // namespace zeroflow::io
