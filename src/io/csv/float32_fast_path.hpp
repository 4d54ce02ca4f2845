#pragma once
// Private to src/io/csv: a shortcut for the most common float32 cell, a plain decimal such as
// "-0.009141512392632941": no exponent, at most 19 significant digits (value below 2^63), at
// most 22 digits after the point. It returns exactly what fast_float and strtof return, or
// nullptr when it cannot be sure; the caller then asks fast_float.
//
// Why it is exact (assuming the default round-to-nearest mode, as fast_float's fast path does).
// The text is x = m * 10^-k, m < 2^63, k <= 22. d = double(m) * double(10^-k) rounds three
// times, each by at most u = 2^-53 relative, so |d - x| < 3.0002 u |d| < 3.0002 ulp(d).
// RN_float(x) == RN_float(d) unless a float rounding boundary (the midpoint of two adjacent
// floats) lies between x and d or on either. With d in float's normal range, the midpoints of
// d's binade are the doubles whose low 29 mantissa bits are exactly 1 << 28 (float keeps 23 of
// double's 52 fraction bits); those of the neighbouring binades are at least 2^27 ulp(d) away.
// So when d's low 29 bits are more than 16 from 1 << 28, no midpoint is within 17 ulps of d,
// none is between x and d, and float(d) (an IEEE conversion, round to nearest) is
// RN_float(x). The range test keeps x and d inside float's normal range (no subnormal, no
// overflow). About 1 value in 10^7 falls back to fast_float.
#include <cstdint>
#include <cstring>

namespace zeroflow::io::detail {

namespace fast32 {
// All 8 bytes (read little-endian) are ASCII digits.
inline bool eight_digits(std::uint64_t v) {
  return ((v & 0xF0F0F0F0F0F0F0F0ull) | (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ==
         0x3333333333333333ull;
}
// The value of 8 ASCII digits read little-endian (the first digit is the most significant):
// pairs, then quads, then the two halves, each step one multiply-add.
inline std::uint64_t eight_digit_value(std::uint64_t v) {
  v -= 0x3030303030303030ull;
  v = v * 10 + (v >> 8);
  return (((v & 0x000000FF000000FFull) * 0x000F424000000064ull) +
          (((v >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >>
         32;
}
inline bool digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
}  // namespace fast32

/// Parses "[-]digits[.digits]" at p, stopping at the first other character (which the caller
/// checks). Returns the end of the number with `out` set, or nullptr to defer to fast_float.
inline const char* parse_float32_plain(const char* p, const char* end, float& out) {
  using namespace fast32;
  constexpr double inverse_powers[] = {1e-0,  1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                                       1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15,
                                       1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};
  const bool negative = p < end && *p == '-';
  p += negative;
  const char* const start = p;
  std::uint64_t m = 0;
  while (p < end && *p == '0') ++p;  // leading zeros are not significant
  const char* s = p;
  while (p < end && digit(*p)) m = m * 10 + static_cast<unsigned>(*p++ - '0');  // may wrap: refused below
  int significant = static_cast<int>(p - s);
  int fraction = 0;
  if (p < end && *p == '.') {
    const char* const point = p++;
    if (m == 0)
      while (p < end && *p == '0') ++p;  // nor are those of 0.000123
    const char* const first = p;
    while (end - p >= 8) {
      std::uint64_t v;
      std::memcpy(&v, p, 8);
      if (!eight_digits(v)) break;
      m = m * 100000000u + eight_digit_value(v);
      p += 8;
    }
    while (p < end && digit(*p)) m = m * 10 + static_cast<unsigned>(*p++ - '0');
    significant += static_cast<int>(p - first);
    fraction = static_cast<int>(p - point - 1);
    if (p == point + 1 && point == start) return nullptr;  // "." or "-.": no digit at all
  } else if (p == start) {
    return nullptr;  // no digit at all
  }
  if (significant > 19 || fraction > 22 || (m >> 63) != 0) return nullptr;
  if (p < end && (*p == 'e' || *p == 'E')) return nullptr;
  if (m == 0) {
    out = negative ? -0.0f : 0.0f;
    return p;
  }
  // m < 2^63: the signed conversion is one instruction, the unsigned one is not
  const double d = static_cast<double>(static_cast<std::int64_t>(m)) * inverse_powers[fraction];
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  const std::uint64_t low = bits & 0x1FFFFFFFu;
  const std::uint64_t from_midpoint = low > 0x10000000u ? low - 0x10000000u : 0x10000000u - low;
  if (from_midpoint <= 16 || !(d > 2.5e-38 && d < 1.7e38)) return nullptr;
  const auto f = static_cast<float>(d);
  out = negative ? -f : f;
  return p;
}

}  // namespace zeroflow::io::detail
