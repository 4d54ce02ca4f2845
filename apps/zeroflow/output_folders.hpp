#pragma once
// Output folders of `zeroflow run` / `score`: names made from input files, and folders that a failed
// run takes back. Input file names are untrusted: "...csv" has the stem "..", so a name used as given
// could put outputs, and the clean-up of a failure, outside --out.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "zeroflow/io/output_names.hpp"

namespace zeroflow::cli {

// Folder names for a batch's recordings are the library's (the Python module names them alike).
using io::distinct_folder_names;
using io::folder_name_for;

/// A folder made for a run's outputs; `created` is the outermost directory that did not exist
/// before (empty when the folder was already there), with its identity and the resolved folder it
/// was made in, so that a failed run removes exactly what it made and nothing that took its place.
struct output_folder {
  std::filesystem::path path;
  std::filesystem::path created;
  std::filesystem::path created_in;
  std::uintmax_t device = 0, inode = 0;
};

/// @brief Makes `folder` and its missing parents.
/// @param folder the output folder
/// @param within when not empty, `folder` must resolve to a direct child of this folder (not a link
///        out of it): a batch's per-recording folder stays inside --out
/// @throws zeroflow::error when the folder cannot be made, is not a folder, or leads out of `within`
output_folder make_output_folder(const std::filesystem::path& folder, const std::filesystem::path& within = {});

/// @brief Removes what make_output_folder created, if anything, and only when the path still is the
/// very directory it made, and still lies where it was made. Never throws: a failed clean-up is left
/// for the person to see rather than widened.
void remove_created(const output_folder& folder) noexcept;

}  // namespace zeroflow::cli
