// The power-of-five table of csv_cuda_number.hpp, computed with exact big-integer arithmetic.
#include "csv_cuda_number.hpp"

#include <cstdint>
#include <vector>

namespace zeroflow::io::detail::csv_number {

namespace {

// Little-endian base-2^32 big integers, just what the table needs.
using big = std::vector<std::uint32_t>;

int bit_length(const big& x) {
  for (std::size_t i = x.size(); i-- > 0;)
    if (x[i] != 0) return static_cast<int>(32 * i) + 32 - __builtin_clz(x[i]);
  return 0;
}

bool bit(const big& x, int k) {
  const auto word = static_cast<std::size_t>(k / 32);
  return word < x.size() && ((x[word] >> (k % 32)) & 1u) != 0;
}

void multiply_small(big& x, std::uint32_t m) {
  std::uint64_t carry = 0;
  for (auto& limb : x) {
    const std::uint64_t v = std::uint64_t{limb} * m + carry;
    limb = static_cast<std::uint32_t>(v);
    carry = v >> 32;
  }
  if (carry != 0) x.push_back(static_cast<std::uint32_t>(carry));
}

// x = floor(x / d)
void divide_small(big& x, std::uint32_t d) {
  std::uint64_t rest = 0;
  for (std::size_t i = x.size(); i-- > 0;) {
    const std::uint64_t v = (rest << 32) | x[i];
    x[i] = static_cast<std::uint32_t>(v / d);
    rest = v % d;
  }
}

// Bits [from, from + 128) of x as hi:lo (bit `from` is the lowest; negative positions read 0).
void window_128(const big& x, int from, std::uint64_t& hi, std::uint64_t& lo) {
  hi = lo = 0;
  for (int k = 0; k < 128; ++k) {
    if (from + k < 0 || !bit(x, from + k)) continue;
    if (k < 64)
      lo |= std::uint64_t{1} << k;
    else
      hi |= std::uint64_t{1} << (k - 64);
  }
}

}  // namespace

std::vector<pow5_entry> make_pow5_table() {
  std::vector<pow5_entry> table(static_cast<std::size_t>(pow5_count));
  std::vector<int> lengths(static_cast<std::size_t>(-pow5_min + 1));  // bit length of 5^k

  // 5^q for q >= 0: the top 128 bits, truncated; exact when nothing below them is set.
  big power{1};
  const int most = pow5_max > -pow5_min ? pow5_max : -pow5_min;
  for (int q = 0; q <= most; ++q) {
    const int length = bit_length(power);
    if (q <= -pow5_min) lengths[static_cast<std::size_t>(q)] = length;
    if (q <= pow5_max) {
      pow5_entry& e = table[static_cast<std::size_t>(q - pow5_min)];
      window_128(power, length - 128, e.hi, e.lo);
      e.e = length - 128;
      bool exact = true;
      for (int k = 0; k < length - 128 && exact; ++k) exact = !bit(power, k);
      e.exact = exact ? 1 : 0;
    }
    multiply_small(power, 5);
  }

  // 5^-k = 2^-b * (2^b / 5^k) with b = bitlen(5^k) + 127, so that floor(2^b / 5^k) has exactly
  // 128 bits; never exact. Dividing by 5 k times floors once overall (nested floors of exact
  // integer divisions compose).
  for (int k = 1; k <= -pow5_min; ++k) {
    const int b = lengths[static_cast<std::size_t>(k)] + 127;
    big x(static_cast<std::size_t>(b / 32 + 1), 0);
    x[static_cast<std::size_t>(b / 32)] = std::uint32_t{1} << (b % 32);
    for (int i = 0; i < k; ++i) divide_small(x, 5);
    pow5_entry& e = table[static_cast<std::size_t>(-k - pow5_min)];
    window_128(x, 0, e.hi, e.lo);
    e.e = -b;
    e.exact = 0;
  }
  return table;
}

const pow5_entry* host_pow5_table() {
  static const std::vector<pow5_entry> table = make_pow5_table();
  return table.data();
}

}  // namespace zeroflow::io::detail::csv_number
