#pragma once
// The reference quantile of the tests: a full sort and NumPy's linear method written out, sharing
// no code with eval/quantile.hpp, which the tests check against it.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace zeroflow::test {

/// The q-quantile by a full sort: the order statistics at floor and ceil of q (n - 1), weighted.
inline double sorted_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(at);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace zeroflow::test
