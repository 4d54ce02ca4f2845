#include "zeroflow/io/csv.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <fstream>
#include <limits>
#include <thread>

#include "../parallel_tasks.hpp"
#include "csv_cells.hpp"
#include "csv_lexer.hpp"
#include "csv_scan.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/detail/csv_cuda.hpp"
#include "zeroflow/io/mapped_file.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::io {

std::string column_ref::describe() const {
  if (by_name()) return "\"" + name_ + "\"";
  if (negative_) return "a negative index";
  return "index " + std::to_string(*index_);
}

namespace {

using detail::dialect;
using detail::lex_status;
using detail::lexed_field;

// ---- entry checks: what is not CSV text is named before a byte of it is parsed ----

constexpr std::size_t sniffed_bytes = 512;

bool starts_with(std::string_view head, std::string_view magic) { return head.substr(0, magic.size()) == magic; }

/// An EDF header: "0" and seven spaces, then at bytes 184-191 the header's size, a multiple of 256.
bool looks_like_edf(std::string_view head) {
  if (head.size() < 256 || !starts_with(head, "0       ")) return false;
  std::size_t header_bytes = 0;
  for (const char c : head.substr(184, 8)) {
    if (c == ' ') continue;
    if (c < '0' || c > '9') return false;
    header_bytes = header_bytes * 10 + static_cast<std::size_t>(c - '0');
  }
  return header_bytes >= 256 && header_bytes % 256 == 0;
}

/// Refuses compressed, binary and UTF-16/32 input by its first bytes, with what to do instead;
/// parsed, such a file would fail with its raw bytes quoted in the message.
void refuse_non_text(std::string_view head, std::string_view name) {
  struct format {
    std::string_view magic;
    const char* what;
  };
  static constexpr std::array<format, 12> formats = {{
      {"\x1f\x8b", "a gzip file; decompress it first (gunzip)"},
      {"PK\x03\x04", "a ZIP archive (or an Excel .xlsx workbook); extract it, or save the sheet as CSV"},
      {std::string_view("\xfd\x37zXZ\0", 6), "an xz file; decompress it first (unxz)"},
      {"\x28\xb5\x2f\xfd", "a zstd file; decompress it first (unzstd)"},
      {"7z\xbc\xaf\x27\x1c", "a 7-Zip archive; extract it first"},
      {"\x89HDF\r\n\x1a\n", "an HDF5 file, not CSV text"},
      {"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an Excel .xls workbook (or another OLE file); save the sheet as CSV"},
      {"%PDF-", "a PDF document, not CSV text"},
      {std::string_view("\xff\xfe\0\0", 4), "UTF-32 text; save it as UTF-8 (iconv -f UTF-32 -t UTF-8)"},
      {std::string_view("\0\0\xfe\xff", 4), "UTF-32 text; save it as UTF-8 (iconv -f UTF-32 -t UTF-8)"},
      {"\xff\xfe", "UTF-16 text; save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"},
      {"\xfe\xff", "UTF-16 text; save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"},
  }};
  for (const auto& f : formats)
    if (starts_with(head, f.magic)) throw parse_error(zeroflow::detail::concat(name, ": this looks like ", f.what));
  if (head.size() >= 10 && starts_with(head, "BZh") && head[3] >= '1' && head[3] <= '9' &&
      head.substr(4, 6) == "1AY&SY")
    throw parse_error(zeroflow::detail::concat(name, ": this looks like a bzip2 file; decompress it first (bunzip2)"));
  if (looks_like_edf(head))
    throw parse_error(zeroflow::detail::concat(name, ": this looks like an EDF recording, not CSV text; name it .edf"));
  // Text holds no NUL bytes; UTF-16 without a byte-order mark has one in every other byte.
  const std::size_t nul = head.find('\0');
  if (nul == std::string_view::npos) return;
  std::size_t even = 0, odd = 0;
  for (std::size_t i = 0; i < head.size(); ++i)
    if (head[i] == '\0') ++(i % 2 == 0 ? even : odd);
  if (head.size() >= 8 && (even >= head.size() / 2 - 1 || odd >= head.size() / 2 - 1) && (even == 0 || odd == 0))
    throw parse_error(
        zeroflow::detail::concat(name, ": this looks like UTF-16 text; save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"));
  throw parse_error(
      zeroflow::detail::concat(name, ": byte ", nul + 1, " is a NUL byte: this is a binary file, not CSV text"));
}

/// The entry of read_csv: a FIFO, socket or device is refused before it is opened for reading
/// (which would wait for a writer forever), then the first bytes are checked for non-text formats.
/// A file that cannot be opened is left to the reader, whose message says why.
void check_csv_file(const std::filesystem::path& path, std::string_view name) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  std::array<char, sniffed_bytes> head{};
  ssize_t got = 0;
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (regular) got = ::pread(fd, head.data(), head.size(), 0);
  ::close(fd);
  if (!regular)
    throw parse_error(zeroflow::detail::concat(name, " is not a regular file (a FIFO, socket, device or folder); ",
                                               "CSV is read from files: save the data to one first"));
  if (got > 0) refuse_non_text(std::string_view(head.data(), static_cast<std::size_t>(got)), name);
}

