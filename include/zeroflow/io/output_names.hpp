#pragma once
/// @file output_names.hpp
/// Names of the per-recording output folders of a batch (`zeroflow run A B ...`,
/// zeroflow.dask.run_many): made from the input files' names, which are untrusted. "...csv" has
/// the stem "..", so a name used as given could put outputs, and the clean-up of a failure,
/// outside the output folder. One implementation, so that the CLI and Python name folders alike.
#include <filesystem>
#include <string>
#include <vector>

namespace zeroflow::io {

/// @brief A folder name for a recording's outputs, made from its file name without the extension.
/// Separators, control characters and characters that some file systems refuse become '_'; leading
/// dots and trailing dots and spaces are dropped (so never "." or "..", never hidden); at most 200
/// bytes; an empty result becomes "recording".
/// @param input the recording's path as given
[[nodiscard]] std::string folder_name_for(const std::filesystem::path& input);

/// @brief One folder name per input, distinct even where case is ignored (macOS and Windows file
/// systems): the first input with a name keeps it, later ones get -2, -3, ... skipping every name
/// another input or `reserved` holds. Names are in the order of `inputs`.
/// @param inputs the recordings, as given
/// @param reserved names already used in the output folder by this run (e.g. "runs.csv")
[[nodiscard]] std::vector<std::string> distinct_folder_names(const std::vector<std::string>& inputs,
                                                             const std::vector<std::string>& reserved);

}  // namespace zeroflow::io
