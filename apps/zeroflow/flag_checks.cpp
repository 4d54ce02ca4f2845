#include "flag_checks.hpp"

#include <memory>
#include <utility>

#include "zeroflow/core/error.hpp"
#include "zeroflow/pipeline/run_option_table.hpp"

namespace zeroflow::cli {

namespace {

using pipeline::option_info;
using pipeline::option_kind;

/// A value of `kind` from `low` to `high`, described as a table entry describes one.
struct value_range {
  option_kind kind = option_kind::number;
  double low = 0, high = 0;
  bool low_open = false, high_open = false;
  std::string unit;
};

/// The library's check of a value in `range`, as CLI11 runs it; `shown` is the range in --help
/// (the library's own text when empty).
CLI::Validator checked(value_range range, std::string shown = {}) {
  // The validator outlives this call: the description it checks against holds its own unit.
  const auto held = std::make_shared<std::pair<value_range, option_info>>(std::move(range), option_info{});
  option_info& o = held->second;
  o.kind = held->first.kind;
  o.low = held->first.low;
  o.high = held->first.high;
  o.low_open = held->first.low_open;
  o.high_open = held->first.high_open;
  o.unit = held->first.unit;
  if (shown.empty()) shown = pipeline::option_range_text(o);
  return CLI::Validator(
      [held](std::string& text) -> std::string {
        try {
          pipeline::check_option_text(held->second, text);
          return {};
        } catch (const invalid_argument& e) {
          return e.what();
        }
      },
      shown);
}

}  // namespace

CLI::Validator number_in(double low, double high, const std::string& unit, bool high_open) {
  return checked(
      {.kind = option_kind::number, .low = low, .high = high, .low_open = false, .high_open = high_open, .unit = unit});
}

CLI::Validator integer_in(long long low, long long high) {
  return checked({.kind = option_kind::integer,
                  .low = static_cast<double>(low),
                  .high = static_cast<double>(high),
                  .low_open = false,
                  .high_open = false,
                  .unit = ""});
}

CLI::Validator unsigned_integer() {
  return checked({.kind = option_kind::seed, .low = 0, .high = 0, .low_open = false, .high_open = false, .unit = ""},
                 "in [0, 2^64 - 1]");
}

CLI::Validator positive_up_to(double high, const std::string& unit) {
  return checked(
      {.kind = option_kind::number, .low = 0, .high = high, .low_open = true, .high_open = false, .unit = unit});
}

}  // namespace zeroflow::cli
