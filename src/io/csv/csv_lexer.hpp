#pragma once
// Private to src/io/csv: the byte-level pieces of the host CSV reader (lines, fields, cells): the
// shared grammar of csv_grammar.hpp for the host's dialect, plus what only the host needs (line
// search with memchr, delimiter detection, header names, error text). Everything works on
// [begin, end) pointers into the mapped file; nothing allocates but the strings for messages.
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "csv_grammar.hpp"

namespace zeroflow::io::detail {

/// The characters that shape a file.
struct dialect {
  char delimiter{','};
  char quote{'"'};           // 0: no quoting
  std::string_view comment;  // empty: no comments
};

using csv_grammar::after_line_end;
using csv_grammar::at_line_end;
using csv_grammar::is_blank;
using csv_grammar::lex_status;
using csv_grammar::lexed_field;

/// The '\n' ending the line that starts at p, or `end` for an unterminated last line.
inline const char* line_end(const char* p, const char* end) {
  const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return nl ? static_cast<const char*>(nl) : end;
}

/// The start of the line after the one ending at `eol` (as returned by line_end).
inline const char* next_line(const char* eol, const char* end) { return eol == end ? end : eol + 1; }

/// csv_grammar's maybe_skipped for this dialect.
inline bool maybe_skipped(char first, const dialect& d) {
  return csv_grammar::maybe_skipped(first, d.comment.data(), d.comment.size());
}

/// csv_grammar's skipped_line for the line [p, eol) (eol as returned by line_end).
inline bool skipped_line(const char* p, const char* eol, const dialect& d) {
  return csv_grammar::skipped_line(p, eol, d.comment.data(), d.comment.size());
}

/// The delimiter of a file whose options leave it open (0): the most frequent of ',', '\t', ';'
/// outside quotes on the first line; ',' when none occurs.
inline char detect_delimiter(const char* p, const char* eol, char quote) {
  std::size_t comma = 0, tab = 0, semicolon = 0;
  bool inside = false;
  for (; p < eol; ++p) {
    if (quote != 0 && *p == quote) inside = !inside;
    if (inside) continue;
    comma += *p == ',';
    tab += *p == '\t';
    semicolon += *p == ';';
  }
  if (tab > comma && tab >= semicolon) return '\t';
  if (semicolon > comma && semicolon > tab) return ';';
  return ',';
}

/// csv_grammar's lex_field for this dialect.
inline lexed_field lex_field(const char* p, const char* end, const dialect& d) {
  return csv_grammar::lex_field(p, end, d.delimiter, d.quote);
}

/// The content of a quoted field with doubled quotes made single (for header names).
inline std::string unescape(const lexed_field& f, char quote) {
  std::string out(f.begin, f.end);
  if (!f.escaped) return out;
  std::string clean;
  clean.reserve(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    clean.push_back(out[i]);
    if (out[i] == quote && i + 1 < out.size() && out[i + 1] == quote) ++i;
  }
  return clean;
}

/// Text for an error message: at most 60 characters, control characters escaped.
inline std::string printable(std::string_view text) {
  constexpr std::size_t limit = 60;
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > limit) out += "...";
  return out;
}

}  // namespace zeroflow::io::detail
