#pragma once
/// @file recording.hpp
/// One entry point for an ECG recording in any format zeroflow reads: a WFDB record (`.hea`, or
/// the record's path without extension), an EDF/EDF+ file (`.edf`), or a CSV file (anything
/// else). It gives one signal (lead) in physical units, on the device that will process it.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::io {

struct recording_options {
  /// The signal to read: its name (case-insensitive; a CSV column's header) or its 0-based index.
  /// Empty: for WFDB and EDF the lead named MLII (else "ECG II" or "II"), else the first signal
  /// named like ECG (ECG/EKG in its name, or a standard lead name: I, II, III, aVR, aVL, aVF,
  /// V1-V6, MLI, MLIII), else the first in mV or uV, else the first signal; for CSV the first column.
  std::string lead;
  /// Where the signal ends up.
  device where{cpu_device};
  /// Worker threads; 0 = every core.
  unsigned threads{0};
  /// Optional progress report (done, total bytes), passed to the CSV reader; empty = none.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
};

/// One signal of a recording.
struct recording {
  array signal;                    ///< float32, 1-D, on recording_options::where, physical units
  double sample_rate = 0;          ///< samples per second; 0 when the file does not say (CSV)
  std::string lead;                ///< the chosen signal's name
  std::string units;               ///< its physical units ("mV", "uV", ...); empty for CSV
  std::vector<std::string> leads;  ///< every signal of the file (CSV: the column read)
};

/// @brief Reads one signal of a recording (see recording_options for which).
/// @param path    `NAME.hea` or `NAME` (when `NAME.hea` exists) for WFDB, `.edf` for EDF/EDF+,
///                anything else is CSV (read as io::read_csv does)
/// @param options see recording_options
/// @param stream  orders the copy to a CUDA device
/// @throws zeroflow::invalid_argument when the lead is not in the file (the message lists the
///         leads there).
/// @throws zeroflow::parse_error / zeroflow::error as the format's reader does (missing or
///         malformed files, named in the message); zeroflow::cuda_error for a CUDA device
///         without CUDA.
[[nodiscard]] recording read_recording(const std::filesystem::path& path, const recording_options& options = {},
                                       stream_view stream = {});

/// @brief The index of the signal read_recording picks by default among `names` (with their
///        `units`, same length or empty): MLII, else ECG II / II, else the first named like ECG,
///        else the first in mV or uV, else 0.
[[nodiscard]] std::size_t default_lead(const std::vector<std::string>& names, const std::vector<std::string>& units);

}  // namespace zeroflow::io
