#pragma once
// Shared by the tests of read_csv's CUDA path: random CSV files with every quirk the reader
// accepts (CRLF, comments, blank lines, quotes, blanks around fields, text columns, missing
// values), random decimals of every shape, and one-line corruptions that make the file bad.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "zeroflow/io/csv.hpp"

namespace zeroflow::test {

inline std::string random_digits(std::mt19937_64& rng, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += static_cast<char>('0' + rng() % 10);
  return s;
}

/// A decimal the host reader takes as a number: exponents, 20+ digits, subnormals, zeros and
/// negative zero, integers, a leading '+', ".5" and "5.", float halfway points. Within float32's
/// range (underflow included) unless `wide`, which allows any double.
inline std::string random_number(std::mt19937_64& rng, bool wide = false) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string s = pick(4) == 0 ? "-" : pick(8) == 0 ? "+" : "";
  char buffer[256];
  switch (pick(10)) {
    case 0:  // ECG-like
      return s + random_digits(rng, pick(2)) + "." + random_digits(rng, 1 + pick(9));
    case 1:  // exponents
      return s + random_digits(rng, 1 + pick(4)) + (pick(2) ? "." + random_digits(rng, pick(8)) : "") +
             (pick(2) ? "e" : "E") +
             (pick(2)   ? "-"
              : pick(2) ? "+"
                        : "") +
             std::to_string(pick(wide ? 300 : 34));
    case 2:  // 20 to 50 significant digits
      return s + random_digits(rng, 1 + pick(25)) + "." + random_digits(rng, pick(25) + 1);
    case 3: {  // round trips of random doubles
      double v;
      std::uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof v);
      // few digits of a value near the largest double (or float) may round past it: overflow
      if (!std::isfinite(v) || std::fabs(v) > (wide ? 1e307 : 1e38)) v = 0.5;
      std::snprintf(buffer, sizeof buffer, "%.*g", 1 + pick(17), std::fabs(v));
      return s + buffer;
    }
    case 4:  // float subnormals and underflow, double subnormals
      return s + random_digits(rng, 1) + "." + random_digits(rng, pick(12)) + "e-" +
             std::to_string(pick(2) ? 36 + pick(12) : 300 + pick(25));
    case 5:  // zeros
      return s + (pick(2) ? "0" : "0.") + std::string(static_cast<std::size_t>(pick(3)), '0') +
             (pick(2) ? "e" + std::to_string(pick(100) - 50) : "");
    case 6:  // integers
      return s + random_digits(rng, 1 + pick(21));
    case 7: {  // exact float halfway points (hard rounding)
      float f;
      auto bits = static_cast<std::uint32_t>(rng()) & 0x7f7fffffu;
      if (bits == 0x7f7fffffu) --bits;  // the largest float has no finite neighbour above
      std::memcpy(&f, &bits, sizeof f);
      const double mid = (static_cast<double>(f) + static_cast<double>(std::nextafter(f, 2 * f + 1))) / 2;
      std::snprintf(buffer, sizeof buffer, "%.*e", 60 + pick(60), mid);
      return s + buffer;
    }
    case 8:  // ".5", "5."
      return s + (pick(2) ? "." + random_digits(rng, 1 + pick(6)) : random_digits(rng, 1 + pick(6)) + ".");
    default: {  // round trips of random floats
      float f;
      auto bits = static_cast<std::uint32_t>(rng());
      std::memcpy(&f, &bits, sizeof f);
      if (!std::isfinite(f)) f = 0.25f;
      std::snprintf(buffer, sizeof buffer, "%.*g", 6 + pick(4), std::fabs(static_cast<double>(f)));
      return s + buffer;
    }
  }
}

/// How a random file looks.
struct random_csv_spec {
  std::int64_t rows{1000};
  char delimiter{','};
  int crlf{0};  // 0: "\n", 1: "\r\n", 2: mixed
  bool final_newline{true};
  bool comments{true};  // comment and blank lines between rows
  bool quotes{true};    // quoted cells, quoted text with delimiters and doubled quotes
  bool blanks{true};    // spaces/tabs around cells
  bool missing{false};  // empty cells and NaN/inf spellings (read with na_policy::nan)
};

/// A random file with columns t (int64), label (text, never parsed), x (float32), y (float64),
/// and the options that read it; data_lines holds the 0-based physical line of every row.
struct random_csv {
  std::string text;
  io::csv_options options;
  std::vector<std::size_t> data_lines;
};

