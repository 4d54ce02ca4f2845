#pragma once
// Private to src/io/csv: the two passes of the CSV reader over one range of lines.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "csv_lexer.hpp"
#include "zeroflow/io/csv.hpp"

namespace zeroflow::io::detail {

enum class cell_kind : std::uint8_t { skip, f32, f64, i64 };

/// What to do with one column of the file: skip it, or parse it into `out` (indexed by row).
struct column_plan {
  cell_kind kind{cell_kind::skip};
  void* out{nullptr};
};

/// Everything pass 2 needs, shared read-only by every thread.
struct scan_context {
  std::string_view name;  // the input, for messages
  dialect d;
  std::vector<std::string> header;  // names when the file has a header, else empty
  std::vector<column_plan> plans;   // one per column of the file
  na_policy na{na_policy::error};
};

struct range_counts {
  std::int64_t lines{0};  // physical lines
  std::int64_t rows{0};   // lines that are neither blank nor comments
};

/// Pass 1: counts lines and data rows in [begin, end), which starts at a line start and ends
/// after a '\n' (or at the end of the input).
range_counts count_range(const char* begin, const char* end, const dialect& d);

/// Pass 2: parses the rows of [begin, end) into the plans' outputs, from row `first_row`;
/// `first_line` is the 1-based number of the range's first line and `rows` what pass 1 counted.
/// @throws zeroflow::parse_error at the first bad cell or ragged row.
void parse_range(const char* begin, const char* end, std::int64_t first_row, std::int64_t first_line, std::int64_t rows,
                 const scan_context& ctx);

/// "NAME:LINE: " + parts, as a parse_error.
[[noreturn]] void fail_line(std::string_view name, std::int64_t line, const std::string& what);
/// "NAME:LINE: column C (\"HEADER\"): " + what, as a parse_error; `col` is 0-based.
[[noreturn]] void fail_cell(const scan_context& ctx, std::int64_t line, std::size_t col, const std::string& what);

}  // namespace zeroflow::io::detail
