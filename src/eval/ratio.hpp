#pragma once
// The share of a count in a total, as every EC57 figure is one: NaN where the total is 0 (no
// reference beat of a class makes its sensitivity undefined, not 0 or 100 %).
#include <cstdint>
#include <limits>

namespace zeroflow::eval::detail {

inline double ratio(std::int64_t num, std::int64_t den) {
  return den == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(num) / static_cast<double>(den);
}

}  // namespace zeroflow::eval::detail