inline random_csv make_random_csv(std::mt19937_64& rng, const random_csv_spec& spec) {
  random_csv f;
  const std::string d(1, spec.delimiter);
  std::size_t line = 0;
  auto eol = [&] {
    ++line;
    return spec.crlf == 1 || (spec.crlf == 2 && rng() % 2 == 0) ? std::string("\r\n") : std::string("\n");
  };
  auto blank = [&] {  // a tab is no blank when it is the delimiter
    if (!spec.blanks || rng() % 8 != 0) return std::string();
    return std::string(rng() % 2 || spec.delimiter == '\t' ? " " : "\t");
  };
  auto maybe_quoted = [&](std::string cell) { return spec.quotes && rng() % 10 == 0 ? "\"" + cell + "\"" : cell; };
  auto number = [&](bool allow_missing, bool wide) {
    if (allow_missing && spec.missing && rng() % 20 == 0) {
      static const char* spellings[] = {"", "nan", "NA", "n/a", "null", "None", "-nan", "inf", "-Infinity", "1e39"};
      return std::string(spellings[rng() % 10]);
    }
    return random_number(rng, wide);
  };
  if (spec.comments) f.text += "# generated" + eol();
  f.text += "t" + d + "label" + d + "\"x\"" + d + "y" + eol();
  for (std::int64_t r = 0; r < spec.rows; ++r) {
    if (spec.comments && rng() % 50 == 0) {
      f.text +=
          (rng() % 2 ? "# comment" + d + " with" + d + " delimiters" : std::string(rng() % 2 ? "" : " \t")) + eol();
      --r;
      continue;
    }
    const auto t = static_cast<std::int64_t>(rng()) >> (rng() % 64);
    std::string label = "plain" + std::to_string(rng() % 1000);
    if (spec.quotes && rng() % 6 == 0) label = "\"a" + d + " \"\"quoted\"\" label\"";
    if (rng() % 9 == 0) label.clear();
    f.data_lines.push_back(line);
    f.text += blank() + maybe_quoted(std::to_string(t)) + blank() + d + label + d + blank() +
              maybe_quoted(number(true, false)) + blank() + d + maybe_quoted(number(true, true)) + blank();
    if (r + 1 < spec.rows || spec.final_newline) f.text += eol();
  }
  f.options.delimiter = spec.delimiter;
  f.options.columns = {"x", "y", "t"};
  f.options.types = {{"y", float64}, {"t", int64}};
  f.options.na = spec.missing ? io::na_policy::nan : io::na_policy::error;
  return f;
}

/// Replaces physical line `line` (0-based) of `text` with `replacement` (its line end kept).
inline std::string replace_line(const std::string& text, std::size_t line, const std::string& replacement) {
  std::size_t begin = 0;
  for (std::size_t i = 0; i < line; ++i) begin = text.find('\n', begin) + 1;
  std::size_t end = text.find('\n', begin);
  if (end == std::string::npos) end = text.size();
  if (end > begin && text[end - 1] == '\r') --end;
  return text.substr(0, begin) + replacement + text.substr(end);
}

/// A data line that the reader of make_random_csv's options refuses (for every error kind).
inline std::string bad_line(std::mt19937_64& rng, char delimiter) {
  const std::string d(1, delimiter);
  switch (rng() % 12) {
    case 0:
      return "1" + d + "a" + d + "2";  // too few fields
    case 1:
      return "1" + d + "a" + d + "2" + d + "3" + d + "4";  // too many fields
    case 2:
      return "1" + d + "a" + d + "abc" + d + "3";  // not a number
    case 3:
      return "1" + d + "a" + d + "" + d + "3";  // empty (an error without na_policy::nan)
    case 4:
      return "1" + d + "a" + d + "\"2" + d + "3";  // unclosed quote
    case 5:
      return "1" + d + "a" + d + "\"2\"x" + d + "3";  // text after the closing quote
    case 6:
      return "1.5" + d + "a" + d + "2" + d + "3";  // not an int64
    case 7:
      return "1" + d + "a" + d + "1e39" + d + "3";  // out of range for float32
    case 8:
      return "1" + d + "a" + d + "2" + d + "1e-5x";  // trailing text
    case 9:
      return "99999999999999999999" + d + "a" + d + "2" + d + "3";  // int64 overflow
    case 10:
      return "1" + d + "a" + d + "2 # note" + d + "3";  // a comment after data
    default:
      return "1" + d + "a" + d + "0x1p3" + d + "3";  // hexadecimal
  }
}

}  // namespace zeroflow::test
