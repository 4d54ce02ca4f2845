#pragma once
/// @file csv_row.hpp
/// The cells of one line of a small CSV text file that zeroflow reads back whole (beats.csv,
/// runs.csv): cells split at commas, a quoted cell may hold commas and doubled quotes (RFC 4180),
/// nothing trimmed. Numbers are the caller's to parse; a recording's CSV goes through csv.hpp.
#include <string>
#include <string_view>
#include <vector>

namespace zeroflow::io {

/// @brief The cells of `line` (at least one: an empty line is one empty cell). A quote that opens
///        a cell ends at the next lone quote; an unclosed quote runs to the end of the line.
[[nodiscard]] std::vector<std::string> split_csv_row(std::string_view line);

}  // namespace zeroflow::io
