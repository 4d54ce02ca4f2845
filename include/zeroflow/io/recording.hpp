#pragma once
/// @file recording.hpp
/// One entry point for an ECG recording in any format zeroflow reads: a WFDB record (`.hea`, or
/// the record's path without extension), an EDF/EDF+ file (`.edf`), raw little-endian samples
/// (`.f32`, `.i16`, `.i32`), or a CSV file (anything else). It gives one signal (lead) in physical
/// units, on the device that will process it.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/io/binary.hpp"

namespace zeroflow::io {

/// What a raw recording's bytes do not say about themselves: its extension gives the sample type
/// (raw_sample_type), this the rest. Its sample rate is the caller's to know.
struct raw_layout {
  /// Channels interleaved frame by frame (>= 1); recording_options::lead picks one by 0-based
  /// index or by its name, "channel N".
  std::size_t channels = 1;
  /// Stored units per physical unit (e.g. ADC units per mV): samples are divided by it. 1 takes
  /// them as they are.
  double gain = 1;
};

/// @brief The sample type a raw recording's extension names (case-insensitive): `.f32` float32,
///        `.i16` int16, `.i32` int32; nullopt for every other file.
[[nodiscard]] std::optional<binary_sample> raw_sample_type(const std::filesystem::path& path);

/// What read_recording reads a path as: WFDB (NAME.hea, or NAME when NAME.hea is beside it and NAME
/// itself is not a file), EDF (.edf), raw samples (raw_sample_type) or, anything else, CSV.
enum class recording_format { wfdb, edf, raw, csv };
[[nodiscard]] recording_format format_of(const std::filesystem::path& path);

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
  /// The layout of a raw recording (.f32, .i16, .i32); ignored for the other formats.
  raw_layout raw;
  /// Which signal files a WFDB header may name: by default only files in its own folder
  /// (wfdb.hpp). EDF and raw files name no other file.
  record_files files = record_files::own_folder;
  /// How the file's bytes reach a CUDA device (file_loading.hpp); host reads ignore it.
  io_method io = io_method::automatic;
};

/// One signal of a recording.
/// The sample rates the pipeline processes, whoever states them (a flag, a WFDB or an EDF header):
/// the band-pass and the windows scale with the rate, so an absurd rate would be unbounded work.
/// The readers themselves take any positive rate (a 16 Hz EDF signal is a valid file).
inline constexpr double lowest_sample_rate = 50.0;
inline constexpr double highest_sample_rate = 100000.0;

/// @brief Whether two sample rates are the same rate: equal to 1 part in 10^9 (a rate written as
///        text and read back, or computed from a frame count). The one test of "the same rate"
///        everywhere (a flag against a header, a model against a recording).
[[nodiscard]] constexpr bool same_sample_rate(double a, double b) noexcept {
  const double d = a > b ? a - b : b - a;
  return d <= 1e-9 * (a > b ? a : b);
}

struct recording {
  array signal;                    ///< float32, 1-D, on recording_options::where, physical units
  double sample_rate = 0;          ///< samples per second; 0 when the file does not say (CSV, raw)
  std::string lead;                ///< the chosen signal's name
  std::string units;               ///< its physical units ("mV", "uV", ...); empty for CSV and raw
  std::vector<std::string> leads;  ///< every signal of the file (CSV: every column; raw: "channel N")
};

/// @brief Reads one signal of a recording (see recording_options for which).
/// @param path    `NAME.hea` or `NAME` (when `NAME.hea` exists) for WFDB (formats 16 and 32 by
///                the binary fast path, read_wfdb_signal_to), `.edf` for EDF/EDF+, `.f32`, `.i16`
///                or `.i32` for raw samples (read_binary_signal with recording_options::raw);
///                anything else is CSV (read as io::read_csv does)
/// @param options see recording_options
/// @param stream  orders the copy to a CUDA device
/// @throws zeroflow::invalid_argument when the lead is not in the file (the message lists the
///         leads there).
/// @throws zeroflow::parse_error / zeroflow::error as the format's reader does (missing or
///         malformed files, named in the message; a raw file whose size is no whole number of
///         frames); zeroflow::cuda_error for a CUDA device without CUDA.
[[nodiscard]] recording read_recording(const std::filesystem::path& path, const recording_options& options = {},
                                       stream_view stream = {});

/// @brief Whether a signal's name is an ECG lead's: ECG or EKG in it, or a standard lead (I, II,
///        III, aVR, aVL, aVF, V1–V6, MLI, MLII, MLIII), case-insensitive.
[[nodiscard]] bool named_like_ecg(const std::string& name);

/// @brief The index of the signal read_recording picks by default among `names` (with their
///        `units`, same length or empty): MLII, else ECG II / II, else the first named like ECG,
///        else the first in mV or uV, else 0.
[[nodiscard]] std::size_t default_lead(const std::vector<std::string>& names, const std::vector<std::string>& units);

}  // namespace zeroflow::io
