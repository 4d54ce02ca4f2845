#pragma once
// Private to src/io/csv: one CSV cell -> float32 / float64 / int64, written once for the host and
// the GPU (every function is __host__ __device__ under nvcc and plain C++ otherwise, so the host
// unit tests exercise exactly the code the kernels run).
//
// The rules are those of csv_cells.hpp (the host reader: fast_float 3.x's grammar behind the
// missing-value spellings), and the values are the correctly rounded ones, so they agree bit for
// bit with fast_float, strtof and strtod. The conversion, in the spirit of Eisel and Lemire
// ("Number parsing at a gigabyte per second", 2021), but with an explicit error interval:
//   1. Up to 19 significant digits go into a uint64 w, the rest only set a `truncated` flag, so
//      the value x lies in [w, w + truncated] * 10^q.
//   2. Clinger's fast path: w and 10^|q| both exact in the target type -> one IEEE division or
//      multiplication, correctly rounded by the hardware.
//   3. Otherwise 5^q is bracketed by a 128-bit table entry, 5^q in [T, T + inexact] * 2^e, so
//      x lies in [w*T, w_hi*(T + inexact)] * 2^(e + q) with 192-bit products. When both ends
//      round (to nearest, ties to even) to the same float, that float is the answer, whatever x
//      is inside. When they do not, x is that close to the midpoint M of two adjacent floats;
//   4. for 1 <= -q <= 27 with every digit kept, x = w / 10^-q is compared with M exactly in
//      128-bit integers (this settles exact ties such as "3661874.625").
//   Anything else (digits beyond 19 near a midpoint, or an exponent outside [-27, 55] within
//   about 2^-120 of one) is "undecided" and the caller parses it with the host reader. That
//   keeps every value exact and is rare.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "csv_grammar.hpp"