bool number_char(char c) { return (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-'; }
bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

void validate(const csv_options& o) {
  const char d = o.delimiter;
  if (d != 0) {
    ZF_EXPECTS(d != '\n' && d != '\r' && !number_char(d) && !letter(d), "csv delimiter '",
               detail::printable(std::string_view(&d, 1)),
               "' is not allowed (line breaks, letters, digits, '.', '+' and '-' are refused)");
    ZF_EXPECTS(d != o.quote, "csv delimiter and quote are the same character '", d, "'");
  }
  ZF_EXPECTS(o.quote != '\n' && o.quote != '\r' && o.quote != ' ' && o.quote != '\t' && !number_char(o.quote) &&
                 !letter(o.quote),
             "csv quote character '", detail::printable(std::string_view(&o.quote, 1)), "' is not allowed");
  ZF_EXPECTS(o.comment.find_first_of("\r\n") == std::string::npos, "csv comment prefix may not hold a line break");
  ZF_EXPECTS(o.comment.empty() || !number_char(o.comment.front()), "csv comment prefix \"", o.comment,
             "\" would make numbers comments");
  auto check_type = [](dtype t) {
    ZF_EXPECTS(t == float32 || t == float64 || t == int64, "read_csv reads float32, float64 or int64 columns, not ",
               t.name());
  };
  check_type(o.default_type);
  for (const auto& ct : o.types) check_type(ct.type);
}

// The fields of one line (the header, or the first row when there is none).
std::vector<lexed_field> split_line(const char* p, const char* end, const dialect& d, std::string_view name,
                                    std::int64_t line) {
  std::vector<lexed_field> fields;
  for (;;) {
    lexed_field f = detail::lex_field(p, end, d);
    const std::string col = "column " + std::to_string(fields.size() + 1) + ": ";
    if (f.status == lex_status::unclosed_quote)
      detail::fail_line(name, line,
                        col + "quoted field is not closed on its line (a quoted field may not contain a line break)");
    if (f.status == lex_status::text_after_quote)
      detail::fail_line(name, line, col + "unexpected text after the closing quote");
    fields.push_back(f);
    if (detail::at_line_end(f.stop, end)) return fields;
    p = f.stop + 1;
  }
}

// Index of the file column that `ref` names, or a parse_error saying why there is none.
std::size_t resolve(const column_ref& ref, const std::vector<std::string>& names, bool has_header,
                    std::string_view input, const char* what) {
  if (!ref.by_name()) {
    if (ref.negative() || ref.index() >= names.size())
      throw parse_error(zeroflow::detail::concat(input, ": ", what, " ", ref.describe(),
                                                 " is out of range: the file has ", names.size(),
                                                 " column(s) (indices are 0-based)"));
    return ref.index();
  }
  std::size_t found = names.size();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] != ref.name()) continue;
    if (found != names.size())
      throw parse_error(zeroflow::detail::concat(input, ": ", what, " ", ref.describe(), " is ambiguous: columns ",
                                                 found + 1, " and ", i + 1, " have that name; select by index"));
    found = i;
  }
  if (found == names.size()) {
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i) list += (i ? ", \"" : "\"") + detail::printable(names[i]) + "\"";
    throw parse_error(
        zeroflow::detail::concat(input, ": no column named \"", ref.name(), "\" (", what, "); ",
                                 has_header ? "available: " : "the file has no header; columns are named ", list));
  }
  return found;
}

