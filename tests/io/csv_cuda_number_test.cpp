// The GPU CSV parser's number core (src/io/csv/csv_cuda_number.hpp), compiled here as host code:
// the very functions the kernels run must give strtof / strtod's bits on millions of random
// decimal strings, and classify every cell exactly as the host reader (csv_cells.hpp) does.
#include "io/csv/csv_cuda_number.hpp"

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

#include "io/csv/csv_cells.hpp"
#include "io/random_decimals.hpp"

namespace num = zeroflow::io::detail::csv_number;
namespace host = zeroflow::io::detail;
using num::cell_result;
using namespace zeroflow::io::testing;

namespace {

std::uint32_t bits(float v) { return num::bits_of(v); }
std::uint64_t bits(double v) { return num::bits_of(v); }

template <class T>
cell_result parse(const std::string& s, typename num::float_format<T>::bits_type& out) {
  return num::parse_float_cell<T>(s.data(), s.data() + s.size(), num::host_pow5_table(), out);
}

}  // namespace

TEST(CsvCudaNumber, PowerOfFiveTable) {
  const num::pow5_entry* table = num::host_pow5_table();
  for (int q = num::pow5_min; q <= num::pow5_max; ++q) {
    const num::pow5_entry& e = table[q - num::pow5_min];
    ASSERT_NE(e.hi >> 63, 0u) << q;                   // normalised
    EXPECT_EQ(e.exact != 0, q >= 0 && q <= 55) << q;  // 5^55 < 2^128 < 5^56
    // Against long double: T * 2^e is 5^q within the table's 2^-127 and long double's rounding.
    const long double approx =
        std::ldexp(static_cast<long double>(e.hi), e.e + 64) + std::ldexp(static_cast<long double>(e.lo), e.e);
    const long double want = std::pow(5.0L, static_cast<long double>(q));
    EXPECT_NEAR(static_cast<double>(approx / want), 1.0, 1e-17) << q;
  }
  // Small powers exactly: 5^q << (128 - bitlen) for q <= 27 (5^27 < 2^64).
  std::uint64_t power = 1;
  for (int q = 0; q <= 27; ++q, power *= 5) {
    const num::pow5_entry& e = table[q - num::pow5_min];
    const int length = 64 - __builtin_clzll(power);
    EXPECT_EQ(e.e, length - 128) << q;
    const int shift = 128 - length;  // >= 64
    EXPECT_EQ(e.hi, power << (shift - 64)) << q;
    EXPECT_EQ(e.lo, 0u) << q;
  }
  // The floor of 2^b / 5^k for negative q: T * 5^k <= 2^b < (T + 1) * 5^k, checked for k = 1
  // (b = 3 + 127): T = floor(2^130 / 5).
  const num::pow5_entry& fifth = table[-1 - num::pow5_min];
  EXPECT_EQ(fifth.e, -130);
  EXPECT_EQ(fifth.hi, 0xccccccccccccccccull);
  EXPECT_EQ(fifth.lo, 0xccccccccccccccccull);  // 2^130 / 5 = 0xcccc...cccc.cc...
}

