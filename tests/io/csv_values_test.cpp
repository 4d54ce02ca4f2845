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
#include "io/random_decimals.hpp"
#include "zeroflow/io/csv.hpp"

namespace zf = zeroflow;
namespace io = zeroflow::io;
using namespace zeroflow::io::testing;

namespace {

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
  const std::vector<std::string> cells = {"0",
                                          "-0",
                                          "+0",
                                          "-0.0",
                                          "0e999",
                                          "-0e-999",
                                          "1e-400",
                                          "-1e-400",
                                          "4.9406564584124654e-324",
                                          "2.4703282292062327e-324",
                                          "2.4703282292062328e-324",
                                          "2.2250738585072011e-308",
                                          "1.7976931348623157e308",
                                          "1.4e-45",
                                          "7e-46",
                                          "7.1e-46",
                                          "1.17549435e-38",
                                          "3.4028235e38",
                                          "3.4028236e38",
                                          "16777217",
                                          "9007199254740993",
                                          "0.1",
                                          ".1",
                                          "1.",
                                          "-.5e-3",
                                          "123456789012345678901234567890",
                                          "1e23",
                                          "8.589973e9",
                                          "2.2250738585072012e-308",
                                          "0.000000000000000000000000000000000000000000001",
                                          "340282356779733661637539395458142568448"};
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
