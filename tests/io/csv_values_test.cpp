// Values read by read_csv must be bit-identical to the C library's strtof / strtod / strtoll
// (correct rounding) on seeded random decimal strings, including the hard cases: many digits,
// exact halfway points between floats, subnormals, under- and overflow, signed zeros.
#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "io/csv_test_util.hpp"
#include "zeroflow/io/csv.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;

namespace {

std::string digits(std::mt19937_64& rng, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += static_cast<char>('0' + rng() % 10);
  return s;
}

std::string printf_string(const char* format, int precision, double value) {
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

// One random decimal string that strtod accepts in full.
std::string random_decimal(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::string sign = pick(4) == 0 ? "-" : pick(6) == 0 ? "+" : "";
  switch (pick(8)) {
    case 0: {  // digits . digits e exp, anything goes
      std::string s = cat(sign, digits(rng, pick(12)));
      if (pick(3) != 0) s = cat(s, std::string("."), digits(rng, pick(25)));
      if (s.find_first_of("0123456789") == std::string::npos) s = cat(s, digits(rng, 1 + pick(5)));
      if (pick(2) == 0)
        s = cat(s, std::string(pick(2) ? "e" : "E"), std::string(pick(2) ? "-" : pick(2) ? "+" : ""),
                std::to_string(pick(330)));
      return s;
    }
    case 1:  // long mantissas (beyond 19 digits: fast_float's slow path)
      return cat(sign, digits(rng, 1 + pick(30)), std::string("."), digits(rng, pick(60)), std::string("e"),
                 std::to_string(pick(80) - 40));
    case 2: {  // shortest and longer round trips of random doubles over the whole range
      double v;
      std::uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof v);
      if (!std::isfinite(v)) v = 1.0;
      return printf_string("%.*g", 1 + pick(19), v);
    }
    case 3: {  // exact halfway points between two adjacent floats (round-half-even), and neighbours
      float f;
      std::uint32_t bits = static_cast<std::uint32_t>(rng()) & 0x7f7fffffu;  // finite, below max
      std::memcpy(&f, &bits, sizeof f);
      const double mid = (static_cast<double>(f) + static_cast<double>(std::nextafter(f, 2 * f + 1))) / 2;
      std::string s = printf_string("%.*e", 120, mid);  // exact decimal of the midpoint
      if (pick(3) == 0) {  // nudge just above the halfway point
        const auto e = s.find('e');
        s[e - 1] = '1';
      }
      return cat(sign, s);
    }
    case 4:  // double and float subnormals, underflow to zero
      return cat(sign, digits(rng, 1), std::string("."), digits(rng, pick(20)), std::string("e-"),
                 std::to_string(pick(2) ? 300 + pick(30) : 36 + pick(12)));
    case 5:  // zeros
      return cat(sign, std::string(pick(2) ? "0" : "0."), std::string(static_cast<std::size_t>(pick(4)), '0'),
                 pick(2) ? cat(std::string("e"), std::to_string(pick(400) - 200)) : std::string());
    case 6:  // integers
      return cat(sign, digits(rng, 1 + pick(22)));
    default:  // ".5", "5.", overflow
      switch (pick(3)) {
        case 0: return cat(sign, std::string("."), digits(rng, 1 + pick(10)));
        case 1: return cat(sign, digits(rng, 1 + pick(10)), std::string("."));
        default: return cat(sign, digits(rng, 1 + pick(3)), std::string("e"), std::to_string(30 + pick(300)));
      }
  }
}

template <class T>
std::uint64_t bits_of(T v) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
}

}  // namespace

TEST(CsvValues, BitIdenticalToStrtofAndStrtod) {
  std::mt19937_64 rng(20240611);
  constexpr int n = 100000;
  std::vector<std::string> cells;
  std::string text = "f,d\n";
  for (int i = 0; i < n; ++i) {
    std::string s = random_decimal(rng);
    char* endp = nullptr;
    (void)std::strtod(s.c_str(), &endp);
    ASSERT_EQ(*endp, '\0') << "generator produced a string strtod does not take whole: " << s;
    text.append(s).append(",").append(s).append("\n");
    cells.push_back(std::move(s));
  }
  io::csv_options o;
  o.types = {{"d", zf::float64}};
  o.na = io::na_policy::nan;  // overflowing strings read as +-inf, as strtod returns them
  for (unsigned threads : {1u, 0u}) {
    o.threads = threads;
    const auto t = io::read_csv_buffer(text, "values.csv", o);
    const auto f = zf::test::values<float>(t.column("f"));
    const auto d = zf::test::values<double>(t.column("d"));
    ASSERT_EQ(f.size(), cells.size());
    int mismatches = 0;
    for (std::size_t i = 0; i < cells.size() && mismatches < 10; ++i) {
      const float want_f = std::strtof(cells[i].c_str(), nullptr);
      const double want_d = std::strtod(cells[i].c_str(), nullptr);
      if (bits_of(f[i]) != bits_of(want_f) || bits_of(d[i]) != bits_of(want_d)) {
        ++mismatches;
        ADD_FAILURE() << "\"" << cells[i] << "\": float " << f[i] << " vs strtof " << want_f << ", double " << d[i]
                      << " vs strtod " << want_d;
      }
    }
  }
}

