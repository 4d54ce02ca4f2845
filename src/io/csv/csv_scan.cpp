#include "csv_scan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fast_float/fast_float.h>

#include "csv_cells.hpp"
#include "float32_fast_path.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::io::detail {

void fail_line(std::string_view name, std::int64_t line, const std::string& what) {
  throw parse_error(zeroflow::detail::concat(name, ':', line, ": ", what));
}

void fail_cell(const scan_context& ctx, std::int64_t line, std::size_t col, const std::string& what) {
  std::string where = "column " + std::to_string(col + 1);
  if (col < ctx.header.size()) where += " (\"" + printable(ctx.header[col]) + "\")";
  fail_line(ctx.name, line, where + ": " + what);
}

// ---- pass 1 ----------------------------------------------------------------------------------

namespace {

// Counts the lines of [begin + from, begin + to) that a '\n' at index < `to` starts and that
// are blank or comments; the byte-by-byte version of the vector loop below.
std::int64_t skipped_after_newlines(const char* begin, const char* end, std::size_t from, std::size_t to,
                                    const dialect& d) {
  std::int64_t skipped = 0;
  for (std::size_t i = from; i < to; ++i) {
    if (begin[i] != '\n' || !maybe_skipped(begin[i + 1], d)) continue;
    const char* start = begin + i + 1;
    if (skipped_line(start, line_end(start, end), d)) ++skipped;
  }
  return skipped;
}

// Pass 1's progress through a range: bytes [0, i) are counted.
struct scan_state {
  std::size_t i{0};
  std::size_t newlines{0};
  std::int64_t skipped{0};
};

#if defined(__SSE2__)
// The vector part of pass 1, 16 bytes a step: counts the '\n' bytes and flags a '\n' followed
// by a byte that may start a blank or comment line. Flags are rare (none in ordinary files) and
// only send their block to the byte-by-byte check. Counts live in 8-bit lanes, so a block is at
// most 255 steps. Leaves the tail (at least the last byte, whose successor is not in the range).
void count_sse2(const char* begin, const char* end, const dialect& d, scan_state& st) {
  const auto n = static_cast<std::size_t>(end - begin);
  const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'),
                cm = _mm_set1_epi8(d.comment.empty() ? '\n' : d.comment.front());
  std::size_t i = st.i;
  while (i + 17 <= n) {
    const std::size_t steps = std::min<std::size_t>((n - 1 - i) / 16, 255);
    const std::size_t block_start = i;
    __m128i count = _mm_setzero_si128(), flags = _mm_setzero_si128();
    for (std::size_t k = 0; k < steps; ++k, i += 16) {
      const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(begin + i));
      const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(begin + i + 1));
      const __m128i is_nl = _mm_cmpeq_epi8(here, nl);
      const __m128i odd = _mm_or_si128(
          _mm_or_si128(_mm_cmpeq_epi8(next, nl), _mm_cmpeq_epi8(next, cr)),
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(next, sp), _mm_cmpeq_epi8(next, tab)), _mm_cmpeq_epi8(next, cm)));
      count = _mm_sub_epi8(count, is_nl);  // a match is -1
      flags = _mm_or_si128(flags, _mm_and_si128(is_nl, odd));
    }
    const __m128i sums = _mm_sad_epu8(count, _mm_setzero_si128());
    st.newlines += static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) +
                   static_cast<std::size_t>(_mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums)));
    if (_mm_movemask_epi8(flags) != 0) st.skipped += skipped_after_newlines(begin, end, block_start, i, d);
  }
  st.i = i;
}
#endif

}  // namespace

range_counts count_range(const char* begin, const char* end, const dialect& d) {
  range_counts counts;
  if (begin == end) return counts;
  const auto n = static_cast<std::size_t>(end - begin);
  scan_state st;
  st.skipped = maybe_skipped(begin[0], d) && skipped_line(begin, line_end(begin, end), d) ? 1 : 0;
#if defined(__SSE2__)
  count_sse2(begin, end, d, st);
#endif
  // bytes [0, st.i) are done; the scalar tail, then the last byte, whose successor is not ours
  for (std::size_t j = st.i; j + 1 < n; ++j) st.newlines += begin[j] == '\n';
  if (st.i + 1 < n) st.skipped += skipped_after_newlines(begin, end, st.i, n - 1, d);
  if (begin[n - 1] == '\n') ++st.newlines;
  counts.lines = static_cast<std::int64_t>(st.newlines) + (begin[n - 1] == '\n' ? 0 : 1);  // unterminated last line
  counts.rows = counts.lines - st.skipped;
  return counts;
}

// ---- pass 2 ----------------------------------------------------------------------------------

