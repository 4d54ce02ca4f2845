#pragma once
/// @file beats_table.hpp
/// beats.csv read back where it is written (outputs.hpp's write_beats_csv): `zeroflow evaluate`
/// takes its peaks and scores, `zeroflow correct` its classes. Columns are found by name, so a
/// beats.csv that gained columns, or one a person put together with the columns a reader needs, is
/// read alike.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zeroflow::report {

struct beats_table {
  std::string name;                            ///< the file, as messages name it
  std::vector<std::string> header;             ///< the column names
  std::vector<std::vector<std::string>> rows;  ///< each row's cells, as many as the header's
  std::vector<std::size_t> lines;              ///< each row's line in the file (1-based)

  [[nodiscard]] std::optional<std::size_t> find(std::string_view column) const;
  /// @throws zeroflow::parse_error "NAME:1: the header has no 'COLUMN' column; is this the beats.csv
  ///         of `zeroflow run`?"
  [[nodiscard]] std::size_t column(std::string_view column) const;
  /// A sample index (a whole number ≥ 0).
  /// @throws zeroflow::parse_error "NAME:LINE: COLUMN 'TEXT' is not a sample index"
  [[nodiscard]] std::int64_t sample(std::size_t row, std::size_t column) const;
  /// A finite number; NaN for an empty cell (a beat without that value, as the seed's unscored
  /// candidates).
  /// @throws zeroflow::parse_error "NAME:LINE: COLUMN 'TEXT' is not a number (leave it empty when a
  ///         beat has none)"
  [[nodiscard]] double number(std::size_t row, std::size_t column) const;
};

/// @brief The table of a beats.csv's text (empty lines skipped, a byte order mark and CRLF line
///        ends taken as io::text_lines takes them).
/// @throws zeroflow::parse_error naming `name` and the line: an empty file, a row whose cells are
///         not as many as the header's
[[nodiscard]] beats_table parse_beats_table(std::string_view text, const std::string& name);

}  // namespace zeroflow::report
