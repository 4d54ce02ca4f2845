#pragma once
// Checks of numeric flags that CLI11 runs while parsing (usage errors, exit code 2). Each says its
// range in --help exactly as it checks it, and a refusal says what was typed, the range, and, where
// a unit mix-up is likely, what was probably meant.
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

/// @brief Seconds of a heartbeat: in (0, `longest`]. A value that only makes sense in
/// milliseconds (1024 for 1.024 s) is refused with that reading suggested.
CLI::Validator beat_seconds(double longest);

/// The longest beat (--min-beat, --max-beat) a run accepts: a pause before a beat longer than
/// this is asystole, not a beat, and rows grow with it (the seed's rows are this wide).
inline constexpr double longest_beat_seconds = 10.0;

/// Sample rates a run and `generate` accept: below 50 Hz the QRS complex is a sample or two wide;
/// above 100 kHz a beat's row alone would exceed a megabyte (and such a rate is usually a typo).
inline constexpr double lowest_sample_rate = io::lowest_sample_rate;
inline constexpr double highest_sample_rate = io::highest_sample_rate;

}  // namespace zeroflow::cli
