#pragma once
// Private to src/io: one CSV line -> its cells, written once for the host and the GPU (see
// csv_cuda_number.hpp). The rules are those of csv_lexer.hpp and csv_scan.cpp (blank and comment
// lines, quotes, blanks around fields, "\r\n", ragged rows); a row either parses completely or
// is reported bad, and the host reader then re-reads that line to word the error.
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

ZF_CSV_HD inline bool is_blank(char c, char delimiter) { return (c == ' ' || c == '\t') && c != delimiter; }

/// csv_lexer.hpp's maybe_skipped: whether a line starting with `first` may be blank or a comment.
ZF_CSV_HD inline bool maybe_skipped(char first, const row_dialect& d) {
  return first == '\n' || first == '\r' || first == ' ' || first == '\t' ||
         (d.comment_size != 0 && first == d.comment[0]);
}

/// csv_lexer.hpp's skipped_line for the line starting at p: only spaces and tabs (and a '\r'
/// right before its end), or a comment. The comment holds no line break, so a match never
/// reaches past the line.
ZF_CSV_HD inline bool skipped_line(const char* p, const char* end, const row_dialect& d) {
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  if (p == end || *p == '\n') return true;
  if (*p == '\r' && (p + 1 == end || p[1] == '\n')) return true;
  if (d.comment_size == 0 || end - p < d.comment_size) return false;
  for (int i = 0; i < d.comment_size; ++i)
    if (p[i] != d.comment[i]) return false;
  return true;
}

/// Whether the line starting at p (p < end) is a data row.
ZF_CSV_HD inline bool is_data_line(const char* p, const char* end, const row_dialect& d) {
  return !(maybe_skipped(*p, d) && skipped_line(p, end, d));
}

/// True when `q` ends the line: end of input, '\n', or the '\r' of "\r\n" (or of a final "\r").
ZF_CSV_HD inline bool at_line_end(const char* q, const char* end) {
  return q == end || *q == '\n' || (*q == '\r' && (q + 1 == end || q[1] == '\n'));
}

enum class lex_status : std::uint8_t { ok, unclosed_quote, text_after_quote };

struct lexed_field {
  const char* begin;  // content: trimmed, inside the quotes when quoted
  const char* end;
  const char* stop;  // the delimiter after the field, or its line end
  lex_status status;
};

/// csv_lexer.hpp's lex_field: the field starting at p.
ZF_CSV_HD inline lexed_field lex_field(const char* p, const char* end, const row_dialect& d) {
  const char delim = d.delimiter;
  const char* s = p;
  while (s < end && is_blank(*s, delim)) ++s;
  if (d.quote != 0 && s < end && *s == d.quote) {
    const char* c = s + 1;
    for (;;) {
      if (c == end || *c == '\n') return {s + 1, c, c, lex_status::unclosed_quote};
      if (*c == d.quote) {
        if (c + 1 < end && c[1] == d.quote) {
          c += 2;  // a doubled quote: its content cannot be a number, the cell parser says so
          continue;
        }
        break;
      }
      ++c;
    }
    const char* after = c + 1;
    while (after < end && is_blank(*after, delim)) ++after;
    const bool fine = (after < end && *after == delim) || at_line_end(after, end);
    return {s + 1, c, after, fine ? lex_status::ok : lex_status::text_after_quote};
  }
  const char* q = s;
  while (q < end && *q != delim && *q != '\n') ++q;
  const char* content_end = q;
  if ((q == end || *q == '\n') && q > s && q[-1] == '\r') {
    --q;  // the '\r' of "\r\n" ends the line, it is not content
    content_end = q;
  }
  while (content_end > s && is_blank(content_end[-1], delim)) --content_end;
  return {s, content_end, q, lex_status::ok};
}

/// Parses the data row starting at p into row `row` of every parsed column. Cells whose value
/// the GPU cannot decide are handed to `undecided(column, cell_begin, cell_end)` and left
/// unwritten. Returns false for a row the host reader refuses (ragged, unclosed or misplaced
/// quotes, a cell that is not a number of its column, or a missing value under na_policy::error);
/// the row may then be partly written.
template <class Undecided>
ZF_CSV_HD bool parse_row(const char* p, const char* end, std::int64_t row, const row_params& rp,
                         Undecided&& undecided) {
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
