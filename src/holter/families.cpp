#include "zeroflow/holter/families.hpp"

#include <algorithm>
#include <map>

#include "zeroflow/core/error.hpp"

namespace zeroflow::holter {

std::vector<beat_family> beat_families(std::span<const std::int32_t> family, std::span<const char> classes,
                                       std::size_t examples) {
  ZF_EXPECTS(family.size() == classes.size(), "expected a family for each of the ", classes.size(), " beats, got ",
             family.size());
  std::map<std::int32_t, std::vector<std::int64_t>> members;
  for (std::size_t b = 0; b < family.size(); ++b) {
    ZF_EXPECTS(family[b] >= 0, "beat ", b, " has family ", family[b], "; families are numbered from 0");
    members[family[b]].push_back(static_cast<std::int64_t>(b));
  }
  constexpr std::string_view order = "NSVQ";
  std::vector<beat_family> out;
  for (const auto& [id, beats] : members) {
    beat_family f;
    f.id = id;
    f.beats = static_cast<std::int64_t>(beats.size());
    for (const auto b : beats) {
      const auto k = order.find(classes[static_cast<std::size_t>(b)]);
      if (k != std::string_view::npos) ++f.classes[k];
    }
    f.beat_class =
        order[static_cast<std::size_t>(std::max_element(f.classes.begin(), f.classes.end()) - f.classes.begin())];
    const std::size_t shown = std::min(examples, beats.size());
    for (std::size_t i = 0; i < shown; ++i) f.examples.push_back(beats[i * beats.size() / shown]);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace zeroflow::holter
