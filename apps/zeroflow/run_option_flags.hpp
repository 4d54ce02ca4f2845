#pragma once
// The flags of `run` and `score` that set the run's options, made from the library's table of them
// (zeroflow/pipeline/run_option_table.hpp): their defaults, ranges and help text are the library's,
// and so is the check of a value; a value it refuses is a usage error (exit 2) in the flag's
// spelling. The spellings are the command line's own: every option takes the library's flag
// (pipeline::option_flag: --max-device-memory), and a few are known by a shorter or older one first.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroflow/pipeline/run_option_table.hpp"

namespace zeroflow::cli {

/// The run options given on the command line, as (library name, value text), in order.
using given_options = std::vector<std::pair<std::string, std::string>>;

/// @brief Adds a flag for every option of the table that `run` (training) or `score` (not
///        training) takes; each value given is checked and appended to `given`.
void add_run_option_flags(CLI::App& cmd, bool training, given_options& given);

/// @brief Adds the flag of the table's option `name` to another command that takes the same value
///        (`timeseries --io`): the table's flag, help, default and check; `on_value` gets each value
///        the check accepts. `help`, when given, says what the value means to that command instead.
void add_run_option_flag(CLI::App& cmd, std::string_view name, std::function<void(const std::string&)> on_value,
                         std::string_view help = {});

/// The command line's names of a run option, CLI11 style, the one --help and messages use first:
/// "--min-beat,--min-beat-seconds", "--lead,--column,-c", "--max-device-memory"; empty for an
/// option of the library only.
[[nodiscard]] std::string flag_names(const pipeline::option_info& option);

/// A library message with its options in the command line's spelling (--max-device-memory).
[[nodiscard]] std::string in_flag_terms(const std::string& message);

}  // namespace zeroflow::cli
