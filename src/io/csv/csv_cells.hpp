#pragma once
// Private to src/io/csv: turning one cell's text into a number, with the missing-value rules of
// csv.hpp. The hot path of the reader calls fast_float / from_chars directly and only comes
// here for cells it could not take in one step.
#include <fast_float/fast_float.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <system_error>

#include "csv_grammar.hpp"

namespace zeroflow::io::detail {

enum class cell_status {
  ok,
  empty,         // nothing between the delimiters
  missing,       // a NaN/NA spelling
  infinite,      // an infinity spelling
  out_of_range,  // a number too large for the dtype
  bad,           // not a number
};

/// The missing-value spellings of csv.hpp (empty excluded), any letter case: the shared grammar's.
inline bool is_missing_spelling(std::string_view t) {
  return csv_grammar::is_missing_spelling(t.data(), t.data() + t.size());
}

/// +1 / -1 for an infinity spelling ("inf", "infinity", optionally signed), 0 otherwise.
inline int infinity_sign(std::string_view t) { return csv_grammar::infinity_sign(t.data(), t.data() + t.size()); }

/// Drops a '+' that starts a number (strtod takes it, from_chars does not); returns false when
/// what follows cannot start a number, so that "+-1", "nan(1)", "-inf" never reach from_chars.
inline bool number_start(std::string_view& t) {
  const bool plus = !t.empty() && t.front() == '+';
  if (plus) t.remove_prefix(1);
  std::size_t i = (!plus && !t.empty() && t.front() == '-') ? 1 : 0;  // one sign: "+-1" is no number
  return i < t.size() && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.');
}

/// Parses a whole cell as float/double. On empty/missing/infinite, `out` holds NaN / +-inf;
/// on out_of_range it holds +-inf (strtod's answer).
template <class T>
cell_status parse_float_cell(std::string_view t, T& out) {
  if (t.empty()) {
    out = std::numeric_limits<T>::quiet_NaN();
    return cell_status::empty;
  }
  if (is_missing_spelling(t)) {
    out = std::numeric_limits<T>::quiet_NaN();
    return cell_status::missing;
  }
  if (int sign = infinity_sign(t)) {
    out = sign * std::numeric_limits<T>::infinity();
    return cell_status::infinite;
  }
  if (!number_start(t)) return cell_status::bad;
  const char* last = t.data() + t.size();
  auto r = fast_float::from_chars(t.data(), last, out);
  if (r.ptr != last) return cell_status::bad;
  if (r.ec == std::errc::result_out_of_range || (r.ec == std::errc() && std::isinf(out))) {
    if (!std::isinf(out)) out = (t.front() == '-' ? -1 : 1) * std::numeric_limits<T>::infinity();
    return cell_status::out_of_range;
  }
  return r.ec == std::errc() ? cell_status::ok : cell_status::bad;
}

/// Parses a whole cell as int64.
inline cell_status parse_int_cell(std::string_view t, std::int64_t& out) {
  if (t.empty()) return cell_status::empty;
  if (is_missing_spelling(t)) return cell_status::missing;
  if (infinity_sign(t) != 0) return cell_status::infinite;
  if (!t.empty() && t.front() == '+') {
    t.remove_prefix(1);  // strtoll takes a '+', from_chars does not; "+-1" stays an error
    if (t.empty() || t.front() < '0' || t.front() > '9') return cell_status::bad;
  }
  const char* last = t.data() + t.size();
  auto r = std::from_chars(t.data(), last, out);
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars stops at the end of the digits either way; only a whole-cell overflow counts.
    return r.ptr == last ? cell_status::out_of_range : cell_status::bad;
  }
  return r.ec == std::errc() && r.ptr == last ? cell_status::ok : cell_status::bad;
}

/// True when the cell reads as a value of some numeric column (for header detection): a number,
/// empty, or a missing/infinity spelling.
inline bool looks_numeric(std::string_view t) {
  double v = 0;
  return parse_float_cell(t, v) != cell_status::bad;
}

}  // namespace zeroflow::io::detail