detail::cell_kind kind_of(dtype t) {
  if (t == float64) return detail::cell_kind::f64;
  if (t == int64) return detail::cell_kind::i64;
  return detail::cell_kind::f32;
}

// Range starts: the first line start at or after every multiple of `chunk` bytes.
std::vector<const char*> split_ranges(const char* begin, const char* end, std::size_t chunk) {
  std::vector<const char*> starts{begin};
  const auto size = static_cast<std::size_t>(end - begin);
  for (std::size_t offset = chunk; offset < size; offset += chunk) {
    const char* nominal = begin + offset;
    const char* start = nominal[-1] == '\n' ? nominal : detail::next_line(detail::line_end(nominal, end), end);
    if (start == end) break;
    if (start > starts.back()) starts.push_back(start);
    // A line longer than `chunk` would otherwise be searched again from every multiple inside it.
    const auto reached = static_cast<std::size_t>(start - begin);
    offset = std::max(offset, (reached - 1) / chunk * chunk);
  }
  starts.push_back(end);
  return starts;
}

// From `p` (a line start, line number `line`) on: the first blank line between two data rows is
// refused; comment lines, and blank lines before the first row or after the last, are not.
void refuse_blank_between_rows(const char* p, const char* end, std::int64_t line, bool row_before, const dialect& d,
                               std::string_view name) {
  std::int64_t blank = 0;  // the first blank line since the last data row, 0 when none
  for (; p < end; ++line) {
    const char* eol = detail::line_end(p, end);
    if (!detail::skipped_line(p, eol, d)) {
      row_before = true;
      if (blank != 0)
        throw parse_error(zeroflow::detail::concat(
            name, ':', blank,
            ": a blank line between samples: each line is one sample in time, so skipping it would move every later "
            "sample earlier. Delete the line if no sample is missing there, or write the missing sample's value"));
    } else if (row_before && blank == 0 &&
               std::all_of(p, eol, [](char c) { return c == ' ' || c == '\t' || c == '\r'; })) {
      blank = line;  // a comment line is no sample, and says so
    }
    p = detail::next_line(eol, end);
  }
}

// The part of a file before its data rows: the dialect, the column names (from the header, else
// "0", "1", ...) and where the data begin.
struct csv_head {
  dialect d;
  std::vector<std::string> names;
  bool has_header = false;
  std::int64_t header_line = 1;
  const char* data = nullptr;
  std::int64_t data_line = 1;
};

csv_head read_head(std::string_view text, std::string_view name, const csv_options& options) {
  const char* begin = text.data();
  const char* const end = begin + text.size();
  if (text.size() >= 3 && std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0) begin += 3;  // UTF-8 byte-order mark
  if (begin == end) throw parse_error(zeroflow::detail::concat(name, ": the file is empty"));

  // ---- the first line that is not blank or a comment: header or first row ----
  csv_head h;
  h.d = {options.delimiter, options.quote, options.comment};
  std::int64_t line = 1;
  const char* first = begin;
  const char* first_eol = detail::line_end(first, end);
  while (detail::skipped_line(first, first_eol, h.d)) {
    first = detail::next_line(first_eol, end);
    ++line;
    if (first == end)
      throw parse_error(zeroflow::detail::concat(name, ": no data: the file holds only blank lines and comments"));
    first_eol = detail::line_end(first, end);
  }
  if (h.d.delimiter == 0) h.d.delimiter = detail::detect_delimiter(first, first_eol, h.d.quote);
  const auto cells = split_line(first, end, h.d, name, line);
  h.has_header = options.header == header_mode::yes;
  if (options.header == header_mode::auto_detect)
    h.has_header = std::any_of(cells.begin(), cells.end(), [](const lexed_field& f) {
      return f.escaped || !detail::looks_numeric(std::string_view(f.begin, static_cast<std::size_t>(f.end - f.begin)));
    });
  for (std::size_t i = 0; i < cells.size(); ++i)
    h.names.push_back(h.has_header ? detail::unescape(cells[i], h.d.quote) : std::to_string(i));
  h.header_line = line;
  h.data = h.has_header ? detail::next_line(first_eol, end) : first;
  h.data_line = h.has_header ? line + 1 : line;
  return h;
}

