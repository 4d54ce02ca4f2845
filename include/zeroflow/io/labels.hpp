#pragma once
/// @file labels.hpp
/// Reference beat annotations (R-peak sample and beat type) from the files people have:
/// PhysioNet-style CSV exports and WFDB annotation files. Beat types are kept as written and
/// mapped to the AAMI EC57 classes that evaluation reports on.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zeroflow::io {

/// A rhythm change of a WFDB annotation file: from `sample` on, the rhythm is `rhythm`.
struct rhythm_change {
  std::int64_t sample = 0;
  std::string rhythm;  ///< the aux text without its "(" and padding: "AFIB", "AFL", "N", "VT", ...
};

/// Reference beats of one recording, in increasing sample order.
struct beat_labels {
  std::vector<std::int64_t> samples;  ///< R-peak sample index of each beat, strictly increasing
  std::vector<std::string> symbols;   ///< the beat type as the file gives it (MIT-BIH symbol: N, V, A, /, ...)
  std::vector<char> classes;          ///< AAMI class of each beat: 'N', 'S', 'V', 'F' or 'Q'
  /// Rhythm changes (`+` annotations) of a WFDB annotation file, in time order; a CSV has none.
  std::vector<rhythm_change> rhythm;
  /// Ventricular flutter or fibrillation of a WFDB annotation file, as sample intervals from its
  /// `[` to its `]` annotation, both included (an episode left open ends at the last sample
  /// representable); a CSV has none. EC57 leaves these intervals out of the beat-by-beat comparison.
  std::vector<std::pair<std::int64_t, std::int64_t>> ventricular_flutter;
  /// The annotations' time unit in Hz when the file states it (a WFDB note "## time resolution: F",
  /// as wfdb-python and zeroflow write it); 0 when it does not (samples of the recording itself).
  double time_resolution = 0;
};

/// @brief The AAMI EC57 class of a beat symbol: N (N, L, R, e, j), S (A, a, J, S), V (V, E),
///        F (F), Q (/, f, Q, and the beats the grouping does not name: B, ?, n, r); the class
///        letters themselves map to themselves.
/// @return the class letter, or 0 when the symbol is no beat symbol.
[[nodiscard]] char aami_class_of(std::string_view symbol) noexcept;

/// @brief Whether `symbol` is WFDB's mnemonic of an annotation that marks no beat: rhythm (+),
///        noise (~), signal quality (|), waves (p, t, u, `, '), flutter ([, !, ]), comments (").
[[nodiscard]] bool is_non_beat_annotation(std::string_view symbol) noexcept;

/// @brief Reads a labels CSV: header `sample,label`, `sample,symbol` or `sample,symbol,aami`
///        (PhysioNet exports), CRLF or LF, blank lines ignored. An `aami` cell, when present and
///        not empty, gives the class; otherwise the symbol does (aami_class_of). A row whose
///        symbol is a WFDB annotation of no beat (is_non_beat_annotation) is skipped; any other
///        symbol (`PVC`, `0`, `nan`) is refused rather than dropped.
///
/// One rule for both kinds of labels file: beats are in time order; two annotations of one
/// sample (several channels annotating one beat) are one beat when they agree on its AAMI class
/// and refused when they do not; a file without a single beat is refused.
/// @throws zeroflow::error when the file cannot be opened.
/// @throws zeroflow::parse_error naming file:line and what was wrong (header, a malformed row,
///         an unknown symbol or class, sample indices going back, two classes at one sample, no beat).
[[nodiscard]] beat_labels read_labels_csv(const std::filesystem::path& path);

/// @brief Reads the beat annotations of a WFDB annotation file (MIT format, e.g. `106.atr`),
///        and its rhythm changes; other annotations (noise, comments, waves) are skipped. Beats
///        at one sample and a file without beats follow the rule of read_labels_csv.
/// @throws zeroflow::error when the file cannot be opened.
/// @throws zeroflow::parse_error naming the file and byte offset when it is malformed.
[[nodiscard]] beat_labels read_wfdb_annotations(const std::filesystem::path& path);

/// @brief Whether the file's first 4 KiB are text: no NUL and no control byte but tab, CR and LF.
///        An MIT annotation file is never (its words' high bytes and its end marker are control bytes).
/// @throws zeroflow::error when the file cannot be opened.
[[nodiscard]] bool looks_like_text(const std::filesystem::path& path);

/// @brief Reads labels from either kind of file, recognised by content, whatever its name: text as
///        a labels CSV (so rdann's printout or a `.txt` copy is refused naming the header expected),
///        anything else as a WFDB annotation file, whose structure is checked.
[[nodiscard]] beat_labels read_labels(const std::filesystem::path& path);

/// @brief Labels for a recording at `sample_rate` Hz of `samples` samples: read_labels, then, when
///        the file states another time resolution, its samples (beats, rhythm changes, flutter)
///        converted to the recording's (rounded), then check_labels_within.
/// @throws zeroflow::parse_error as read_labels and check_labels_within, or when two beats fall
///         on one sample of the recording.
[[nodiscard]] beat_labels read_labels_for(const std::filesystem::path& path, double sample_rate, std::int64_t samples);

/// @brief The rule for labels and the recording they describe, for CSV and `.atr` alike: a beat
///        at or past the recording's last sample belongs to another recording (or another rate).
///        Nothing is checked when `samples` ≤ 0 (unknown).
/// @throws zeroflow::parse_error naming the file, how many beats lie past the end and the last one.
void check_labels_within(const beat_labels& labels, std::int64_t samples, const std::filesystem::path& path);

/// @brief A fingerprint of a file's bytes, "SIZE:HASH" (its size and 64-bit FNV-1a hash in hex).
///        A run records its labels' fingerprint beside their path, and `zeroflow evaluate` follows a
///        recorded path only to the file the run read: a summary from elsewhere cannot make it read
///        another file.
/// @throws zeroflow::error when the file cannot be read.
[[nodiscard]] std::string file_fingerprint(const std::filesystem::path& path);

/// @brief Whether `path` is a regular file with this fingerprint (file_fingerprint). Only a file of
///        the fingerprint's size is read; false for a missing or unreadable file, a malformed
///        fingerprint and a FIFO or device alike.
[[nodiscard]] bool has_fingerprint(const std::filesystem::path& path, std::string_view fingerprint) noexcept;

}  // namespace zeroflow::io