namespace zeroflow::io::detail::csv_number {

// ---- the power-of-five table -----------------------------------------------------------------

/// 5^q = [hi:lo] * 2^e, or within [hi:lo, hi:lo + 1] * 2^e when `exact` is 0; hi has its top bit set.
struct pow5_entry {
  std::uint64_t hi;
  std::uint64_t lo;
  std::int32_t e;
  std::uint32_t exact;
};

/// Decimal exponents the table covers: below it every value rounds to zero, above it to infinity
/// (for float64; float32 uses a sub-range, see float_format).
inline constexpr int pow5_min = -342;
inline constexpr int pow5_max = 308;
inline constexpr int pow5_count = pow5_max - pow5_min + 1;

/// Builds the table with exact big-integer arithmetic (host only, once).
std::vector<pow5_entry> make_pow5_table();
/// The table for host-side parsing, built on first use.
const pow5_entry* host_pow5_table();

// ---- 64 x 64 -> 128 and 192-bit helpers ----------------------------------------------------------

ZF_HD inline void mul_64x64(std::uint64_t a, std::uint64_t b, std::uint64_t& hi, std::uint64_t& lo) {
#if defined(__CUDA_ARCH__)
  lo = a * b;
  hi = __umul64hi(a, b);
#else
  const std::uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t middle = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  lo = (middle << 32) | (p00 & 0xffffffffu);
  hi = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
#endif
}

ZF_HD inline int leading_zeros(std::uint64_t x) {  // x != 0
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}

/// A 192-bit unsigned integer, w[2] most significant.
struct u192 {
  std::uint64_t w[3];
};

/// a (64 bits) * [hi:lo] (128 bits).
ZF_HD inline u192 mul_64x128(std::uint64_t a, std::uint64_t hi, std::uint64_t lo) {
  std::uint64_t lo_hi, lo_lo, hi_hi, hi_lo;
  mul_64x64(a, lo, lo_hi, lo_lo);
  mul_64x64(a, hi, hi_hi, hi_lo);
  u192 r;
  r.w[0] = lo_lo;
  r.w[1] = hi_lo + lo_hi;
  r.w[2] = hi_hi + (r.w[1] < hi_lo ? 1 : 0);
  return r;
}

/// x + a; the callers' sums stay below 2^192 (see convert()).
ZF_HD inline u192 add_64(u192 x, std::uint64_t a) {
  x.w[0] += a;
  if (x.w[0] < a && ++x.w[1] == 0) ++x.w[2];
  return x;
}

ZF_HD inline bool is_zero(const u192& x) { return (x.w[0] | x.w[1] | x.w[2]) == 0; }

ZF_HD inline int bit_length(const u192& x) {
  for (int k = 2; k >= 0; --k)
    if (x.w[k] != 0) return 64 * k + 64 - leading_zeros(x.w[k]);
  return 0;
}

/// Bit `k` of x (0 beyond 191).
ZF_HD inline bool bit_at(const u192& x, int k) { return k < 192 && ((x.w[k / 64] >> (k % 64)) & 1u) != 0; }

/// Whether any of bits [0, k) of x is set.
ZF_HD inline bool any_below(const u192& x, int k) {
  if (k <= 0) return false;
  if (k >= 192) return !is_zero(x);
  const int word = k / 64, bit = k % 64;
  for (int i = 0; i < word; ++i)
    if (x.w[i] != 0) return true;
  return bit != 0 && (x.w[word] & ((std::uint64_t{1} << bit) - 1)) != 0;
}

/// The 64 bits of x starting at bit `s` (0 <= s; bits above 191 read as 0).
ZF_HD inline std::uint64_t bits_from(const u192& x, int s) {
  if (s >= 192) return 0;
  const int word = s / 64, bit = s % 64;
  std::uint64_t r = x.w[word] >> bit;
  if (bit != 0 && word + 1 < 3) r |= x.w[word + 1] << (64 - bit);
  return r;
}

// ---- IEEE formats ------------------------------------------------------------------------------

/// What the conversion needs to know of float / double.
template <class T>
struct float_format;

template <>
struct float_format<float> {
  using bits_type = std::uint32_t;
  static constexpr int mantissa_bits = 24;  // with the hidden bit
  static constexpr int min_exponent = -126;
  static constexpr int bias = 127;
  static constexpr int max_field = 255;
  // With w < 10^19 + 1: q <= -65 gives x <= 10^-46 < 2^-150 (half the smallest subnormal): zero;
  // q >= 39 gives x >= 10^39, past the largest float's rounding range: infinity.
  static constexpr int zero_at_or_below = -65;
  static constexpr int infinite_at_or_above = 39;
  // Clinger: w <= 2^24 and 10^q for |q| <= 10 are exact floats.
  static constexpr std::uint64_t fast_max_w = std::uint64_t{1} << 24;
  static constexpr int fast_max_q = 10;
  static constexpr bits_type sign_bit = 0x80000000u;
  static constexpr bits_type infinity = 0x7f800000u;
  static constexpr bits_type quiet_nan = 0x7fc00000u;  // std::numeric_limits<float>::quiet_NaN()
};

template <>
struct float_format<double> {
  using bits_type = std::uint64_t;
  static constexpr int mantissa_bits = 53;
  static constexpr int min_exponent = -1022;
  static constexpr int bias = 1023;
  static constexpr int max_field = 2047;
  static constexpr int zero_at_or_below = -343;  // 10^-324 < 2^-1075
  static constexpr int infinite_at_or_above = 309;
  static constexpr std::uint64_t fast_max_w = std::uint64_t{1} << 53;
  static constexpr int fast_max_q = 22;
  static constexpr bits_type sign_bit = 0x8000000000000000ull;
  static constexpr bits_type infinity = 0x7ff0000000000000ull;
  static constexpr bits_type quiet_nan = 0x7ff8000000000000ull;
};

ZF_HD inline std::uint32_t bits_of(float v) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(v);
#else
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
#endif
}

ZF_HD inline std::uint64_t bits_of(double v) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(v));
#else
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
#endif
}

