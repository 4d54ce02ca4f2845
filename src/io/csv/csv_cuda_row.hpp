#pragma once
// Private to src/io/csv: one CSV line -> its cells, for the GPU reader's kernels (and the host unit
// tests, which run the same code). Lines and fields are csv_grammar.hpp's, the host reader's
// grammar (blank and comment lines, quotes, blanks around fields, "\r\n"), and ragged rows are
// refused as csv_scan.cpp refuses them; a row either parses completely or is reported bad, and
// the host reader then re-reads that line to word the error.
#include <cstdint>

#include "csv_cuda_number.hpp"

namespace zeroflow::io::detail::csv_row {

using csv_number::cell_result;
using csv_number::pow5_entry;

/// Longest comment prefix the GPU path takes (longer ones go to the host reader).
inline constexpr int max_comment = 16;

/// csv_lexer.hpp's dialect as plain data (kernel parameters cannot hold a string_view's target).
struct row_dialect {
  char delimiter{','};
  char quote{'"'};  // 0: no quoting
  std::uint8_t comment_size{0};
  char comment[max_comment]{};
};

enum class column_kind : std::uint8_t { skip, f32, f64, i64 };

/// One column of the file: skipped, or parsed into out[row] (float, double or int64 bits).
struct column_out {
  column_kind kind{column_kind::skip};
  void* out{nullptr};
};

/// Everything a row needs, shared by every row.
struct row_params {
  row_dialect d;
  bool na_nan{false};  // na_policy::nan
  std::int32_t columns{0};
  const column_out* plans{nullptr};  // `columns` entries
  const pow5_entry* pow5{nullptr};
};

using csv_grammar::at_line_end;
using csv_grammar::lex_status;
using csv_grammar::lexed_field;

/// csv_grammar's maybe_skipped for this dialect.
ZF_HD inline bool maybe_skipped(char first, const row_dialect& d) {
  return csv_grammar::maybe_skipped(first, d.comment, d.comment_size);
}

/// csv_grammar's skipped_line for the line starting at p.
ZF_HD inline bool skipped_line(const char* p, const char* end, const row_dialect& d) {
  return csv_grammar::skipped_line(p, end, d.comment, d.comment_size);
}

/// Whether the line starting at p (p < end) is a data row.
ZF_HD inline bool is_data_line(const char* p, const char* end, const row_dialect& d) {
  return !(maybe_skipped(*p, d) && skipped_line(p, end, d));
}

/// csv_grammar's lex_field for this dialect.
ZF_HD inline lexed_field lex_field(const char* p, const char* end, const row_dialect& d) {
  return csv_grammar::lex_field(p, end, d.delimiter, d.quote);
}

/// Parses the data row starting at p into row `row` of every parsed column. Cells whose value
/// the GPU cannot decide are handed to `undecided(column, cell_begin, cell_end)` and left
/// unwritten. Returns false for a row the host reader refuses (ragged, unclosed or misplaced
/// quotes, a cell that is not a number of its column, or a missing value under na_policy::error);
/// the row may then be partly written.
template <class Undecided>
ZF_HD bool parse_row(const char* p, const char* end, std::int64_t row, const row_params& rp, Undecided&& undecided) {
  for (std::int32_t col = 0; col < rp.columns; ++col) {
    const lexed_field f = lex_field(p, end, rp.d);
    if (f.status != lex_status::ok) return false;
    const bool last = col + 1 == rp.columns;
    if (at_line_end(f.stop, end) != last) return false;  // too few or too many fields
    const column_out plan = rp.plans[col];
    switch (plan.kind) {
      case column_kind::skip:
        break;
      case column_kind::f32: {
        std::uint32_t bits = 0;
        const cell_result r = csv_number::parse_float_cell<float>(f.begin, f.end, rp.pow5, bits);
        if (r == cell_result::undecided) {
          undecided(col, f.begin, f.end);
          break;
        }
        if (r == cell_result::bad || (r != cell_result::ok && !rp.na_nan)) return false;
        static_cast<std::uint32_t*>(plan.out)[row] = bits;
        break;
      }
      case column_kind::f64: {
        std::uint64_t bits = 0;
        const cell_result r = csv_number::parse_float_cell<double>(f.begin, f.end, rp.pow5, bits);
        if (r == cell_result::undecided) {
          undecided(col, f.begin, f.end);
          break;
        }
        if (r == cell_result::bad || (r != cell_result::ok && !rp.na_nan)) return false;
        static_cast<std::uint64_t*>(plan.out)[row] = bits;
        break;
      }
      case column_kind::i64: {
        std::int64_t value = 0;
        if (csv_number::parse_int_cell(f.begin, f.end, value) != cell_result::ok) return false;
        static_cast<std::int64_t*>(plan.out)[row] = value;
        break;
      }
    }
    p = f.stop + 1;
  }
  return true;
}

}  // namespace zeroflow::io::detail::csv_row