table parse(std::string_view text, std::string_view name, const csv_options& options, stream_view stream) {
  validate(options);
  if (options.where.type == device_type::cuda) require_cuda("read_csv to a CUDA device");
  const char* const end = text.data() + text.size();
  csv_head head = read_head(text, name, options);
  const dialect& d = head.d;
  const std::vector<std::string>& names = head.names;
  const bool has_header = head.has_header;
  const std::int64_t header_line = head.header_line;
  const char* data = head.data;
  const std::int64_t data_line = head.data_line;

  // ---- which columns, as which dtype ----
  std::vector<std::size_t> selected;
  if (options.columns.empty()) {
    for (std::size_t i = 0; i < names.size(); ++i) selected.push_back(i);
  } else {
    for (const auto& ref : options.columns) {
      const std::size_t index = resolve(ref, names, has_header, name, "requested column");
      if (std::find(selected.begin(), selected.end(), index) != selected.end())
        ZF_THROW(invalid_argument, "read_csv: column ", index + 1, " (\"", names[index], "\") is requested twice");
      selected.push_back(index);
    }
  }
  std::vector<dtype> types(names.size(), options.default_type);
  for (const auto& ct : options.types) types[resolve(ct.column, names, has_header, name, "typed column")] = ct.type;

  // ---- ranges of whole lines, pass 1 (count) ----
  const unsigned threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const auto region = static_cast<std::size_t>(end - data);
  std::size_t chunk = options.chunk_bytes;
  if (chunk == 0) {
    // A few ranges per thread evens out the load; ranges under 256 KiB cost more than they save.
    chunk =
        threads == 1 ? std::max<std::size_t>(region, 1) : std::max<std::size_t>(region / (8 * threads) + 1, 256 << 10);
  }
  const std::vector<const char*> starts = split_ranges(data, end, chunk);
  const std::size_t ranges = starts.size() - 1;

  const auto total = static_cast<std::uint64_t>(text.size());
  std::atomic<std::uint64_t> counted_bytes{0}, parsed_bytes{0};
  std::uint64_t reported = 0;
  std::function<void()> tick;
  if (options.progress) {
    tick = [&] {
      // Both passes read every byte; half the sum is a fair "bytes done", kept monotone.
      const std::uint64_t done = std::min(total, (counted_bytes.load() + parsed_bytes.load()) / 2);
      reported = std::max(reported, done);
      options.progress(reported, total);
    };
  }
  const std::uint64_t skipped_prefix = static_cast<std::uint64_t>(data - text.data());
  counted_bytes = skipped_prefix;
  parsed_bytes = skipped_prefix;

  std::vector<detail::range_counts> counts(ranges);
  detail::run_tasks(
      ranges, threads,
      [&](std::size_t i) {
        counts[i] = detail::count_range(starts[i], starts[i + 1], d);
        counted_bytes += static_cast<std::uint64_t>(starts[i + 1] - starts[i]);
      },
      tick);

  std::vector<std::int64_t> first_row(ranges + 1, 0), first_line(ranges + 1, data_line);
  for (std::size_t i = 0; i < ranges; ++i) {
    first_row[i + 1] = first_row[i] + counts[i].rows;
    first_line[i + 1] = first_line[i] + counts[i].lines;
  }
  const std::int64_t rows = first_row[ranges];
  if (rows == 0)  // the first content line is a row unless it is the header
    throw parse_error(zeroflow::detail::concat(name, ':', header_line, ": the file has a header but no data rows"));
  if (options.blank == blank_lines::refuse) {
    // Pass 1 counts every line it skips; only a range that skipped one is looked at line by line.
    for (std::size_t i = 0; i < ranges; ++i)
      if (counts[i].lines != counts[i].rows) {
        // Every range before this one skipped nothing, so holds a row.
        refuse_blank_between_rows(starts[i], end, first_line[i], i > 0, d, name);
        break;
      }
  }

  // ---- pass 2 (parse straight into the columns) ----
  // CUDA output is parsed into ordinary host memory and copied: pinning 80 MB (cudaMallocHost)
  // costs more than the faster copy from pinned memory saves. Only inputs the GPU reader
  // declines (csv_cuda.cpp) come this way.
  const device staging = options.where.host_accessible() ? options.where : cpu_device;
  std::vector<array> host_columns;
  detail::scan_context ctx{name, d, has_header ? names : std::vector<std::string>{},
                           std::vector<detail::column_plan>(names.size()), options.na};
  for (std::size_t index : selected) {
    host_columns.push_back(empty({rows}, types[index], staging, stream));
    ctx.plans[index] = {kind_of(types[index]), host_columns.back().data()};
  }
  detail::run_tasks(
      ranges, threads,
      [&](std::size_t i) {
        detail::parse_range(starts[i], starts[i + 1], first_row[i], first_line[i], counts[i].rows, ctx);
        parsed_bytes += static_cast<std::uint64_t>(starts[i + 1] - starts[i]);
      },
      tick);
  if (options.progress) options.progress(total, total);

  table out;
  for (std::size_t k = 0; k < selected.size(); ++k) {
    out.names.push_back(names[selected[k]]);
    out.columns.push_back(staging == options.where ? host_columns[k] : copy_to(host_columns[k], options.where, stream));
  }
  if (staging != options.where) synchronize(stream);  // the host columns die with this frame
  return out;
}

}  // namespace

