#include "flag_checks.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

namespace zeroflow::cli {

namespace {

/// The flag's text as a finite number, or nothing.
std::optional<double> number_of(const std::string& text) {
  double value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;  // "+5" is five, as CLI11 reads it
  const auto [end, ec] = std::from_chars(first, last, value);
  if (first == last || ec != std::errc{} || end != last || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string shown(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

std::string with_unit(const std::string& range, const std::string& unit) {
  return unit.empty() ? range : range + " " + unit;
}

}  // namespace

CLI::Validator number_in(double low, double high, const std::string& unit, bool high_open) {
  const std::string range = with_unit("in [" + shown(low) + ", " + shown(high) + (high_open ? ")" : "]"), unit);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const auto v = number_of(text);
        if (!v) return "'" + text + "' is not a number; expected a number " + range;
        if (*v < low || *v > high || (high_open && *v == high)) return shown(*v) + " is not " + range;
        return {};
      },
      range);
}

CLI::Validator integer_in(long long low, long long high) {
  const std::string range = "in [" + std::to_string(low) + ", " + std::to_string(high) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        long long value = 0;
        const char* first = text.data();
        const char* last = text.data() + text.size();
        if (first != last && *first == '+') ++first;
        const auto [end, ec] = std::from_chars(first, last, value);
        if (first == last || end != last || ec == std::errc::invalid_argument)
          return "'" + text + "' is not a whole number; expected one " + range;
        if (ec == std::errc::result_out_of_range || value < low || value > high) return text + " is not " + range;
        return {};
      },
      range);
}

CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        unsigned long long value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || end != text.data() + text.size() || ec != std::errc{})
          return "'" + text + "' is not a whole number in [0, 2^64 - 1]";
        return {};
      },
      "in [0, 2^64 - 1]");
}

CLI::Validator positive_up_to(double high, const std::string& unit) {
  const std::string range = with_unit("in (0, " + shown(high) + "]", unit);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const auto v = number_of(text);
        if (!v) return "'" + text + "' is not a number; expected a number " + range;
        if (!(*v > 0) || *v > high) return shown(*v) + " is not " + range;
        return {};
      },
      range);
}

CLI::Validator beat_seconds(double longest) {
  const std::string range = "in (0, " + shown(longest) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const auto v = number_of(text);
        if (!v) return "'" + text + "' is not a number; expected seconds " + range;
        if (*v > 0 && *v <= longest) return {};
        std::string message = shown(*v) + " s is no heartbeat: expected seconds " + range;
        if (*v > longest && *v / 1000 <= longest)
          message += "; did you mean " + shown(*v / 1000) + " (" + shown(*v) + " ms)?";
        return message;
      },
      "seconds " + range);
}

}  // namespace zeroflow::cli
