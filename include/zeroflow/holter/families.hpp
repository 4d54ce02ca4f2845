#pragma once
/// @file families.hpp
/// Morphology families, as a Holter reader reviews them: the beats of one QRS shape (the class
/// rule's families, classify/beat_classes.hpp: 0 the dominant shape, k ≥ 1 the unlike ones) with
/// their count, their classes and a few members to look at.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace zeroflow::holter {

struct beat_family {
  std::int32_t id = 0;
  std::int64_t beats = 0;
  std::array<std::int64_t, 4> classes{};  ///< its beats called N, S, V, Q
  char beat_class = 'N';                  ///< the class most of its beats have (N before S, V, Q on ties)
  std::vector<std::int64_t> examples;     ///< up to `examples` members, spread evenly over the family
};

/// @brief The families present, by id.
/// @param family each beat's family id (≥ 0)
/// @param classes each beat's class (N, S, V or Q)
/// @throws zeroflow::invalid_argument when the sizes differ or an id is negative
[[nodiscard]] std::vector<beat_family> beat_families(std::span<const std::int32_t> family,
                                                     std::span<const char> classes, std::size_t examples = 8);

}  // namespace zeroflow::holter
