// Fuzzes read_csv's host reader on text in memory, and checks two other readings of the same
// bytes against it:
//   - the host reader again, on two threads with tiny work ranges (every range split, errors
//     found out of order): the same table, or the same error;
//   - the GPU parser's host-callable core (csv_cuda_layout, csv_cuda_segments, csv_cuda_row,
//     csv_cuda_number), run segment by segment as the kernels run it, with undecided cells settled
//     by the host as csv_cuda.cpp settles them: the same values bit for bit when the host reader
//     accepts the input, and a refused row on the line the host reader names when it does not.
//
// Input: one byte of options (bits 0-1 delimiter ',' ';' '\t' or detected, 2-3 header mode,
// 4 missing values as NaN, 5-6 dtype float32 float64 int64, 7 quoting off), then the CSV text.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "csv/csv_cells.hpp"
#include "csv/csv_cuda_layout.hpp"
#include "csv/csv_cuda_number.hpp"
#include "csv/csv_cuda_segments.hpp"
#include "csv_cuda_source.hpp"
#include "fuzz_support.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/csv.hpp"

namespace {

namespace io = zeroflow::io;
namespace detail = zeroflow::io::detail;
namespace seg = zeroflow::io::detail::csv_segments;
namespace row = zeroflow::io::detail::csv_row;
using zeroflow::fuzz::check;

constexpr std::string_view input_name = "fuzz.csv";

io::csv_options options_of(std::uint8_t bits) {
  io::csv_options o;
  constexpr char delimiters[] = {',', ';', '\t', 0};
  o.delimiter = delimiters[bits & 3u];
  constexpr io::header_mode headers[] = {io::header_mode::auto_detect, io::header_mode::yes, io::header_mode::no,
                                         io::header_mode::auto_detect};
  o.header = headers[(bits >> 2) & 3u];
  o.na = (bits & 16u) != 0 ? io::na_policy::nan : io::na_policy::error;
  const zeroflow::dtype types[] = {zeroflow::float32, zeroflow::float64, zeroflow::int64, zeroflow::float32};
  o.default_type = types[(bits >> 5) & 3u];
  if ((bits & 128u) != 0) o.quote = 0;
  o.threads = 1;
  return o;
}

/// The table, or the parse_error's message.
struct outcome {
  std::optional<zeroflow::table> table;
  std::string error;
};

outcome read(std::string_view text, const io::csv_options& options) {
  outcome out;
  try {
    out.table = io::read_csv_buffer(text, input_name, options);
  } catch (const zeroflow::parse_error& e) {
    out.error = e.what();
  }
  return out;
}

std::uint64_t bits_at(const zeroflow::array& column, std::int64_t i) {
  if (column.type() == zeroflow::float32) return detail::csv_number::bits_of(column.data_as<float>()[i]);
  if (column.type() == zeroflow::float64) return detail::csv_number::bits_of(column.data_as<double>()[i]);
  return static_cast<std::uint64_t>(column.data_as<std::int64_t>()[i]);
}

bool same(const outcome& a, const outcome& b) {
  if (a.table.has_value() != b.table.has_value()) return false;
  if (!a.table) return a.error == b.error;
  if (a.table->names != b.table->names || a.table->num_columns() != b.table->num_columns()) return false;
  for (std::size_t c = 0; c < a.table->num_columns(); ++c) {
    const zeroflow::array& x = a.table->columns[c];
    const zeroflow::array& y = b.table->columns[c];
    if (x.type() != y.type() || x.size() != y.size()) return false;
    for (std::int64_t i = 0; i < x.size(); ++i)
      if (bits_at(x, i) != bits_at(y, i)) return false;
  }
  return true;
}

/// The line number of a "fuzz.csv:LINE: ..." message, or -1.
long long line_of(const std::string& message) {
  const std::string prefix = std::string(input_name) + ":";
  if (message.rfind(prefix, 0) != 0) return -1;
  long long line = 0;
  std::size_t i = prefix.size();
  if (i >= message.size() || message[i] < '0' || message[i] > '9') return -1;
  for (; i < message.size() && message[i] >= '0' && message[i] <= '9'; ++i) line = line * 10 + (message[i] - '0');
  return i < message.size() && message[i] == ':' ? line : -1;
}

/// What the GPU path makes of the input: declined (the host reader takes it), or its rows.
struct gpu_outcome {
  bool declined{false};
  long long rows{0};
  long long first_bad_line{std::numeric_limits<long long>::max()};  // refused rows and cells
  std::vector<std::vector<std::uint64_t>> columns;                  // bits per selected column
};

/// The host's value for an undecided cell (csv_cuda.cpp's host_cell_bits), or nullopt when the
/// host refuses the cell.
std::optional<std::uint64_t> settle(std::string_view cell, bool is_double, io::na_policy na) {
  double d = 0;
  float f = 0;
  const detail::cell_status status = is_double ? detail::parse_float_cell(cell, d) : detail::parse_float_cell(cell, f);
  if (status == detail::cell_status::bad || (status != detail::cell_status::ok && na != io::na_policy::nan))
    return std::nullopt;
  return is_double ? detail::csv_number::bits_of(d) : detail::csv_number::bits_of(f);
}

gpu_outcome read_like_the_gpu(std::string_view text, const io::csv_options& options) {
  gpu_outcome out;
  const detail::memory_source source(text);
  std::string why;
  const std::optional<detail::csv_layout> layout = detail::plan_layout(source, options, why);
  if (!layout || layout->comment.size() > static_cast<std::size_t>(row::max_comment) ||
      layout->data_offset == text.size()) {
    out.declined = true;
    return out;
  }
  // The data rows as the GPU holds them: padded with zeros to whole segments.
  const auto n = static_cast<std::int64_t>(text.size() - layout->data_offset);
  const std::int64_t segments = (n + seg::segment_bytes - 1) / seg::segment_bytes;
  std::string padded(text.substr(layout->data_offset));
  padded.resize(static_cast<std::size_t>(segments * seg::segment_bytes), '\0');
  row::row_dialect d{layout->delimiter, layout->quote, static_cast<std::uint8_t>(layout->comment.size()), {}};
  std::copy(layout->comment.begin(), layout->comment.end(), d.comment);

  // Pass 1 and its running sums.
  std::vector<seg::line_counts> before(static_cast<std::size_t>(segments) + 1, seg::line_counts{0, 0});
  for (std::int64_t s = 0; s < segments; ++s) {
    const seg::segment one = seg::load_segment(padded.data(), n, s);
    before[static_cast<std::size_t>(s) + 1] =
        seg::add(before[static_cast<std::size_t>(s)], seg::count_segment(padded.data(), n, one, d));
  }
  out.rows = before.back().rows;
  if (out.rows == 0) {
    out.declined = true;
    return out;
  }

  // Pass 2, into poisoned columns.
  const std::size_t columns = layout->names.size();
  std::vector<std::uint32_t> f32(columns * static_cast<std::size_t>(out.rows), 0xdeadbeefu);
  std::vector<std::uint64_t> f64(columns * static_cast<std::size_t>(out.rows), 0xdeadbeefdeadbeefull);
  std::vector<std::int64_t> i64(columns * static_cast<std::size_t>(out.rows), -0x2152411021524111ll);
  std::vector<row::column_out> plans(columns);
  for (const std::size_t index : layout->selected) {
    const zeroflow::dtype type = layout->types[index];
    const std::size_t base = index * static_cast<std::size_t>(out.rows);
    if (type == zeroflow::float64)
      plans[index] = {row::column_kind::f64, f64.data() + base};
    else if (type == zeroflow::int64)
      plans[index] = {row::column_kind::i64, i64.data() + base};
    else
      plans[index] = {row::column_kind::f32, f32.data() + base};
  }
  const row::row_params params{d, options.na == io::na_policy::nan, static_cast<std::int32_t>(columns), plans.data(),
                               detail::csv_number::host_pow5_table()};
  struct settled {
    long long row;
    std::size_t column;
    std::uint64_t bits;
  };
  std::vector<settled> settled_cells;
  for (std::int64_t s = 0; s < segments; ++s) {
    const seg::segment one = seg::load_segment(padded.data(), n, s);
    const auto& b = before[static_cast<std::size_t>(s)];
    seg::parse_segment(
        padded.data(), n, one, params, b.rows, layout->data_line + b.lines,
        [&](long long line, long long) { out.first_bad_line = std::min(out.first_bad_line, line); },
        [&](long long r, long long line, long long, int column, long long begin, long long end) {
          const auto c = static_cast<std::size_t>(column);
          const std::string_view cell(padded.data() + begin, static_cast<std::size_t>(end - begin));
          const auto bits = settle(cell, layout->types[c] == zeroflow::float64, options.na);
          if (bits)
            settled_cells.push_back({r, c, *bits});
          else
            out.first_bad_line = std::min(out.first_bad_line, line);
        });
  }

  for (const std::size_t index : layout->selected) {
    const zeroflow::dtype type = layout->types[index];
    const std::size_t base = index * static_cast<std::size_t>(out.rows);
    std::vector<std::uint64_t> values(static_cast<std::size_t>(out.rows));
    for (std::size_t r = 0; r < values.size(); ++r)
      values[r] = type == zeroflow::float64 ? f64[base + r]
                  : type == zeroflow::int64 ? static_cast<std::uint64_t>(i64[base + r])
                                            : f32[base + r];
    for (const settled& c : settled_cells)
      if (c.column == index) values[static_cast<std::size_t>(c.row)] = c.bits;
    out.columns.push_back(std::move(values));
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const io::csv_options options = options_of(data[0]);
  const std::string_view text = zeroflow::fuzz::as_text(data + 1, size - 1);

  const outcome host = read(text, options);

  io::csv_options split = options;
  split.threads = 2;
  split.chunk_bytes = 1 + text.size() % 7;
  check(same(host, read(text, split)), "one thread and many small ranges read the text differently");

  const gpu_outcome gpu = read_like_the_gpu(text, options);
  if (host.table) {
    check(!gpu.declined, "the GPU path declines text the host reader accepts");
    check(gpu.first_bad_line == std::numeric_limits<long long>::max(), "the GPU path refuses a row the host accepts");
    check(gpu.rows == host.table->num_rows() && gpu.columns.size() == host.table->num_columns(),
          "the GPU path finds another number of rows or columns");
    for (std::size_t c = 0; c < gpu.columns.size(); ++c)
      for (std::size_t r = 0; r < gpu.columns[c].size(); ++r)
        check(gpu.columns[c][r] == bits_at(host.table->columns[c], static_cast<std::int64_t>(r)),
              "the GPU path parses a cell to other bits than the host reader");
  } else if (!gpu.declined && line_of(host.error) >= 0) {
    // (An error without a line is a refusal of the whole input by its first bytes: binary,
    // compressed or UTF-16 text. read_csv makes it before choosing a path, so the GPU never sees it.)
    check(gpu.first_bad_line != std::numeric_limits<long long>::max(),
          "the GPU path accepts every row of text the host reader refuses");
    check(gpu.first_bad_line == line_of(host.error), "the GPU path's first refused row is not the host reader's line");
  }
  return 0;
}
