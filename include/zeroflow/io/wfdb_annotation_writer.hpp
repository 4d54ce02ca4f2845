#pragma once
/// @file wfdb_annotation_writer.hpp
/// Writes WFDB annotation files in MIT format (what `rdann`, wfdb-python and Holter viewers read):
/// a stream of 16-bit little-endian words, each a 6-bit annotation code and a 10-bit interval
/// from the annotation before, with SKIP for intervals over 1023 samples and AUX for a text.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace zeroflow::io {

/// MIT annotation codes zeroflow writes (WFDB's ecgcodes.h).
namespace annotation_code {
inline constexpr int normal = 1;            ///< N
inline constexpr int pvc = 5;               ///< V: premature ventricular contraction
inline constexpr int supraventricular = 9;  ///< S: supraventricular premature beat
inline constexpr int unknown = 13;          ///< Q: unclassifiable beat
inline constexpr int noise = 14;            ///< ~: a change in signal quality
inline constexpr int note = 22;             ///< ": a comment; "## time resolution: F" states the annotations' rate
inline constexpr int rhythm = 28;           ///< +: rhythm change, the rhythm in the aux text, e.g. "(AFIB"
}  // namespace annotation_code

/// One annotation.
struct annotation {
  std::int64_t sample = 0;  ///< non-decreasing over the file, >= 0
  int code = 0;             ///< 1..49 (a beat, rhythm or other MIT code)
  std::string aux;          ///< optional text, at most 255 bytes
};

/// @brief The MIT code of an AAMI class letter: N, S, V, Q (anything else: Q).
[[nodiscard]] int annotation_code_of_class(char aami_class) noexcept;

/**
 * @brief Writes `annotations` to `path` atomically (a temporary file renamed into place).
 * @throws zeroflow::invalid_argument when samples go back in time or are negative, a code is out
 *         of range or a text is longer than 255 bytes; zeroflow::error when the file cannot be written.
 */
void write_wfdb_annotations(const std::filesystem::path& path, std::span<const annotation> annotations);

}  // namespace zeroflow::io
