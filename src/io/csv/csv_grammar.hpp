#pragma once
// Private to src/io/csv: the one CSV grammar both readers follow, written once for the host and the
// GPU (every function is __host__ __device__ under nvcc and plain C++ otherwise). The host reader
// (csv_lexer.hpp, csv_cells.hpp, csv_scan.cpp) and the GPU reader (csv_cuda_row.hpp,
// csv_cuda_number.hpp) call these same functions for what a line, a field and a cell are:
// blank and comment lines, quotes, blanks around fields, "\r\n", and the missing-value and
// infinity spellings. What differs is only the decimal-to-binary conversion of a number: the
// host keeps fast_float, the GPU has its own parser that agrees with it bit for bit
// (docs/architecture.md, "One CSV grammar", says why and how that is checked).
//
// Everything works on [begin, end) pointers; nothing allocates, nothing throws.
#include <cstddef>
#include <cstdint>

#include "zeroflow/core/detail/host_device.hpp"

namespace zeroflow::io::detail::csv_grammar {

// ---- lines ----------------------------------------------------------------------------------

/// A blank: a space or a tab that is not the delimiter (a tab-separated file has no tab blanks).
ZF_HD inline bool is_blank(char c, char delimiter) { return (c == ' ' || c == '\t') && c != delimiter; }

/// True when `q` ends the line: end of input, '\n', or the '\r' of "\r\n" (or of a final "\r").
ZF_HD inline bool at_line_end(const char* q, const char* end) {
  return q == end || *q == '\n' || (*q == '\r' && (q + 1 == end || q[1] == '\n'));
}

/// Past the line end at `q` (at_line_end(q) holds).
ZF_HD inline const char* after_line_end(const char* q, const char* end) {
  if (q == end) return end;
  if (*q == '\r') ++q;
  return q == end ? end : q + 1;
}

/// Whether a line whose first byte is `first` may be blank or a comment (`comment` is the
/// comment prefix, `comment_size` bytes, none when 0); lines that pass are checked with
/// skipped_line. Keeps the common case (a digit) to one compare chain.
ZF_HD inline bool maybe_skipped(char first, const char* comment, std::size_t comment_size) {
  return first == '\n' || first == '\r' || first == ' ' || first == '\t' || (comment_size != 0 && first == comment[0]);
}

/// True for a blank line (only spaces and tabs, and a '\r' right before its end) or a comment
/// line, starting at p. `end` is the line's end or the input's: the line stops at the first
/// '\n' either way, and a comment prefix holds no line break, so a match never reaches past it.
ZF_HD inline bool skipped_line(const char* p, const char* end, const char* comment, std::size_t comment_size) {
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  if (p == end || *p == '\n') return true;
  if (*p == '\r' && (p + 1 == end || p[1] == '\n')) return true;
  if (comment_size == 0 || static_cast<std::size_t>(end - p) < comment_size) return false;
  for (std::size_t i = 0; i < comment_size; ++i)
    if (p[i] != comment[i]) return false;
  return true;
}

// ---- fields ---------------------------------------------------------------------------------

enum class lex_status : std::uint8_t { ok, unclosed_quote, text_after_quote };

/// One field as found in the text.
struct lexed_field {
  const char* begin;  // content: trimmed, inside the quotes when quoted
  const char* end;
  const char* stop;  // the delimiter after the field, or its line end (see at_line_end)
  bool quoted;
  bool escaped;  // the content holds doubled quotes, so it is not the value as written
  lex_status status;
};

/// Splits off the field that starts at p (inside a line): blanks around it, quotes (`quote` 0:
/// no quoting) with doubled quotes inside, "\r\n". On a lexing error, `stop` points at the
/// offending character.
ZF_HD inline lexed_field lex_field(const char* p, const char* end, char delimiter, char quote) {
  const char* s = p;
  while (s < end && is_blank(*s, delimiter)) ++s;
  if (quote != 0 && s < end && *s == quote) {
    bool escaped = false;
    const char* c = s + 1;
    for (;;) {
      if (c == end || *c == '\n') return {s + 1, c, c, true, escaped, lex_status::unclosed_quote};
      if (*c == quote) {
        if (c + 1 < end && c[1] == quote) {
          escaped = true;
          c += 2;
          continue;
        }
        break;
      }
      ++c;
    }
    const char* after = c + 1;
    while (after < end && is_blank(*after, delimiter)) ++after;
    const bool fine = (after < end && *after == delimiter) || at_line_end(after, end);
    return {s + 1, c, after, true, escaped, fine ? lex_status::ok : lex_status::text_after_quote};
  }
  const char* q = s;
  while (q < end && *q != delimiter && *q != '\n') ++q;
  if ((q == end || *q == '\n') && q > s && q[-1] == '\r') --q;  // the '\r' of "\r\n" ends the line
  const char* content_end = q;
  while (content_end > s && is_blank(content_end[-1], delimiter)) --content_end;
  return {s, content_end, q, false, false, lex_status::ok};
}

// ---- cells ----------------------------------------------------------------------------------

/// Whether [p, end) equals `lower` (a lower-case NUL-terminated literal), ASCII letter case ignored.
ZF_HD inline bool iequals(const char* p, const char* end, const char* lower) {
  for (; *lower != '\0'; ++p, ++lower) {
    if (p == end) return false;
    char c = *p;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != *lower) return false;
  }
  return p == end;
}

/// The missing-value spellings of csv.hpp (the empty cell excluded), any letter case.
ZF_HD inline bool is_missing_spelling(const char* p, const char* end) {
  return iequals(p, end, "nan") || iequals(p, end, "+nan") || iequals(p, end, "-nan") || iequals(p, end, "na") ||
         iequals(p, end, "n/a") || iequals(p, end, "null") || iequals(p, end, "none");
}

/// +1 / -1 for an infinity spelling ("inf", "infinity", optionally signed), 0 otherwise.
ZF_HD inline int infinity_sign(const char* p, const char* end) {
  int sign = 1;
  if (p < end && (*p == '+' || *p == '-')) sign = *p++ == '-' ? -1 : 1;
  return iequals(p, end, "inf") || iequals(p, end, "infinity") ? sign : 0;
}

ZF_HD inline bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// True when the cell may be a spelling (its first character after one sign is a letter); the
/// spellings are only compared for those, which keeps numbers on the short path.
ZF_HD inline bool may_be_spelling(const char* p, const char* end) {
  if (p < end && (*p == '+' || *p == '-')) ++p;
  return p < end && is_letter(*p);
}

}  // namespace zeroflow::io::detail::csv_grammar