namespace {

const char* dtype_name(cell_kind kind) {
  switch (kind) {
    case cell_kind::f32:
      return "float32";
    case cell_kind::f64:
      return "float64";
    case cell_kind::i64:
      return "int64";
    case cell_kind::skip:
      break;
  }
  return "skipped";
}

std::string quoted(std::string_view text) {
  std::string out(1, '"');  // not "\"" + string&&: GCC 12 warns falsely (-Wrestrict) on that
  out += printable(text);
  out += '"';
  return out;
}

// The end of a finite float or double at p, or nullptr (not a plain number, or NaN/inf/overflow:
// slow_field sorts those out). Plain float32 decimals take the exact shortcut first.
template <class T>
const char* parse_finite(const char* p, const char* end, T& v) {
  if constexpr (std::is_same_v<T, float>) {
    if (const char* q = parse_float32_plain(p, end, v)) return q;
  }
  const auto r = fast_float::from_chars(p, end, v);
  return r.ec == std::errc() && std::isfinite(v) ? r.ptr : nullptr;
}

template <class T>
void store_float(std::string_view text, T* out, std::int64_t row, const scan_context& ctx, std::int64_t line,
                 std::size_t col, cell_kind kind) {
  T value{};
  const cell_status status = parse_float_cell(text, value);
  const bool allow = ctx.na == na_policy::nan;
  switch (status) {
    case cell_status::ok:
      break;
    case cell_status::empty:
      if (!allow)
        fail_cell(ctx, line, col,
                  "empty cell (fill it in; zeroflow.read_csv reads missing values as NaN with na=\"nan\")");
      break;
    case cell_status::missing:
      if (!allow)
        fail_cell(ctx, line, col,
                  "missing value " + quoted(text) +
                      " (fill it in; zeroflow.read_csv reads missing values as NaN with na=\"nan\")");
      break;
    case cell_status::infinite:
      if (!allow)
        fail_cell(
            ctx, line, col,
            "infinite value " + quoted(text) + " (zeroflow.read_csv reads non-finite values as NaN with na=\"nan\")");
      break;
    case cell_status::out_of_range:
      if (!allow)
        fail_cell(ctx, line, col,
                  quoted(text) + " is out of range for " + dtype_name(kind) +
                      " (zeroflow.read_csv reads it as infinity with na=\"nan\")");
      break;
    case cell_status::bad:
      fail_cell(ctx, line, col, "cannot parse " + quoted(text) + " as " + dtype_name(kind));
  }
  out[row] = value;
}

void store_int(std::string_view text, std::int64_t* out, std::int64_t row, const scan_context& ctx, std::int64_t line,
               std::size_t col) {
  std::int64_t value = 0;
  switch (parse_int_cell(text, value)) {
    case cell_status::ok:
      break;
    case cell_status::empty:
    case cell_status::missing:
    case cell_status::infinite:
      fail_cell(ctx, line, col,
                (text.empty() ? std::string("empty cell") : "missing value " + quoted(text)) +
                    " in an int64 column (int64 has no NaN; read the column as a float dtype)");
    case cell_status::out_of_range:
      fail_cell(ctx, line, col, quoted(text) + " is out of range for int64");
    case cell_status::bad:
      fail_cell(ctx, line, col, "cannot parse " + quoted(text) + " as int64");
  }
  out[row] = value;
}

// The number of fields of the line from `p` (a field start) on, for the too-many-fields message.
std::size_t count_fields(const char* p, const char* end, const dialect& d) {
  std::size_t fields = 1;
  for (;;) {
    lexed_field f = lex_field(p, end, d);
    if (f.status != lex_status::ok || at_line_end(f.stop, end)) return fields;
    ++fields;
    p = f.stop + 1;
  }
}

// The complete treatment of field `col` starting at p: quotes, blanks, ragged rows, missing
// values and every error. Returns where the field stopped: its delimiter or its line end.
const char* slow_field(const char* p, const char* end, std::size_t col, std::int64_t row, std::int64_t line,
                       const scan_context& ctx) {
  const std::size_t columns = ctx.plans.size();
  const lexed_field f = lex_field(p, end, ctx.d);
  if (f.status == lex_status::unclosed_quote)
    fail_cell(ctx, line, col, "quoted field is not closed on its line (a quoted field may not contain a line break)");
  if (f.status == lex_status::text_after_quote)
    fail_cell(ctx, line, col,
              "unexpected text after the closing quote: " +
                  quoted(std::string_view(f.stop, static_cast<std::size_t>(line_end(f.stop, end) - f.stop))));
  const bool ends_line = at_line_end(f.stop, end);
  if (ends_line && col + 1 < columns) {
    const bool unterminated = f.stop == end || (*f.stop == '\r' && f.stop + 1 == end);
    std::string what = "too few fields: found " + std::to_string(col + 1) + ", expected " + std::to_string(columns) +
                       " (column " + std::to_string(col + 2);
    if (col + 1 < ctx.header.size()) what += " (\"" + printable(ctx.header[col + 1]) + "\")";
    what += " is missing)";
    if (unterminated) what += "; the last line has no final newline: is the file truncated?";
    fail_line(ctx.name, line, what);
  }
  if (!ends_line && col + 1 == columns) {
    const std::size_t found = columns + count_fields(f.stop + 1, end, ctx.d);
    fail_line(ctx.name, line,
              "too many fields: found " + std::to_string(found) + ", expected " + std::to_string(columns));
  }
  const std::string_view text(f.begin, static_cast<std::size_t>(f.end - f.begin));
  const column_plan& plan = ctx.plans[col];
  switch (plan.kind) {
    case cell_kind::skip:
      break;
    case cell_kind::f32:
      store_float(text, static_cast<float*>(plan.out), row, ctx, line, col, plan.kind);
      break;
    case cell_kind::f64:
      store_float(text, static_cast<double*>(plan.out), row, ctx, line, col, plan.kind);
      break;
    case cell_kind::i64:
      store_int(text, static_cast<std::int64_t*>(plan.out), row, ctx, line, col);
      break;
  }
  return f.stop;
}

// One data row starting at p; returns the start of the next line. Each field first tries the
// one-step path (a plain number right up to its delimiter) and falls back to slow_field.
const char* parse_row(const char* p, const char* end, std::int64_t row, std::int64_t line, const scan_context& ctx) {
  const std::size_t columns = ctx.plans.size();
  const char delim = ctx.d.delimiter;
  for (std::size_t col = 0; col < columns; ++col) {
    const column_plan& plan = ctx.plans[col];
    const char* q = nullptr;
    switch (plan.kind) {
      case cell_kind::f32: {
        float v;
        q = parse_finite(p, end, v);
        if (q != nullptr) static_cast<float*>(plan.out)[row] = v;
        break;
      }
      case cell_kind::f64: {
        double v;
        q = parse_finite(p, end, v);
        if (q != nullptr) static_cast<double*>(plan.out)[row] = v;
        break;
      }
      case cell_kind::i64: {
        std::int64_t v;
        auto r = std::from_chars(p, end, v);
        if (r.ec == std::errc()) {
          static_cast<std::int64_t*>(plan.out)[row] = v;
          q = r.ptr;
        }
        break;
      }
      case cell_kind::skip:
        if (ctx.d.quote == 0 || p == end || *p != ctx.d.quote) {
          q = p;
          while (q < end && *q != delim && *q != '\n') ++q;
          if (q > p && (q == end || *q == '\n') && q[-1] == '\r') --q;
        }
        break;
    }
    if (q != nullptr) {
      if (col + 1 < columns) {
        if (q < end && *q == delim) {
          p = q + 1;
          continue;
        }
      } else if (at_line_end(q, end)) {
        return after_line_end(q, end);
      }
    }
    const char* stop = slow_field(p, end, col, row, line, ctx);
    if (col + 1 == columns) return after_line_end(stop, end);
    p = stop + 1;
  }
  return p;  // not reached: the last column returns
}

}  // namespace

