#pragma once
/// @file run_option_table.hpp
/// Every option of a run (run_options), described once: its name as the library knows it, its
/// default, its range and unit, and its help text. The fronts are made from this table — the CLI's
/// `run`/`score` flags and their --help, the checks of the values a Python call passes, Python's
/// keyword arguments (generated from it), the flags the Dask front forwards — so that an option or a
/// default is written in one place. A front's spellings are its own: the CLI's flags and aliases in
/// apps/zeroflow/run_option_flags.cpp, Python's keywords are the names.
///
/// Option names in the library's messages are written between backquotes (`max_device_memory`);
/// spell_options() puts them in a front's own spelling (--max-device-memory, max_device_memory=).
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zeroflow/pipeline/run_types.hpp"

namespace zeroflow::pipeline {

/// What kind of value an option takes (how its text is read and checked).
enum class option_kind {
  number,        ///< a finite number from low to high (each end open or closed: low_open, high_open)
  beat_seconds,  ///< seconds of a heartbeat, as number; a value in milliseconds is pointed out
  integer,       ///< a whole number from low to high (ends as number)
  seed,          ///< a whole number from 0 to 2^64 - 1
  choice,        ///< one of `choices`
  byte_size,     ///< bytes, or a size such as 2G or 512M (parse_byte_size); at least `low`
  text,          ///< any text (a lead's name or index)
  path,          ///< a file
  flag,          ///< true or false; on the command line a flag without a value
};

/// Which commands take an option.
enum class option_use {
  both,      ///< `run` and `score`
  training,  ///< `run` only: how a model is trained
  scoring,   ///< `score` only
  library,   ///< the library and Python only; no flag on the command line
};

/// One option. An entry of the table states only what differs from these defaults.
struct option_info {
  std::string_view name{};  ///< the library's and Python's name: "max_device_memory"
  option_kind kind = option_kind::text;
  option_use use = option_use::both;
  std::string_view default_text{};  ///< the default as a value's text ("30", "robust"); empty: none
  double low = 0;                   ///< number, beat_seconds, integer, byte_size
  double high = 0;                  ///< number, beat_seconds, integer
  bool low_open = false;            ///< low itself is refused: (low, high] (a window or a gain of 0 means nothing)
  bool high_open = false;           ///< high itself is refused: [low, high)
  std::string_view unit{};          ///< "Hz", "s", ... after a range; empty for none
  std::vector<std::string_view> choices{};  ///< choice
  std::string_view help{};                  ///< for a person, in no front's spelling
  std::string_view group{};                 ///< a heading for --help and docstrings
  /// Puts a checked value into the options.
  void (*apply)(run_options&, std::string_view) = nullptr;
  /// The options' value as text (what `default_text` must equal for default run_options).
  std::string (*value)(const run_options&) = nullptr;
};

/// The table, in the order --help lists it.
[[nodiscard]] std::span<const option_info> run_option_table();

/// @brief The entry named `name` (the library's spelling).
/// @throws zeroflow::invalid_argument for a name that is no option, with the names there are.
[[nodiscard]] const option_info& run_option(std::string_view name);

/// An option's flag on a command line by the library's rule: "--" and the name with "-" for "_"
/// ("--max-device-memory"); empty for an option of the library only. The CLI takes it for every
/// option, beside its own spellings (apps/zeroflow/run_option_flags.cpp); zeroflow.dask takes it.
[[nodiscard]] std::string option_flag(const option_info& option);

/// option_flag and a space ("--max-device-memory "), empty where there is no flag: the
/// option_speller of a command line that takes the library's flags (zeroflow.dask's).
[[nodiscard]] std::string flag_before_value(const option_info& option);

/// @brief Checks a value's text against the option's kind and range.
/// @throws zeroflow::invalid_argument saying what is wrong with `text` (the reason only; the
///         caller names the option in its own spelling).
void check_option_text(const option_info& option, std::string_view text);

/// A range for --help and docstrings ("in [50, 100000] Hz"); empty for kinds without one.
[[nodiscard]] std::string option_range_text(const option_info& option);

/// @brief Sets options from (name, value text) pairs, in order, on top of the defaults, and then
///        what depends on the choices made: the MLP autoencoder trains as its notebook does (100
///        epochs, every beat in one batch) unless epochs or batch were given, and a given
///        sample_rate is the caller's statement (a file that states another one is refused).
/// @throws zeroflow::invalid_argument naming the option (`name`=value: why) for an unknown name
///         or a value its check refuses, or for options that contradict each other.
[[nodiscard]] run_options make_run_options(const std::vector<std::pair<std::string, std::string>>& given);

/// @brief Refuses options that contradict each other (min_beat_seconds not below
///        max_beat_seconds; max_device_memory with the seed's segmentation).
/// @throws zeroflow::invalid_argument naming both options.
void check_run_options(const run_options& options);

/// How a front writes an option before a value: "--max-device-memory " on a command line,
/// "max_device_memory=" in Python; empty for an option the front does not have.
using option_speller = std::string (*)(const option_info& option);

/// @brief A message with every `name` of this table in the front's spelling: `name`=value becomes
///        spelled(option) + value ("--flag value", "name=value"), a bare `name` the same without a
///        trailing space ("--flag", "name="). Other backquoted text is left as it is.
[[nodiscard]] std::string spell_options(std::string_view message, option_speller spelled);

}  // namespace zeroflow::pipeline