void prepare_csv_reads(device where, stream_view stream) {
  // Without CUDA (a CPU build, or no GPU) the CUDA side throws cuda_error, as read_csv would.
  if (where.type == device_type::cuda) detail::prepare_csv_cuda_reads(where, stream);
}

table read_csv_buffer(std::string_view text, std::string_view name_for_errors, const csv_options& options,
                      stream_view stream) {
  refuse_non_text(text.substr(0, sniffed_bytes), name_for_errors);
#if ZEROFLOW_HAS_CUDA
  // CUDA output is parsed on the GPU (csv_cuda.cpp), which hands back to this reader, with a
  // CPU target, whatever it does not take (bad options or header, no data rows).
  if (options.where.type == device_type::cuda)
    return detail::read_csv_cuda_buffer(text, name_for_errors, options, stream);
#endif
  return parse(text, name_for_errors, options, stream);
}

std::vector<std::string> csv_column_names(const std::filesystem::path& path, const csv_options& options) {
  check_csv_file(path, path.string());
  // The header sits in the first lines: a MiB of them, cut after the last whole line, unless a
  // file of comments needs more (then the whole file, as read_csv would read it).
  constexpr std::size_t head_bytes = std::size_t{1} << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw parse_error(zeroflow::detail::concat("cannot open \"", path.string(), "\" for reading"));
  std::string text(head_bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  refuse_non_text(std::string_view(text).substr(0, sniffed_bytes), path.string());
  if (text.size() == head_bytes) {
    const auto last = text.rfind('\n');
    try {
      if (last != std::string::npos)
        return read_head(std::string_view(text).substr(0, last + 1), path.string(), options).names;
    } catch (const parse_error&) {
      // no data line in the first MiB: read on
    }
    const mapped_file file(path, access_pattern::sequential);
    return read_head(std::string_view(file.data(), file.size()), path.string(), options).names;
  }
  return read_head(text, path.string(), options).names;
}

table read_csv(const std::filesystem::path& path, const csv_options& options, stream_view stream) {
  check_csv_file(path, path.string());
#if ZEROFLOW_HAS_CUDA
  if (options.where.type == device_type::cuda) return detail::read_csv_cuda(path, options, stream);  // see above
#endif
  const std::string name = path.string();
  std::optional<mapped_file> file;
  try {
    file.emplace(path, access_pattern::sequential);
  } catch (const parse_error&) {
    throw;
  } catch (const error& e) {
    // A file that cannot be read is bad input like one that does not parse.
    throw parse_error(e.what());
  }
  return parse(file->view(), name, options, stream);
}

}  // namespace zeroflow::io
