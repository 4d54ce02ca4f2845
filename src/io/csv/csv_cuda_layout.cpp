#include "csv_cuda_layout.hpp"

#include <algorithm>
#include <cstring>

#include "csv_cells.hpp"
#include "csv_lexer.hpp"

namespace zeroflow::io::detail {

namespace {

bool number_char(char c) { return (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-'; }
bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool readable_type(dtype t) { return t == float32 || t == float64 || t == int64; }

// csv.cpp's resolve, declining where it throws.
std::optional<std::size_t> resolve(const column_ref& ref, const std::vector<std::string>& names) {
  if (!ref.by_name()) {
    if (ref.negative() || ref.index() >= names.size()) return std::nullopt;
    return ref.index();
  }
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] != ref.name()) continue;
    if (found) return std::nullopt;  // ambiguous
    found = i;
  }
  return found;
}

enum class first_line_state { found, need_more, empty, no_data };

}  // namespace

bool options_valid(const csv_options& o) {
  const char d = o.delimiter;
  if (d != 0 && (d == '\n' || d == '\r' || number_char(d) || letter(d) || d == o.quote)) return false;
  const char q = o.quote;
  if (q == '\n' || q == '\r' || q == ' ' || q == '\t' || number_char(q) || letter(q)) return false;
  if (o.comment.find_first_of("\r\n") != std::string::npos) return false;
  if (!o.comment.empty() && number_char(o.comment.front())) return false;
  if (!readable_type(o.default_type)) return false;
  return std::all_of(o.types.begin(), o.types.end(), [](const column_type& ct) { return readable_type(ct.type); });
}

std::optional<csv_layout> plan_layout(const byte_source& source, const csv_options& options, std::string& why) {
  if (!options_valid(options)) {
    why = "options the host reader refuses";
    return std::nullopt;
  }
  csv_layout out;
  out.delimiter = options.delimiter;
  out.quote = options.quote;
  out.comment = options.comment;

  // The first line that is neither blank nor a comment, read from a prefix of the input that
  // grows until it holds that whole line.
  const std::size_t size = source.size();
  std::size_t want = std::min<std::size_t>(size, 64 << 10);
  std::string prefix;
  const char* first = nullptr;
  const char* first_eol = nullptr;
  for (;;) {
    prefix = source.read_string(0, want);
    const bool whole = prefix.size() == size;
    const char* begin = prefix.data();
    const char* const end = begin + prefix.size();
    if (prefix.size() >= 3 && std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0) begin += 3;
    const dialect d = out.lexer_dialect();
    first_line_state state = first_line_state::found;
    out.header_line = 1;
    first = begin;
    if (first == end) {
      state = whole ? first_line_state::empty : first_line_state::need_more;
    } else {
      for (;;) {
        first_eol = line_end(first, end);
        if (first_eol == end && !whole) {
          state = first_line_state::need_more;
          break;
        }
        if (!skipped_line(first, first_eol, d)) break;
        first = next_line(first_eol, end);
        ++out.header_line;
        if (first == end) {
          state = whole ? first_line_state::no_data : first_line_state::need_more;
          break;
        }
      }
    }
    if (state == first_line_state::found) break;
    if (state == first_line_state::need_more) {
      want = std::min(size, want * 4);
      continue;
    }
    why = state == first_line_state::empty ? "the file is empty" : "the file holds no data";
    return std::nullopt;
  }
  const char* const end = prefix.data() + prefix.size();
  if (out.delimiter == 0) out.delimiter = detect_delimiter(first, first_eol, out.quote);
  const dialect d = out.lexer_dialect();

  // csv.cpp's split_line.
  std::vector<lexed_field> cells;
  for (const char* p = first;;) {
    const lexed_field f = lex_field(p, end, d);
    if (f.status != lex_status::ok) {
      why = "a quoting error on the first line";
      return std::nullopt;
    }
    cells.push_back(f);
    if (at_line_end(f.stop, end)) break;
    p = f.stop + 1;
  }
  out.has_header = options.header == header_mode::yes;
  if (options.header == header_mode::auto_detect)
    out.has_header = std::any_of(cells.begin(), cells.end(), [](const lexed_field& f) {
      return f.escaped || !looks_numeric(std::string_view(f.begin, static_cast<std::size_t>(f.end - f.begin)));
    });
  for (std::size_t i = 0; i < cells.size(); ++i)
    out.names.push_back(out.has_header ? unescape(cells[i], d.quote) : std::to_string(i));
  const char* data = out.has_header ? next_line(first_eol, end) : first;
  out.data_offset = static_cast<std::size_t>(data - prefix.data());
  out.data_line = out.has_header ? out.header_line + 1 : out.header_line;

  if (options.columns.empty()) {
    for (std::size_t i = 0; i < out.names.size(); ++i) out.selected.push_back(i);
  } else {
    for (const auto& ref : options.columns) {
      const auto index = resolve(ref, out.names);
      if (!index || std::find(out.selected.begin(), out.selected.end(), *index) != out.selected.end()) {
        why = "a requested column the host reader refuses";
        return std::nullopt;
      }
      out.selected.push_back(*index);
    }
  }
  out.types.assign(out.names.size(), options.default_type);
  for (const auto& ct : options.types) {
    const auto index = resolve(ct.column, out.names);
    if (!index) {
      why = "a typed column the host reader refuses";
      return std::nullopt;
    }
    out.types[*index] = ct.type;
  }
  return out;
}

}  // namespace zeroflow::io::detail
