#pragma once
// Private to src/io: the byte-level pieces of the CSV reader (lines, fields, cells). Everything
// works on [begin, end) pointers into the mapped file; nothing allocates.
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace zeroflow::io::detail {

/// The characters that shape a file.
struct dialect {
  char delimiter{','};
  char quote{'"'};           // 0: no quoting
  std::string_view comment;  // empty: no comments
};

inline bool is_blank(char c, char delimiter) { return (c == ' ' || c == '\t') && c != delimiter; }

/// The '\n' ending the line that starts at p, or `end` for an unterminated last line.
inline const char* line_end(const char* p, const char* end) {
  const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return nl ? static_cast<const char*>(nl) : end;
}

/// The start of the line after the one ending at `eol` (as returned by line_end).
inline const char* next_line(const char* eol, const char* end) { return eol == end ? end : eol + 1; }

/// Whether a line may be blank or a comment, judged by its first byte; lines that pass are
/// checked with skipped_line. Keeps the common case (a digit) to one compare chain.
inline bool maybe_skipped(char first, const dialect& d) {
  return first == '\n' || first == '\r' || first == ' ' || first == '\t' ||
         (!d.comment.empty() && first == d.comment.front());
}

/// True for a blank line (only spaces, tabs, a final '\r') or a comment line, [p, eol).
inline bool skipped_line(const char* p, const char* eol, const dialect& d) {
  while (p < eol && (*p == ' ' || *p == '\t')) ++p;
  if (p == eol || (*p == '\r' && p + 1 == eol)) return true;
  const auto left = static_cast<std::size_t>(eol - p);
  return !d.comment.empty() && left >= d.comment.size() && std::memcmp(p, d.comment.data(), d.comment.size()) == 0;
}

/// True when `q` ends the line: end of input, '\n', or the '\r' of "\r\n" (or of a final "\r").
inline bool at_line_end(const char* q, const char* end) {
  return q == end || *q == '\n' || (*q == '\r' && (q + 1 == end || q[1] == '\n'));
}

/// Past the line end at `q` (at_line_end(q) holds).
inline const char* after_line_end(const char* q, const char* end) {
  if (q == end) return end;
  if (*q == '\r') ++q;
  return q == end ? end : q + 1;
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

enum class lex_status { ok, unclosed_quote, text_after_quote };

/// One field as found in the text.
struct lexed_field {
  const char* begin;  // content: trimmed, inside the quotes when quoted
  const char* end;
  const char* stop;  // the delimiter after the field, or its line end (see at_line_end)
  bool quoted{false};
  bool escaped{false};  // the content holds doubled quotes, so it is not the value as written
  lex_status status{lex_status::ok};
};

/// Splits off the field that starts at p (inside a line). Slow but complete: quotes, blanks,
/// "\r\n". On a lexing error, `stop` points at the offending character.
inline lexed_field lex_field(const char* p, const char* end, const dialect& d) {
  const char delim = d.delimiter;
  const char* s = p;
  while (s < end && is_blank(*s, delim)) ++s;
  if (d.quote != 0 && s < end && *s == d.quote) {
    lexed_field f{s + 1, s + 1, s, true};
    const char* c = s + 1;
    for (;;) {
      if (c == end || *c == '\n') {
        f.end = c;
        f.stop = c;
        f.status = lex_status::unclosed_quote;
        return f;
      }
      if (*c == d.quote) {
        if (c + 1 < end && c[1] == d.quote) {
          f.escaped = true;
          c += 2;
          continue;
        }
        break;
      }
      ++c;
    }
    f.end = c;
    const char* after = c + 1;
    while (after < end && is_blank(*after, delim)) ++after;
    f.stop = after;
    if (!(after < end && *after == delim) && !at_line_end(after, end)) f.status = lex_status::text_after_quote;
    return f;
  }
  const char* q = s;
  while (q < end && *q != delim && *q != '\n') ++q;
  const char* content_end = q;
  if ((q == end || *q == '\n') && q > s && q[-1] == '\r') {
    --q;  // the '\r' of "\r\n" ends the line, it is not content
    content_end = q;
  }
  while (content_end > s && is_blank(content_end[-1], delim)) --content_end;
  return {s, content_end, q};
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