/// Rounds v * 2^scale (v != 0) to the nearest T, ties to even; the result's bits without sign
/// (infinity when it overflows, 0 when it underflows).
template <class T>
ZF_HD typename float_format<T>::bits_type round_to(const u192& v, int scale) {
  using F = float_format<T>;
  using bits_type = typename F::bits_type;
  constexpr int n = F::mantissa_bits;
  const int top = bit_length(v) - 1 + scale;                                // v * 2^scale is in [2^top, 2^(top+1))
  int quantum = (top > F::min_exponent ? top : F::min_exponent) - (n - 1);  // exponent of one ulp
  const int shift = quantum - scale;
  std::uint64_t m;
  if (shift <= 0) {
    m = v.w[0] << -shift;  // v < 2^n here, so it is exact and fits
  } else {
    m = bits_from(v, shift);
    const bool round_bit = bit_at(v, shift - 1);
    if (round_bit && (any_below(v, shift - 1) || (m & 1u) != 0)) ++m;
  }
  if (m == (std::uint64_t{1} << n)) {  // rounding carried into a new binade
    m >>= 1;
    ++quantum;
  }
  if (m == 0) return 0;
  if (m < (std::uint64_t{1} << (n - 1))) return static_cast<bits_type>(m);  // subnormal
  const int field = quantum + (n - 1) + F::bias;
  if (field >= F::max_field) return F::infinity;
  return static_cast<bits_type>((static_cast<bits_type>(field) << (n - 1)) |
                                static_cast<bits_type>(m - (std::uint64_t{1} << (n - 1))));
}

// ---- decimal strings ------------------------------------------------------------------------------

/// A decimal number as scanned: |x| in [w, w + 1) * 10^q when truncated, = w * 10^q otherwise.
struct decimal {
  std::uint64_t w{0};
  std::int64_t q{0};
  bool negative{false};
  bool truncated{false};
};

ZF_HD inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Scans [p, end) as a whole number of fast_float's grammar, after the host reader's
/// number_start(): an optional '+' or '-', then digits[.digits][(e|E)[+-]digits], at least one
/// digit in the mantissa; an 'e' without exponent digits is trailing text. False when the cell is
/// anything else ("+-1" included).
ZF_HD inline bool scan_decimal(const char* p, const char* end, decimal& d) {
  d = decimal{};
  if (p < end && *p == '+') {
    ++p;
  } else if (p < end && *p == '-') {
    d.negative = true;
    ++p;
  }
  if (p == end || !(is_digit(*p) || *p == '.')) return false;
  int kept = 0;  // significant digits in w (at most 19, so w < 10^19 < 2^64)
  bool any_digit = false;
  bool started = false;  // a non-zero digit was seen
  std::int64_t q = 0;
  for (; p < end && is_digit(*p); ++p) {
    any_digit = true;
    const auto digit = static_cast<unsigned>(*p - '0');
    if (!started && digit == 0) continue;  // leading zeros
    started = true;
    if (kept < 19) {
      d.w = d.w * 10 + digit;
      ++kept;
    } else {
      ++q;  // a dropped integer digit still scales the value
      d.truncated = d.truncated || digit != 0;
    }
  }
  if (p < end && *p == '.') {
    for (++p; p < end && is_digit(*p); ++p) {
      any_digit = true;
      const auto digit = static_cast<unsigned>(*p - '0');
      if (!started && digit == 0) {
        --q;
        continue;
      }
      started = true;
      if (kept < 19) {
        d.w = d.w * 10 + digit;
        ++kept;
        --q;
      } else {
        d.truncated = d.truncated || digit != 0;
      }
    }
  }
  if (!any_digit) return false;
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    bool negative_exponent = false;
    if (p < end && (*p == '-' || *p == '+')) negative_exponent = *p++ == '-';
    if (p == end || !is_digit(*p)) return false;  // "1e", "1e+": the 'e' is left over
    std::int64_t exponent = 0;
    for (; p < end && is_digit(*p); ++p)
      if (exponent < 0x10000000) exponent = exponent * 10 + (*p - '0');  // saturates, as fast_float does
    q += negative_exponent ? -exponent : exponent;
  }
  d.q = q;
  return p == end;
}

enum class conversion { exact, overflow, undecided };

