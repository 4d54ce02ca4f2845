#pragma once
// Random decimal strings for the number parsers' tests (host read_csv against strtof/strtod, and
// the GPU parser's core compiled as host code): every shape the float paths care about.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

namespace zeroflow::io::testing {

inline std::string digits(std::mt19937_64& rng, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += static_cast<char>('0' + rng() % 10);
  return s;
}

inline std::string printf_string(const char* format, int precision, double value) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, format, precision, value);
  return buffer;
}

// Appends every part (GCC 12 warns falsely, -Wrestrict, on chains of "literal" + string&&).
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  (out.append(parts), ...);
  return out;
}

// A random decimal string that strtod takes whole (optionally after a leading '+'): every
// shape the float paths care about.
inline std::string random_decimal(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::string sign = pick(4) == 0 ? "-" : pick(6) == 0 ? "+" : "";
  switch (pick(11)) {
    case 0: {  // digits . digits e exp, anything goes
      std::string s = cat(sign, digits(rng, pick(12)));
      if (pick(3) != 0) s = cat(s, std::string("."), digits(rng, pick(25)));
      if (s.find_first_of("0123456789") == std::string::npos) s = cat(s, digits(rng, 1 + pick(5)));
      if (pick(2) == 0)
        s = cat(s, std::string(pick(2) ? "e" : "E"),
                std::string(pick(2)   ? "-"
                            : pick(2) ? "+"
                                      : ""),
                std::to_string(pick(360)));
      return s;
    }
    case 1:  // 20 to 90 significant digits
      return cat(sign, digits(rng, 1 + pick(30)), std::string("."), digits(rng, pick(60)), std::string("e"),
                 std::to_string(pick(80) - 40));
    case 2: {  // round trips of random doubles over the whole range
      double v;
      std::uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof v);
      if (!std::isfinite(v)) v = 1.0;
      return printf_string("%.*g", 1 + pick(19), v);
    }
    case 3: {  // round trips of random floats, shortest-ish and longer
      float f;
      auto bits = static_cast<std::uint32_t>(rng());
      std::memcpy(&f, &bits, sizeof f);
      if (!std::isfinite(f)) f = 1.0f;
      return cat(sign, printf_string("%.*g", 1 + pick(12), std::fabs(static_cast<double>(f))));
    }
    case 4: {  // exact halfway points between adjacent floats, and just above them
      float f;
      auto bits = static_cast<std::uint32_t>(rng()) & 0x7f7fffffu;
      if (bits == 0x7f7fffffu) --bits;  // the largest float has no finite neighbour above
      std::memcpy(&f, &bits, sizeof f);
      const double mid = (static_cast<double>(f) + static_cast<double>(std::nextafter(f, 2 * f + 1))) / 2;
      std::string s = printf_string("%.*e", 120, mid);
      if (pick(3) == 0) s[s.find('e') - 1] = '1';
      return cat(sign, s);
    }
    case 5:  // float and double subnormals, underflow to zero
      return cat(sign, digits(rng, 1), std::string("."), digits(rng, pick(20)), std::string("e-"),
                 std::to_string(pick(2) ? 300 + pick(30) : 36 + pick(12)));
    case 6:  // zeros, with and without exponents
      return cat(sign, std::string(pick(2) ? "0" : "0."), std::string(static_cast<std::size_t>(pick(4)), '0'),
                 pick(2) ? cat(std::string("e"), std::to_string(pick(400) - 200)) : std::string());
    case 7:  // integers, up to 24 digits (past 2^64)
      return cat(sign, digits(rng, 1 + pick(24)));
    case 8:  // ECG-like values: a few digits after the point
      return cat(sign, digits(rng, pick(2)), std::string("."), digits(rng, 1 + pick(9)));
    case 9: {  // near the largest float / double (overflow or not)
      return pick(2) ? cat(sign, std::string("3.40282"), digits(rng, pick(12)), std::string("e38"))
                     : cat(sign, std::string("1.79769313486231"), digits(rng, pick(8)), std::string("e308"));
    }
    default:  // ".5", "5.", leading zeros, big exponents
      switch (pick(4)) {
        case 0:
          return cat(sign, std::string("."), digits(rng, 1 + pick(10)));
        case 1:
          return cat(sign, digits(rng, 1 + pick(10)), std::string("."));
        case 2:
          return cat(sign, std::string(static_cast<std::size_t>(1 + pick(30)), '0'), digits(rng, 1 + pick(8)));
        default:
          return cat(sign, digits(rng, 1 + pick(3)), std::string("e"), std::to_string(30 + pick(300)));
      }
  }
}

}  // namespace zeroflow::io::testing
