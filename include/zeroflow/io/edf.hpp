#pragma once
/// @file edf.hpp
/// European Data Format files: EDF and continuous EDF+ (`EDF+C`).
///
/// A 256-byte header, 256 more bytes per signal, then data records: each holds, signal after
/// signal, that signal's samples per record as 16-bit little-endian integers. A signal's rate is
/// its samples per record over the record duration; physical values map the header's digital
/// range linearly onto its physical range. EDF+'s `EDF Annotations` signal holds time-stamped
/// annotation lists (TALs) instead of samples. Discontinuous EDF+ (`EDF+D`) and BDF (24-bit) are
/// refused.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"

namespace zeroflow::io {

/// One signal of an EDF header. Text fields are trimmed and UTF-8 (Latin-1 bytes converted).
struct edf_signal {
  std::string label;  ///< e.g. "ECG II"; "EDF Annotations" for EDF+ annotations
  std::string transducer;
  std::string units;  ///< physical dimension, e.g. "uV"
  double physical_min = 0;
  double physical_max = 0;
  std::int32_t digital_min = 0;
  std::int32_t digital_max = 0;
  std::string prefiltering;
  std::int64_t samples_per_record = 0;
  bool annotations = false;  ///< the EDF+ annotation signal: no samples
};

/// A parsed EDF header.
struct edf_header {
  std::string patient;
  std::string recording;
  std::string start_date;  ///< dd.mm.yy as written
  std::string start_time;  ///< hh.mm.ss as written
  std::int64_t header_bytes = 0;
  bool edf_plus = false;       ///< the reserved field starts with "EDF+"
  std::int64_t records = 0;    ///< data records (derived from the file size when the header says -1)
  double record_duration = 0;  ///< seconds
  std::vector<edf_signal> signals;

  /// Samples per second of signal `index` (samples per record / record duration).
  [[nodiscard]] double sample_rate(std::size_t index) const;
  /// Bytes of one data record.
  [[nodiscard]] std::int64_t record_bytes() const;
};

/// One EDF+ annotation.
struct edf_annotation {
  double onset = 0;      ///< seconds from the start of the recording
  double duration = -1;  ///< seconds; -1 when the annotation gives none
  std::string text;
};

/// @brief Reads the header of an EDF or EDF+ file and checks it against the file's size.
/// @throws zeroflow::error when the file cannot be opened.
/// @throws zeroflow::parse_error naming the file, byte offset and field of a malformed header,
///         for EDF+D and BDF files, and when the file holds fewer records than the header says.
[[nodiscard]] edf_header read_edf_header(const std::filesystem::path& path);

/// @brief The digital samples of one signal, records x samples per record of them.
/// @throws zeroflow::invalid_argument when `index` is out of range or names the annotation signal.
/// @throws as read_edf_header.
[[nodiscard]] std::vector<std::int16_t> read_edf_samples(const std::filesystem::path& path, const edf_header& header,
                                                         std::size_t index);

/// @brief One signal in physical units, physical_min + (digital - digital_min) x (physical range /
///        digital range), as a float32 1-D host array at header.sample_rate(index).
/// @throws as read_edf_samples, and zeroflow::parse_error when the signal's digital range is empty.
[[nodiscard]] array read_edf_signal(const std::filesystem::path& path, const edf_header& header, std::size_t index,
                                    unsigned threads = 0);

/// @brief Every annotation of an EDF+ file's annotation signals, in file order; empty ones (the
///        time-keeping entry that starts each data record) are left out. An EDF file without
///        annotation signals gives none.
/// @throws as read_edf_header, and zeroflow::parse_error naming the byte of a malformed TAL.
[[nodiscard]] std::vector<edf_annotation> read_edf_annotations(const std::filesystem::path& path);

}  // namespace zeroflow::io