namespace {

// The whole range for a file of one float column (the seeds' layout): a value and its line end
// per step, with parse_row taking over for any line that is not exactly that.
template <class T>
void parse_single_column(const char* p, const char* end, std::int64_t row, std::int64_t line, std::int64_t last_row,
                         const scan_context& ctx) {
  T* out = static_cast<T*>(ctx.plans.front().out);
  while (p < end) {
    if (maybe_skipped(*p, ctx.d)) {
      const char* eol = line_end(p, end);
      if (skipped_line(p, eol, ctx.d)) {
        p = next_line(eol, end);
        ++line;
        continue;
      }
    }
    if (row >= last_row) ZF_THROW(error, "internal: more rows than counted in ", ctx.name, " at line ", line);
    T v;
    const char* q = parse_finite(p, end, v);
    if (q != nullptr && q < end && *q == '\n') {
      out[row] = v;
      p = q + 1;
    } else if (q != nullptr && end - q >= 2 && q[0] == '\r' && q[1] == '\n') {  // CRLF files
      out[row] = v;
      p = q + 2;
    } else {
      p = parse_row(p, end, row, line, ctx);
    }
    ++row;
    ++line;
  }
  if (row != last_row) ZF_THROW(error, "internal: ", row, " rows parsed, ", last_row, " counted");
}

}  // namespace

void parse_range(const char* begin, const char* end, std::int64_t first_row, std::int64_t first_line, std::int64_t rows,
                 const scan_context& ctx) {
  const std::int64_t last_row = first_row + rows;
  if (ctx.plans.size() == 1 && ctx.plans.front().kind == cell_kind::f32)
    return parse_single_column<float>(begin, end, first_row, first_line, last_row, ctx);
  if (ctx.plans.size() == 1 && ctx.plans.front().kind == cell_kind::f64)
    return parse_single_column<double>(begin, end, first_row, first_line, last_row, ctx);
  const char* p = begin;
  std::int64_t row = first_row;
  std::int64_t line = first_line;
  while (p < end) {
    if (maybe_skipped(*p, ctx.d)) {
      const char* eol = line_end(p, end);
      if (skipped_line(p, eol, ctx.d)) {
        p = next_line(eol, end);
        ++line;
        continue;
      }
    }
    // Pass 1 and pass 2 share the line rules; a disagreement would write out of bounds.
    if (row >= last_row) ZF_THROW(error, "internal: more rows than counted in ", ctx.name, " at line ", line);
    p = parse_row(p, end, row, line, ctx);
    ++row;
    ++line;
  }
  if (row != last_row) ZF_THROW(error, "internal: ", row - first_row, " rows parsed, ", rows, " counted");
}

}  // namespace zeroflow::io::detail
