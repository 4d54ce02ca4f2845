#pragma once
// Checks a command makes before its long work: that every file it will read can be read (a FIFO
// would make it wait forever), that a labels file parses (or is dropped with a warning), and that
// `generate` has the disk space and memory for the recording it is asked for.
#include <filesystem>
#include <optional>
#include <string>

#include "zeroflow/io/wfdb.hpp"

namespace zeroflow::cli {

/// @brief Refuses a file that cannot be read before any work starts.
/// @param path the file as given
/// @param what what it should be, for the message ("recording", "model", "labels")
/// @throws zeroflow::error when it is missing, a folder, not a regular file (a FIFO, socket or
///         device: reading one would wait for a writer forever) or not readable
void require_readable_file(const std::filesystem::path& path, const std::string& what);

/// @brief Refuses to write `path` when something other than a regular file has that name (a
/// folder, a link, a FIFO, a device such as /dev/null): a file is written beside it and renamed
/// over it, which would replace that thing itself.
/// @param what what the file is, for the message ("the CSV", "--json")
void require_replaceable_file(const std::filesystem::path& path, const std::string& what);

/// @brief Refuses a recording that cannot be read: the file itself and, for a WFDB header
/// (NAME.hea), every signal file it names, which must lie in the record's folder unless `files`
/// allows any (io::wfdb_signal_path).
void require_readable_recording(const std::filesystem::path& path, io::record_files files);

/// @brief The labels file when it can be read; otherwise a warning through `warn` and nothing
/// (a labels file that cannot be read never fails a run).
[[nodiscard]] std::optional<std::filesystem::path> readable_labels(const std::filesystem::path& path,
                                                                   void (*warn)(const std::string&));

/// @brief Refuses a recording of `samples` samples written with `bytes_per_sample` bytes each
/// (plus `extra_bytes`) when the disk holding `file` has less free space, or when its samples
/// would not fit in this machine's memory.
/// @throws zeroflow::error saying how much is needed and how much there is
void require_room_for_recording(const std::filesystem::path& file, double samples, double bytes_per_sample,
                                double extra_bytes);

}  // namespace zeroflow::cli
