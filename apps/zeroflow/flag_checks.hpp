#pragma once
// Checks of the numeric flags that set no run option: `generate`'s, `evaluate`'s, `run --jobs` and
// the like, which CLI11 runs while parsing (usage errors, exit code 2). A flag that sets a run
// option takes its check from the library's table of them instead (run_option_flags.hpp). These
// describe their range as a table entry does and the library checks it, so that every flag's
// range reads, and a value is refused, alike: the message says what was typed and the range.
#include <CLI/CLI.hpp>
#include <string>

#include "zeroflow/io/recording.hpp"

namespace zeroflow::cli {

/// @brief A number in [low, high], or [low, high) when `high_open`; `unit` follows the range in
/// --help and in the message (e.g. "Hz", "s", "" for none).
CLI::Validator number_in(double low, double high, const std::string& unit, bool high_open = false);

/// @brief A whole number in [low, high].
CLI::Validator integer_in(long long low, long long high);

/// @brief A whole number from 0 to 2^64 - 1 (a seed): "-1" is refused, not wrapped around.
CLI::Validator unsigned_integer();

/// @brief A number greater than 0 and at most `high` (e.g. hours of a recording).
CLI::Validator positive_up_to(double high, const std::string& unit);

/// Sample rates a run and `generate` accept: below 50 Hz the QRS complex is a sample or two wide;
/// above 100 kHz a beat's row alone would exceed a megabyte (and such a rate is usually a typo).
inline constexpr double lowest_sample_rate = io::lowest_sample_rate;
inline constexpr double highest_sample_rate = io::highest_sample_rate;

}  // namespace zeroflow::cli