/// x << s as 128 bits; false when the result does not fit (it is then >= 2^128).
ZF_HD inline bool shift_left_128(std::uint64_t& hi, std::uint64_t& lo, int s) {
  if (s == 0) return true;
  if (s >= 128) return (hi | lo) == 0;
  if (s >= 64) {
    if (hi != 0 || (s > 64 && (lo >> (128 - s)) != 0)) return false;
    hi = lo << (s - 64);
    lo = 0;
    return true;
  }
  if ((hi >> (64 - s)) != 0) return false;
  hi = (hi << s) | (lo >> (64 - s));
  lo <<= s;
  return true;
}

/// -1, 0, +1 as w * 10^-k compares with the midpoint (2m + 1) * 2^(quantum - 1), exactly; needs
/// 1 <= k <= 27 (5^k < 2^64) and m < 2^54.
ZF_HD inline int compare_with_midpoint(std::uint64_t w, int k, std::uint64_t m, int quantum) {
  // w * 5^-k * 2^-k  vs  (2m + 1) * 2^(quantum - 1)   <=>   w  vs  (2m + 1) * 5^k * 2^t
  std::uint64_t five = 1;
  for (int i = 0; i < k; ++i) five *= 5;
  std::uint64_t b_hi, b_lo;  // (2m + 1) * 5^k < 2^54 * 2^63
  mul_64x64(2 * m + 1, five, b_hi, b_lo);
  std::uint64_t a_hi = 0, a_lo = w;
  const int t = quantum - 1 + k;
  // A side that overflows 128 bits is the larger: the other one is below 2^117.
  if (t < 0 && !shift_left_128(a_hi, a_lo, -t)) return 1;
  if (t > 0 && !shift_left_128(b_hi, b_lo, t)) return -1;
  if (a_hi != b_hi) return a_hi < b_hi ? -1 : 1;
  if (a_lo != b_lo) return a_lo < b_lo ? -1 : 1;
  return 0;
}

/// The correctly rounded T of `d` (see the file comment), as bits with the sign.
template <class T>
ZF_HD conversion convert(const decimal& d, const pow5_entry* table, typename float_format<T>::bits_type& bits) {
  using F = float_format<T>;
  using bits_type = typename F::bits_type;
  const bits_type sign = d.negative ? F::sign_bit : bits_type{0};
  if (d.w == 0 || d.q <= F::zero_at_or_below) {  // w == 0: every digit was a zero
    bits = sign;
    return conversion::exact;
  }
  if (d.q >= F::infinite_at_or_above) {
    bits = sign | F::infinity;
    return conversion::overflow;
  }
  const int q = static_cast<int>(d.q);
  if (!d.truncated && d.w <= F::fast_max_w && q >= -F::fast_max_q && q <= F::fast_max_q) {
    T power = 1;
    for (int i = 0; i < (q < 0 ? -q : q); ++i) power *= 10;  // exact: 10^22 fits a double's mantissa
    const T w = static_cast<T>(d.w);
    T value;
#if defined(__CUDA_ARCH__)
    // Explicitly rounded operations: a -use_fast_math build must not change the answer.
    if constexpr (sizeof(T) == 4)
      value = q < 0 ? __fdiv_rn(w, power) : __fmul_rn(w, power);
    else
      value = q < 0 ? __ddiv_rn(w, power) : __dmul_rn(w, power);
#else
    value = q < 0 ? w / power : w * power;
#endif
    bits = sign | bits_of(value);
    return conversion::exact;
  }
  const pow5_entry& p = table[q - pow5_min];
  // |x| in [w * T, w_hi * (T + inexact)] * 2^(e + q). w_hi <= 10^19 and T < 2^128, so
  // w_hi * T + w_hi < 2^192.
  const std::uint64_t w_hi = d.w + (d.truncated ? 1u : 0u);
  const u192 low = mul_64x128(d.w, p.hi, p.lo);
  u192 high = mul_64x128(w_hi, p.hi, p.lo);
  if (p.exact == 0) high = add_64(high, w_hi);
  const int scale = p.e + q;
  bits_type low_bits = round_to<T>(low, scale);
  const bits_type high_bits = round_to<T>(high, scale);
  if (low_bits != high_bits) {
    // x is within the bracket's width of the midpoint between two adjacent floats. With q in
    // [-27, -1] and all digits kept, compare x with that midpoint exactly: this settles exact
    // ties such as "3661874.625" (float) or "7008545940202925.5" (double) on the GPU.
    if (d.truncated || q >= 0 || q < -27) return conversion::undecided;
    constexpr int n = F::mantissa_bits;
    const int field = static_cast<int>(low_bits >> (n - 1));
    const std::uint64_t fraction = static_cast<std::uint64_t>(low_bits) & ((std::uint64_t{1} << (n - 1)) - 1);
    const std::uint64_t m = field == 0 ? fraction : fraction | (std::uint64_t{1} << (n - 1));
    const int quantum = (field == 0 ? 1 : field) - F::bias - (n - 1);
    const int order = compare_with_midpoint(d.w, -q, m, quantum);
    if (order > 0 || (order == 0 && (m & 1u) != 0)) low_bits = high_bits;  // above, or a tie to the even one
  }
  bits = sign | low_bits;
  return low_bits == F::infinity ? conversion::overflow : conversion::exact;
}