TEST(CsvCudaNumber, BitIdenticalToStrtofAndStrtodOnRandomDecimals) {
  std::mt19937_64 rng(20240917);
  constexpr int n = 2'000'000;
  int mismatches = 0;
  long undecided_f = 0, undecided_d = 0, long_strings = 0;
  for (int i = 0; i < n && mismatches < 20; ++i) {
    const std::string s = random_decimal(rng);
    char* endp = nullptr;
    const double want_d = std::strtod(s.c_str(), &endp);
    ASSERT_EQ(*endp, '\0') << "generator produced a string strtod does not take whole: " << s;
    const float want_f = std::strtof(s.c_str(), nullptr);
    std::uint32_t got_f = 0xdeadbeefu;
    std::uint64_t got_d = 0xdeadbeefdeadbeefull;
    const cell_result rf = parse<float>(s, got_f);
    const cell_result rd = parse<double>(s, got_d);
    const bool hard = s.size() > 20;
    long_strings += hard;
    if (rf == cell_result::undecided) {
      ++undecided_f;
    } else if (rf != (std::isinf(want_f) ? cell_result::out_of_range : cell_result::ok) || got_f != bits(want_f)) {
      ++mismatches;
      ADD_FAILURE() << '"' << s << "\" float: result " << int(rf) << " bits " << std::hex << got_f << ", strtof "
                    << bits(want_f);
    }
    if (rd == cell_result::undecided) {
      ++undecided_d;
    } else if (rd != (std::isinf(want_d) ? cell_result::out_of_range : cell_result::ok) || got_d != bits(want_d)) {
      ++mismatches;
      ADD_FAILURE() << '"' << s << "\" double: result " << int(rd) << " bits " << std::hex << got_d << ", strtod "
                    << bits(want_d);
    }
  }
  // Undecided cells go to the host: they must stay rare. The generator's exact halfway strings
  // (1 in 11, 120 digits) are undecided for float by design; everything else almost never.
  EXPECT_LT(undecided_f, n / 11 + n / 1000) << undecided_f;
  EXPECT_LT(undecided_d, n / 100) << undecided_d;
  std::printf("undecided: %ld float, %ld double of %d strings (%ld longer than 20 characters)\n", undecided_f,
              undecided_d, n, long_strings);
}

TEST(CsvCudaNumber, ShortDecimalsAreAlmostAlwaysDecided) {
  // What real files hold: up to 17 significant digits. Undecided needs a value within ~2^-120
  // (relative) of a rounding midpoint: none in a million.
  std::mt19937_64 rng(99);
  int undecided = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    const std::string s =
        cat(std::string(rng() % 2 ? "-" : ""), digits(rng, 1 + static_cast<int>(rng() % 3)), std::string("."),
            digits(rng, 1 + static_cast<int>(rng() % 14)),
            rng() % 3 == 0 ? cat(std::string("e"), std::to_string(static_cast<int>(rng() % 60) - 30)) : std::string());
    std::uint32_t f = 0;
    std::uint64_t d = 0;
    const cell_result rf = parse<float>(s, f);
    const cell_result rd = parse<double>(s, d);
    undecided += (rf == cell_result::undecided) + (rd == cell_result::undecided);
    if (rf == cell_result::ok) {
      ASSERT_EQ(f, bits(std::strtof(s.c_str(), nullptr))) << s;
    }
    if (rd == cell_result::ok) {
      ASSERT_EQ(d, bits(std::strtod(s.c_str(), nullptr))) << s;
    }
  }
  EXPECT_EQ(undecided, 0);
}

