#pragma once
/// @file corrections.hpp
/// A Holter reader's corrections to a run's results: beats and whole shape families re-labelled,
/// AF episodes removed or added. They come as a small JSON file (the report page exports it;
/// docs/holter.md gives the format):
///
///     {"zeroflow_corrections": 1, "samples": 650000,
///      "families": [{"family": 2, "class": "N"}],
///      "beats": [{"beat": 1041, "class": "V"}],
///      "af_episodes": {"remove": [{"first_beat": 10, "last_beat": 300}],
///                      "add": [{"first_beat": 900, "last_beat": 1200}]}}
///
/// and are applied in that order (a beat's own correction wins over its family's; an added episode
/// merges with those it overlaps). `samples`, when given, must be the recording's: corrections made
/// on one recording are never applied to another. Applying them rewrites every result that holds
/// classes or rhythm — beats.csv (class, af), beats.atr, episodes.csv, events.csv, summary.json
/// (classes, holter and a record of the corrections) and report.html's data — from the run's own
/// files, so that they stay consistent; the model's scores are not touched.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace zeroflow::report {

struct beat_relabel {
  std::int64_t beat = 0;
  char beat_class = 'N';
};

struct family_relabel {
  std::int32_t family = 0;
  char beat_class = 'N';
};

/// Beats first..last (inclusive).
struct beat_span {
  std::int64_t first_beat = 0, last_beat = 0;
};

struct corrections {
  std::string name = "corrections";  ///< the file they came from, as messages name it
  std::int64_t samples = -1;         ///< the recording's length, when the file states it (-1: not stated)
  std::vector<family_relabel> families;
  std::vector<beat_relabel> beats;
  std::vector<beat_span> remove_af, add_af;
};

/// @brief Reads a corrections file.
/// @throws zeroflow::parse_error naming the file and what is wrong (not JSON, an unknown key, a
///         class other than N S V Q, a negative index, first_beat after last_beat)
[[nodiscard]] corrections read_corrections(const std::filesystem::path& path);
/// The same from text; `name` stands for the file in messages.
[[nodiscard]] corrections parse_corrections(std::string_view text, const std::string& name);

/// What applying corrections changed.
struct correction_outcome {
  std::int64_t beats_relabelled = 0;  ///< beats whose class changed
  std::int64_t episodes_before = 0, episodes_after = 0;
};

/**
 * @brief Writes the results of the run in `results` with `fix` applied into the folder `to` (which
 *        may be `results` itself only when the caller accepts files replaced one by one; the CLI
 *        writes to a staging folder and moves the set in together).
 * @throws zeroflow::error when `results` is not the output of a run with classes (beats.csv,
 *         summary.json with "holter"), its files disagree with each other, or `fix` names a beat,
 *         family or episode the run does not have, or another recording (`samples`)
 */
correction_outcome write_corrected_results(const std::filesystem::path& results, const corrections& fix,
                                           const std::filesystem::path& to);

/// The results write_corrected_results rewrites, by name (report.html only where the run wrote one).
[[nodiscard]] const std::vector<std::string>& corrected_result_names();

}  // namespace zeroflow::report