// ---- whole cells ----------------------------------------------------------------------------------

/// What a cell holds; the first five are csv_cells.hpp's cell_status.
enum class cell_result : std::uint8_t { ok, empty, missing, infinite, out_of_range, bad, undecided };

// The spellings are the shared grammar's, as the host reader's are.
using csv_grammar::infinity_sign;
using csv_grammar::is_missing_spelling;
using csv_grammar::may_be_spelling;

/// csv_cells.hpp's parse_float_cell for [p, end), plus `undecided` (see convert). `bits` holds the
/// value for ok, and what na_policy::nan stores for empty, missing, infinite and out_of_range.
template <class T>
ZF_HD cell_result parse_float_cell(const char* p, const char* end, const pow5_entry* table,
                                   typename float_format<T>::bits_type& bits) {
  using F = float_format<T>;
  if (p == end) {
    bits = F::quiet_nan;
    return cell_result::empty;
  }
  if (may_be_spelling(p, end)) {
    if (is_missing_spelling(p, end)) {
      bits = F::quiet_nan;
      return cell_result::missing;
    }
    if (const int sign = infinity_sign(p, end)) {
      bits = (sign < 0 ? F::sign_bit : 0) | F::infinity;
      return cell_result::infinite;
    }
    return cell_result::bad;
  }
  decimal d;
  if (!scan_decimal(p, end, d)) return cell_result::bad;
  switch (convert<T>(d, table, bits)) {
    case conversion::exact:
      return cell_result::ok;
    case conversion::overflow:
      return cell_result::out_of_range;
    case conversion::undecided:
      break;
  }
  return cell_result::undecided;
}

/// csv_cells.hpp's parse_int_cell for [p, end), reduced to what an int64 column needs: ok, or bad
/// for everything else (empty, spellings, overflow and junk are all errors there).
ZF_HD inline cell_result parse_int_cell(const char* p, const char* end, std::int64_t& value) {
  if (p < end && *p == '+') {
    ++p;
    if (p == end || !is_digit(*p)) return cell_result::bad;  // "+-1" stays an error
  }
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  if (p == end) return cell_result::bad;
  // The magnitude, up to 2^63 (reached only by the most negative value).
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  std::uint64_t magnitude = 0;
  bool overflow = false;
  for (; p < end; ++p) {
    if (!is_digit(*p)) return cell_result::bad;
    const auto digit = static_cast<std::uint64_t>(*p - '0');
    if (magnitude > (limit - digit) / 10)
      overflow = true;
    else
      magnitude = magnitude * 10 + digit;
  }
  if (overflow) return cell_result::out_of_range;
  value = negative ? static_cast<std::int64_t>(std::uint64_t{0} - magnitude) : static_cast<std::int64_t>(magnitude);
  return cell_result::ok;
}

}  // namespace zeroflow::io::detail::csv_number
