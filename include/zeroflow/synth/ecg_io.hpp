#pragma once
/// @file ecg_io.hpp
/// Writing a synthetic recording as the seeds' CSV (one column named `heartbeats`) with its
/// ground truth beside it. The ground truth is read back by zeroflow/io/labels.hpp.
#include <filesystem>

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
 * @brief Writes the ground truth as CSV: header `sample,symbol,aami`, then one line per beat with
 *        the R-peak sample index, its MIT-BIH symbol and its AAMI class (`N,N`, `A,S` or `V,V`),
 *        as io::read_labels_csv reads it. Written atomically like write_ecg_csv.
 * @param recording the recording; its r_peaks and labels are written.
 * @param path the file to create or replace (see labels_path_for).
 * @throws zeroflow::invalid_argument when r_peaks and labels differ in length or a label is not
 *         a beat symbol.
 * @throws zeroflow::error when the file cannot be written.
 */
void write_labels_csv(const ecg_recording& recording, const std::filesystem::path& path);

/**
 * @brief Writes the artefact annotations as CSV: header `start,end,kind`, then one line per
 *        interval with its first sample, one past its last, and `noise_burst` or
 *        `baseline_jump`. Written atomically like write_ecg_csv.
 * @param recording the recording; its artefacts are written.
 * @param path the file to create or replace (see artefacts_path_for).
 * @throws zeroflow::error when the file cannot be written.
 */
void write_artefacts_csv(const ecg_recording& recording, const std::filesystem::path& path);

/**
 * @brief Where the artefact annotations of a signal CSV live by convention: same folder and
 *        stem, extension `.artefacts.csv` (`data/ecg.csv` -> `data/ecg.artefacts.csv`).
 * @param csv path of the signal CSV.
 * @return path of the artefacts CSV.
 */
std::filesystem::path artefacts_path_for(const std::filesystem::path& csv);

/**
 * @brief Where the labels of a signal CSV live by convention: same folder and stem, extension
 *        `.labels.csv` (`data/ecg.csv` -> `data/ecg.labels.csv`).
 * @param csv path of the signal CSV.
 * @return path of the labels CSV.
 */
std::filesystem::path labels_path_for(const std::filesystem::path& csv);

}  // namespace zeroflow::synth