TEST(CsvCudaNumber, HardCases) {
  const std::vector<std::string> cells = {"0",
                                          "-0",
                                          "+0",
                                          "-0.0",
                                          "0e999",
                                          "-0e-999",
                                          "0e99999999999999999999",
                                          "1e-400",
                                          "-1e-400",
                                          "4.9406564584124654e-324",
                                          "2.4703282292062327e-324",
                                          "2.4703282292062328e-324",
                                          "2.2250738585072011e-308",
                                          "1.7976931348623157e308",
                                          "1.7976931348623158e308",
                                          "1.7976931348623159e308",
                                          "1.4e-45",
                                          "7e-46",
                                          "7.006492321624085e-46",
                                          "7.006492321624086e-46",
                                          "1.17549435e-38",
                                          "1.1754942e-38",
                                          "3.4028235e38",
                                          "3.4028236e38",
                                          "3.40282356779733661637539395458142568447e38",
                                          "16777216",
                                          "16777217",
                                          "16777218",
                                          "16777219",
                                          "9007199254740993",
                                          "9007199254740992.5",
                                          "0.1",
                                          ".1",
                                          "1.",
                                          "-.5e-3",
                                          "123456789012345678901234567890",
                                          "1e23",
                                          "8.589973e9",
                                          "2.2250738585072012e-308",
                                          "0.000000000000000000000000000000000000000000001",
                                          "340282356779733661637539395458142568448",
                                          "1e38",
                                          "1e39",
                                          "1e308",
                                          "1e309",
                                          "0.00000000000000000000000000000000000000000000000000000001e56",
                                          "100000000000000000000000000000000000000000000000000000000000e-59",
                                          "2560000152587890625e-16",
                                          cat(std::string("1"), std::string(400, '0'), std::string("e-400")),
                                          cat(std::string("0."), std::string(500, '0'), std::string("1e501"))};
  for (const std::string& s : cells) {
    std::uint32_t f = 0;
    std::uint64_t d = 0;
    const cell_result rf = parse<float>(s, f);
    const cell_result rd = parse<double>(s, d);
    const float want_f = std::strtof(s.c_str(), nullptr);
    const double want_d = std::strtod(s.c_str(), nullptr);
    if (rf != cell_result::undecided) {
      EXPECT_EQ(f, bits(want_f)) << s;
      EXPECT_EQ(rf, std::isinf(want_f) ? cell_result::out_of_range : cell_result::ok) << s;
    }
    if (rd != cell_result::undecided) {
      EXPECT_EQ(d, bits(want_d)) << s;
      EXPECT_EQ(rd, std::isinf(want_d) ? cell_result::out_of_range : cell_result::ok) << s;
    }
  }
  // Exact ties the GPU must settle itself (exact table entries: q >= 0), ties to even:
  std::uint32_t f = 0;
  ASSERT_EQ(parse<float>("16777217", f), cell_result::ok);
  EXPECT_EQ(f, bits(16777216.0f));
  ASSERT_EQ(parse<float>("16777219", f), cell_result::ok);
  EXPECT_EQ(f, bits(16777220.0f));
  ASSERT_EQ(parse<float>("-0", f), cell_result::ok);
  EXPECT_EQ(f, 0x80000000u);
  // Exact midpoints with a negative decimal exponent, settled by the exact comparison:
  // 256 + 2^-16 ties to 256, 3661874.625 to 3661874.5, 7008545940202925.5 (double) to ...926.
  ASSERT_EQ(parse<float>("256.0000152587890625", f), cell_result::ok);
  EXPECT_EQ(f, bits(256.0f));
  ASSERT_EQ(parse<float>("3661874.625", f), cell_result::ok);
  EXPECT_EQ(f, bits(3661874.5f));
  ASSERT_EQ(parse<float>("-3661874.875", f), cell_result::ok);
  EXPECT_EQ(f, bits(-3661875.0f));
  std::uint64_t d = 0;
  ASSERT_EQ(parse<double>("700.85459402029255e13", d), cell_result::ok);
  EXPECT_EQ(d, bits(7008545940202926.0));
  // ... and just above one, with a 20th digit: that is for the host.
  EXPECT_EQ(parse<float>("256.000015258789062500001", f), cell_result::undecided);
  // Overflow reads as infinity with its sign, like strtof.
  ASSERT_EQ(parse<float>("-1e39", f), cell_result::out_of_range);
  EXPECT_EQ(f, 0xff800000u);
}

