#pragma once
/// @file wfdb.hpp
/// WFDB records (PhysioNet's format): the header file (`NAME.hea`) and the signal files it names.
///
/// Header (one record line, one line per signal, `#` comment lines anywhere, blank lines ignored):
/// - record line: `NAME NSIG [FS[/COUNTERFREQ[(BASECOUNTER)]] [NSAMP [BASETIME [BASEDATE]]]]`;
///   FS is frames per second (default 250), NSAMP the number of frames (0 or absent: as many as
///   the signal file holds). Multi-segment records (`NAME/NSEG`) are refused.
/// - signal line: `FILE FORMAT[xSPF][:SKEW][+OFFSET] [GAIN[(BASELINE)][/UNITS] [ADCRES [ADCZERO
///   [INITVAL [CHECKSUM [BLOCKSIZE [DESCRIPTION]]]]]]]`. A gain of 0 (or none) means 200 ADC units
///   per physical unit, the baseline defaults to ADCZERO, units to "mV", and the description,
///   the rest of the line, names the signal (e.g. "MLII").
///
/// Signal files: storage formats 8 (first differences), 16, 24, 32 (little-endian two's
/// complement), 61 (big-endian 16-bit), 80, 160 (offset binary), 212 (two 12-bit samples in 3
/// bytes), 310 (three 10-bit samples in two 16-bit words), 311 (three 10-bit samples in a 32-bit
/// word). Signals that share a file are interleaved frame by frame, each with its samples per
/// frame (SPF); a file holds one format. A record may spread its signals over several files.
///
/// Where a record reads: a signal file is named relative to the header's folder, and by default
/// it must stay there (record_files::own_folder): no absolute path and no `..` component, so that
/// a header received from elsewhere cannot make zeroflow read the rest of the machine. The check
/// is on the name alone, before any file is touched, so its message says nothing about the file.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zeroflow/core/array.hpp"

namespace zeroflow::io {

/// One signal line of a WFDB header, with the defaults of the WFDB specification filled in.
struct wfdb_signal {
  std::string file_name;           ///< signal file, relative to the header's folder
  int format = 0;                  ///< storage format (8, 16, 24, 32, 61, 80, 160, 212, 310, 311)
  int samples_per_frame = 1;       ///< samples of this signal in each frame (its rate / FS)
  int skew = 0;                    ///< frames by which this signal's samples are stored late
  std::int64_t byte_offset = 0;    ///< bytes before the first sample of its file
  double gain = 200;               ///< ADC units per physical unit (never 0)
  std::int64_t baseline = 0;       ///< the digital value of physical zero
  std::string units = "mV";        ///< physical units (UTF-8; Latin-1 bytes are converted)
  int adc_resolution = 12;         ///< bits
  std::int64_t adc_zero = 0;       ///< the digital value at the middle of the ADC's range
  std::int64_t initial_value = 0;  ///< the first sample (format 8: the value its differences start from)
  std::optional<int> checksum;     ///< 16-bit sum of the stored samples, when the header gives it
  int block_size = 0;              ///< 0 unless the file is a special device
  std::string description;         ///< the signal's name, e.g. "MLII"; may be empty
};

/// Which signal files a WFDB header may name (see the file comment).
enum class record_files {
  own_folder,  ///< only files in the header's folder or below it (the default)
  anywhere,    ///< any path the header gives: absolute, or out through `..`; for headers the user trusts
};

/// A parsed WFDB header.
struct wfdb_header {
  std::string record_name;
  double frame_frequency = 250;  ///< frames per second
  double counter_frequency = 0;  ///< 0 when the header gives none
  double base_counter = 0;
  std::int64_t frames = 0;  ///< frames per signal; 0 when the header does not say
  std::string base_time;    ///< as written (e.g. "12:44:02"), empty when absent
  std::string base_date;    ///< as written (e.g. "10/12/2009"), empty when absent
  std::vector<wfdb_signal> signals;
  std::vector<std::string> comments;  ///< text of the `#` lines, the `#` removed

  /// Samples per second of signal `index`: the frame frequency times its samples per frame.
  [[nodiscard]] double sample_rate(std::size_t index) const;
};

/// @brief Parses the text of a WFDB header.
/// @param text            the header's content
/// @param name_for_errors what error messages call the header, e.g. "106.hea"
/// @throws zeroflow::parse_error "NAME:LINE: what was wrong" for a malformed header, an
///         unsupported storage format or a multi-segment record.
[[nodiscard]] wfdb_header parse_wfdb_header(std::string_view text, std::string_view name_for_errors);

/// @brief Reads and parses a WFDB header file (see parse_wfdb_header).
/// @throws zeroflow::error when the file cannot be opened; zeroflow::parse_error as parse_wfdb_header.
[[nodiscard]] wfdb_header read_wfdb_header(const std::filesystem::path& header_path);

/// @brief The signal file of signal `index`: its name taken relative to the header's folder.
/// @throws zeroflow::parse_error naming the header and the signal when `files` is own_folder and
///         the name is absolute or has a `..` component; zeroflow::invalid_argument when `index`
///         is out of range.
[[nodiscard]] std::filesystem::path wfdb_signal_path(const std::filesystem::path& header_path,
                                                     const wfdb_header& header, std::size_t index,
                                                     record_files files = record_files::own_folder);

/// @brief The digital value a storage format uses for a missing sample (-32768 for format 16,
///        -2048 for 212, ...), which reads as NaN. Format 8 has none of its own: INT32_MIN then
///        marks samples a skew takes past the end of the file.
[[nodiscard]] std::int32_t wfdb_invalid_sample(int format) noexcept;

/// @brief The stored (digital) samples of one signal, frames x samples-per-frame of them, at the
///        signal's own rate. Missing samples, and samples a skew takes past the end of the file,
///        hold wfdb_invalid_sample(format).
/// @param header_path the header the record was read from; signal files are found beside it
/// @param header      its parsed content
/// @param index       0-based signal index
/// @param threads     worker threads (0: all cores)
/// @param files       which signal files the header may name (wfdb_signal_path)
/// @throws zeroflow::invalid_argument when `index` is out of range.
/// @throws zeroflow::error naming the header and the signal file when that file is missing.
/// @throws zeroflow::parse_error naming the signal file when it is shorter than the header says
///         or mixes storage formats, for a null (format 0) signal, and for a file outside the
///         record's folder (wfdb_signal_path).
[[nodiscard]] std::vector<std::int32_t> read_wfdb_samples(const std::filesystem::path& header_path,
                                                          const wfdb_header& header, std::size_t index,
                                                          unsigned threads = 0,
                                                          record_files files = record_files::own_folder);

/// @brief One signal in physical units, (digital - baseline) / gain, missing samples as NaN: a
///        float32 1-D host array at the signal's own rate (header.sample_rate(index)).
/// @throws as read_wfdb_samples.
[[nodiscard]] array read_wfdb_signal(const std::filesystem::path& header_path, const wfdb_header& header,
                                     std::size_t index, unsigned threads = 0,
                                     record_files files = record_files::own_folder);

}  // namespace zeroflow::io
