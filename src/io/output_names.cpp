#include "zeroflow/io/output_names.hpp"

#include <set>

namespace zeroflow::io {

namespace {

constexpr std::size_t max_name_bytes = 200;  // room for "-N" under the usual 255-byte limit

bool unsafe_char(unsigned char c) {
  // Control characters, both separators, and what Windows and SMB shares refuse in a name.
  return c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ':' || c == '*' || c == '?' || c == '"' || c == '<' ||
         c == '>' || c == '|';
}

/// The name as a case-insensitive file system compares it (ASCII case only; other letters are kept).
std::string fold_case(const std::string& name) {
  std::string folded = name;
  for (auto& c : folded)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return folded;
}

}  // namespace

std::string folder_name_for(const std::filesystem::path& input) {
  std::string name = input.stem().string();
  for (auto& c : name)
    if (unsafe_char(static_cast<unsigned char>(c))) c = '_';
  // Leading dots would make ".", "..", or a hidden folder; trailing dots and spaces are dropped by
  // Windows, which would merge "x." with "x".
  name.erase(0, name.find_first_not_of('.'));
  while (!name.empty() && (name.back() == '.' || name.back() == ' ')) name.pop_back();
  if (name.size() > max_name_bytes) {
    std::size_t cut = max_name_bytes;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    name.resize(cut);
  }
  return name.empty() ? std::string("recording") : name;
}

std::vector<std::string> distinct_folder_names(const std::vector<std::string>& inputs,
                                               const std::vector<std::string>& reserved) {
  std::set<std::string> taken;
  for (const auto& name : reserved) taken.insert(fold_case(name));
  // First every input's own name, so that a later "x-2.csv" keeps "x-2" and a repeated "x" goes round it.
  std::vector<std::string> names(inputs.size());
  std::vector<std::string> wanted(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    wanted[i] = folder_name_for(inputs[i]);
    if (taken.insert(fold_case(wanted[i])).second) names[i] = wanted[i];
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!names[i].empty()) continue;
    for (int n = 2;; ++n) {
      auto candidate = wanted[i] + "-" + std::to_string(n);
      if (taken.insert(fold_case(candidate)).second) {
        names[i] = std::move(candidate);
        break;
      }
    }
  }
  return names;
}

}  // namespace zeroflow::io
