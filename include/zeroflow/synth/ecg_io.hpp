#pragma once
/// @file ecg_io.hpp
/// Writing a synthetic recording as the seeds' CSV (one column named `heartbeats`) with its
/// ground truth beside it, and reading the ground truth back for evaluation.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "zeroflow/synth/ecg.hpp"

namespace zeroflow::synth {

/**
 * @brief Writes the samples as a one-column CSV: the header `heartbeats`, then one value a line
 *        in fixed notation with `decimals` digits after the point (std::to_chars, so exactly
 *        rounded and independent of the locale).
 *
 * The file is written under a temporary name in the same folder and renamed into place when
 * complete, so a failure never leaves a partial file under the final name (an existing file
 * there is replaced only by a complete one).
 *
 * @param recording the recording; only its samples are written.
 * @param csv the file to create or replace.
 * @param decimals digits after the decimal point, in [0, 9].
 * @throws zeroflow::invalid_argument when decimals is out of range.
 * @throws zeroflow::error when the file cannot be written (missing folder, disk full, ...).
 */
void write_ecg_csv(const ecg_recording& recording, const std::filesystem::path& csv, int decimals = 4);

/**
 * @brief Writes the ground truth as CSV: header `sample,label`, then one line per beat with the
 *        R-peak sample index and its label ('N' or 'V'). Written atomically like write_ecg_csv.
 * @param recording the recording; its r_peaks and labels are written.
 * @param path the file to create or replace (see labels_path_for).
 * @throws zeroflow::invalid_argument when r_peaks and labels differ in length.
 * @throws zeroflow::error when the file cannot be written.
 */
void write_labels_csv(const ecg_recording& recording, const std::filesystem::path& path);

/**
 * @brief Where the labels of a signal CSV live by convention: same folder and stem, extension
 *        `.labels.csv` (`data/ecg.csv` -> `data/ecg.labels.csv`).
 * @param csv path of the signal CSV.
 * @return path of the labels CSV.
 */
std::filesystem::path labels_path_for(const std::filesystem::path& csv);

/// Ground-truth beats read back from a labels CSV.
struct beat_labels {
  /// R-peak sample indices, strictly increasing.
  std::vector<std::int64_t> samples;
  /// One label per sample, e.g. 'N' or 'V'.
  std::vector<char> labels;
};

/**
 * @brief Reads a labels CSV written by write_labels_csv. Accepts CRLF line ends and blank
 *        lines; the label may be any single letter (the MIT-BIH beat codes are letters).
 * @param path the labels CSV.
 * @return the beats in file order.
 * @throws zeroflow::error when the file cannot be opened.
 * @throws zeroflow::parse_error naming path:line when the header is not `sample,label`, a line
 *         is malformed, or the sample indices are not strictly increasing.
 */
beat_labels read_labels_csv(const std::filesystem::path& path);

}  // namespace zeroflow::synth