// Every cell, valid or not, is classified as the host reader classifies it (csv_cells.hpp), and
// the values agree wherever the host stores one.
TEST(CsvCudaNumber, CellsClassifiedLikeTheHostReader) {
  const std::string alphabet = "0123456789.+-eEnNaAiIfFtTyYlLuUoO/ x#_";
  std::mt19937_64 rng(5);
  const std::vector<std::string> fixed = {
      "",     "nan",  "NaN",  "+nan", "-NAN",   "na",       "N/A",       "null", "NULL",
      "none", "None", "inf",  "-inf", "+INF",   "infinity", "-Infinity", "+-1",  "-+1",
      "+",    "-",    ".",    "+.",   "-.",     "1e",       "1e+",       "1e-",  "e5",
      ".e5",  "1.e5", "1e5x", "0x10", "nan(1)", "infinit",  "infinityy", "n/",   "+-nan",
      "--1",  "++1",  " 1",   "1 ",   "1.2.3",  "1_0",      "+-.5",      "-0",   "+0.0e-0"};
  auto check = [&](const std::string& s) {
    double host_d = 0;
    float host_f = 0;
    const host::cell_status hd = host::parse_float_cell(std::string_view(s), host_d);
    const host::cell_status hf = host::parse_float_cell(std::string_view(s), host_f);
    std::uint64_t d = 0;
    std::uint32_t f = 0;
    const cell_result rd = parse<double>(s, d);
    const cell_result rf = parse<float>(s, f);
    for (auto [mine, theirs, same_bits] :
         {std::tuple{rd, hd, d == bits(host_d)}, std::tuple{rf, hf, f == bits(host_f)}}) {
      if (mine == cell_result::undecided) {
        EXPECT_TRUE(theirs == host::cell_status::ok || theirs == host::cell_status::out_of_range) << '"' << s << '"';
        continue;
      }
      ASSERT_EQ(static_cast<int>(mine), static_cast<int>(theirs)) << '"' << s << '"';
      if (theirs != host::cell_status::bad) {
        EXPECT_TRUE(same_bits) << '"' << s << '"';
      }
    }
    std::int64_t host_i = 0, mine_i = 0;
    const host::cell_status hi = host::parse_int_cell(std::string_view(s), host_i);
    const cell_result ri = num::parse_int_cell(s.data(), s.data() + s.size(), mine_i);
    ASSERT_EQ(ri == cell_result::ok, hi == host::cell_status::ok) << '"' << s << '"';
    if (hi == host::cell_status::ok) {
      EXPECT_EQ(mine_i, host_i) << '"' << s << '"';
    }
  };
  for (const auto& s : fixed) check(s);
  for (int i = 0; i < 1'000'000; ++i) {
    std::string s;
    const auto length = rng() % 9;
    for (std::size_t k = 0; k < length; ++k) s += alphabet[rng() % alphabet.size()];
    check(s);
  }
}

TEST(CsvCudaNumber, Int64CellsLikeStrtoll) {
  std::mt19937_64 rng(11);
  const std::vector<std::string> fixed = {"0",
                                          "-0",
                                          "+0",
                                          "007",
                                          "-007",
                                          "9223372036854775807",
                                          "-9223372036854775808",
                                          "9223372036854775808",
                                          "-9223372036854775809",
                                          "99999999999999999999",
                                          "00000000000000000000000000042",
                                          "+-1",
                                          "-",
                                          "+"};
  auto check = [](const std::string& s) {
    std::int64_t v = 0, want = 0;
    const cell_result r = num::parse_int_cell(s.data(), s.data() + s.size(), v);
    const host::cell_status h = host::parse_int_cell(std::string_view(s), want);
    ASSERT_EQ(r == cell_result::ok, h == host::cell_status::ok) << s;
    if (r == cell_result::ok) {
      errno = 0;
      EXPECT_EQ(v, std::strtoll(s.c_str(), nullptr, 10)) << s;
      EXPECT_EQ(errno, 0) << s;
    }
  };
  for (const auto& s : fixed) check(s);
  for (int i = 0; i < 200'000; ++i) {
    const auto v = static_cast<std::int64_t>(rng()) >> (rng() % 64);
    std::string s = std::to_string(v);
    if (v >= 0 && rng() % 4 == 0) s.insert(0, 1, '+');
    if (rng() % 8 == 0) s.insert(s[0] == '-' || s[0] == '+' ? 1 : 0, rng() % 5, '0');
    check(s);
  }
}