TEST(CsvValues, SpecialCasesMatchStrtod) {
  const std::vector<std::string> cells = {
      "0", "-0", "+0", "-0.0", "0e999", "-0e-999", "1e-400", "-1e-400", "4.9406564584124654e-324",
      "2.4703282292062327e-324", "2.4703282292062328e-324", "2.2250738585072011e-308", "1.7976931348623157e308",
      "1.4e-45", "7e-46", "7.1e-46", "1.17549435e-38", "3.4028235e38", "3.4028236e38", "16777217", "9007199254740993",
      "0.1", ".1", "1.", "-.5e-3", "123456789012345678901234567890", "1e23", "8.589973e9", "2.2250738585072012e-308",
      "0.000000000000000000000000000000000000000000001", "340282356779733661637539395458142568448"};
  std::string text = "f,d\n";
  for (const auto& s : cells) text.append(s).append(",").append(s).append("\n");
  io::csv_options o;
  o.types = {{"d", zf::float64}};
  o.na = io::na_policy::nan;
  const auto t = io::read_csv_buffer(text, "special.csv", o);
  const auto f = zf::test::values<float>(t.column("f"));
  const auto d = zf::test::values<double>(t.column("d"));
  for (std::size_t i = 0; i < cells.size(); ++i) {
    EXPECT_EQ(bits_of(f[i]), bits_of(std::strtof(cells[i].c_str(), nullptr))) << cells[i];
    EXPECT_EQ(bits_of(d[i]), bits_of(std::strtod(cells[i].c_str(), nullptr))) << cells[i];
  }
  EXPECT_TRUE(std::signbit(f[1]) && std::signbit(d[3]) && std::signbit(f[7]));  // signed zeros survive
}

TEST(CsvValues, Int64MatchesStrtoll) {
  std::mt19937_64 rng(7);
  std::vector<std::string> cells;
  std::string text = "n\n";
  for (int i = 0; i < 20000; ++i) {
    const auto v = static_cast<std::int64_t>(rng()) >> (rng() % 64);
    std::string s = std::to_string(v);
    if (v >= 0 && rng() % 4 == 0) s.insert(0, 1, '+');
    if (rng() % 8 == 0) s.insert(s[0] == '-' || s[0] == '+' ? 1 : 0, rng() % 5, '0');
    text.append(s).append("\n");
    cells.push_back(s);
  }
  io::csv_options o;
  o.default_type = zf::int64;
  const auto n = zf::test::values<std::int64_t>(io::read_csv_buffer(text, "ints.csv", o).column(0));
  ASSERT_EQ(n.size(), cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    errno = 0;
    const long long want = std::strtoll(cells[i].c_str(), nullptr, 10);
    ASSERT_EQ(errno, 0);
    ASSERT_EQ(n[i], want) << cells[i];
  }
}

TEST(CsvValues, Float32NearRoundingBoundaries) {
  // Plain decimals ("0.000123...", no exponent, 17 digits) a few doubles away from the midpoint
  // of two adjacent floats: where a float32 reader that goes through double would round wrongly.
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::vector<std::string> cells;
  std::string text = "f\n";
  for (int i = 0; i < 2000; ++i) {
    const double v = mantissa(rng) * std::pow(10.0, static_cast<int>(rng() % 17) - 4);
    const float f = static_cast<float>(v);
    double point = (static_cast<double>(f) + static_cast<double>(std::nextafter(f, 2 * f))) / 2;
    for (int k = 0; k < 40; ++k) point = std::nextafter(point, 0.0);  // 40 doubles below the midpoint
    for (int k = -40; k <= 40; k += 2) {
      for (int digits : {16, 17, 19}) {
        std::string s = printf_string("%.*g", digits, point);
        if (rng() % 2) s.insert(0, 1, '-');
        text.append(s).append("\n");
        cells.push_back(std::move(s));
      }
      point = std::nextafter(std::nextafter(point, 1e300), 1e300);
    }
  }
  for (unsigned threads : {1u, 2u}) {
    io::csv_options o;
    o.threads = threads;
    const auto f = zf::test::values<float>(io::read_csv_buffer(text, "near.csv", o).column(0));
    ASSERT_EQ(f.size(), cells.size());
    int mismatches = 0;
    for (std::size_t i = 0; i < cells.size() && mismatches < 10; ++i) {
      const float want = std::strtof(cells[i].c_str(), nullptr);
      if (bits_of(f[i]) != bits_of(want)) {
        ++mismatches;
        ADD_FAILURE() << "\"" << cells[i] << "\": " << f[i] << " vs strtof " << want;
      }
    }
  }
}
