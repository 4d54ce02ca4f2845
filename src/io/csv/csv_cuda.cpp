// read_csv's CUDA path (include/zeroflow/io/detail/csv_cuda.hpp): the host side. The header is
// read here (csv_cuda_layout), the data rows are staged to the GPU (csv_cuda_staging) and
// parsed there (csv_cuda_kernels.cu); the host then settles the few undecided cells and, for a
// bad row, lets the host reader word the error from that one line.
#include "zeroflow/io/detail/csv_cuda.hpp"

#include "zeroflow/config.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/io/csv.hpp"
#include "zeroflow/memory/allocate.hpp"

#if ZEROFLOW_HAS_CUDA
#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

#include "../csv_cuda_source.hpp"
#include "../csv_cuda_staging.hpp"
#include "csv_cells.hpp"
#include "csv_cuda_kernels.hpp"
#include "csv_cuda_layout.hpp"
#include "csv_scan.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/detail/cuda_launch.hpp"
#include "zeroflow/core/transfers.hpp"
#endif

namespace zeroflow::io::detail {

#if ZEROFLOW_HAS_CUDA

namespace {

// The host reader, then a copy to the device: for inputs the GPU path declines (the reader
// throws the right error for those that are bad).
table read_on_host(const std::filesystem::path* path, std::string_view text, std::string_view name,
                   const csv_options& options, stream_view stream) {
  csv_options host = options;
  host.where = cpu_device;  // read_csv only routes CUDA targets here: no recursion
  table parsed = path != nullptr ? read_csv(*path, host, stream) : read_csv_buffer(text, name, host, stream);
  table out;
  out.names = std::move(parsed.names);
  for (const array& column : parsed.columns) out.columns.push_back(copy_to(column, options.where, stream));
  synchronize(stream);  // the host columns die with this frame
  return out;
}

using csv_gpu::host_value;
using csv_gpu::line_counts;
using csv_gpu::parse_status;
using csv_gpu::undecided_cell;

using zeroflow::detail::launch::raw;
using zeroflow::detail::launch::read_back;

// Device bytes from the current resource, released in stream order with the returned array.
array device_bytes(std::size_t bytes, device where, stream_view stream) {
  return empty({static_cast<std::int64_t>(std::max<std::size_t>(bytes, 1))}, uint8, where, stream);
}

csv_row::column_kind kind_of(dtype t) {
  if (t == float64) return csv_row::column_kind::f64;
  if (t == int64) return csv_row::column_kind::i64;
  return csv_row::column_kind::f32;
}

cell_kind host_kind_of(dtype t) {
  if (t == float64) return cell_kind::f64;
  if (t == int64) return cell_kind::i64;
  return cell_kind::f32;
}

// Throws the host reader's error for the line starting at `offset` (line number `line`), by
// parsing that line alone with the host reader's own row code.
[[noreturn]] void throw_line_error(const byte_source& source, std::size_t offset, std::int64_t line,
                                   const csv_layout& layout, const csv_options& options, std::string_view name) {
  const std::string text = source.read_line(offset);
  std::vector<std::uint64_t> sink(layout.names.size());
  scan_context ctx{name, layout.lexer_dialect(), layout.has_header ? layout.names : std::vector<std::string>{},
                   std::vector<column_plan>(layout.names.size()), options.na};
  for (std::size_t index : layout.selected) ctx.plans[index] = {host_kind_of(layout.types[index]), &sink[index]};
  parse_range(text.data(), text.data() + text.size(), 0, line, 1, ctx);  // throws parse_error
  ZF_THROW(error, "read_csv (CUDA): the GPU refused line ", line, " of ", name,
           " but the host reader accepts it; please report this");
}

// The value of an undecided cell, or nullopt when the host reader refuses the cell.
template <class T>
std::optional<std::uint64_t> host_cell_bits(std::string_view text, na_policy na) {
  T value{};
  const cell_status status = parse_float_cell(text, value);
  if (status == cell_status::bad || (status != cell_status::ok && na != na_policy::nan)) return std::nullopt;
  return csv_number::bits_of(value);
}

struct gpu_input {
  const byte_source& source;
  const std::filesystem::path* path;  // null for text in memory
  std::string_view text;
  std::string_view name;
};

// Data rows up to this size go to the GPU in one copy from pageable memory: pinning staging
// chunks for them would cost more than the copy.
constexpr std::int64_t direct_copy_limit = std::int64_t{4} << 20;

table read_on_gpu(const gpu_input& in, const csv_options& options, stream_view stream, csv_cuda_report& report) {
  using clock = std::chrono::steady_clock;
  const auto started = clock::now();
  std::string why;
  const std::optional<csv_layout> planned = plan_layout(in.source, options, why);
  if (!planned) {
    report.host_reason = why;
    return read_on_host(in.path, in.text, in.name, options, stream);
  }
  const csv_layout& layout = *planned;
  if (layout.comment.size() > static_cast<std::size_t>(csv_row::max_comment)) {
    report.host_reason = "a comment prefix longer than the GPU path takes";
    return read_on_host(in.path, in.text, in.name, options, stream);
  }
  // The kernels number columns with 32-bit ints; a header with more names would wrap them.
  if (layout.names.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    report.host_reason = "more columns than the GPU path numbers";
    return read_on_host(in.path, in.text, in.name, options, stream);
  }
  const std::size_t total = in.source.size();
  const auto n = static_cast<std::int64_t>(total - layout.data_offset);
  if (n == 0) {
    report.host_reason = "no data rows";
    return read_on_host(in.path, in.text, in.name, options, stream);
  }

  const device where = options.where;
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const cudaStream_t s = raw(stream);
  const csv_number::pow5_entry* pow5 = csv_gpu::device_pow5_table();

  // ---- the data rows to the GPU ----
  array text = device_bytes(static_cast<std::size_t>(csv_gpu::padded_size(n)), where, stream);
  char* const d_text = static_cast<char*>(text.data());
  if (csv_gpu::padded_size(n) > n)
    ZF_CUDA_TRY(cudaMemsetAsync(d_text + n, 0, static_cast<std::size_t>(csv_gpu::padded_size(n) - n), s));
  std::function<void(std::size_t)> tick;
  if (options.progress) {
    // Staging is most of the time; the parse is a short step at the end.
    tick = [&](std::size_t staged) { options.progress(layout.data_offset + staged, total); };
  }
  std::optional<staged_copy> staging;
  std::string small_input;  // a small file's data rows, alive until the stream is synchronised
  if (options.chunk_bytes == 0 && n <= direct_copy_limit) {
    const char* from = in.text.data() + layout.data_offset;
    if (in.path != nullptr) {
      small_input = in.source.read_string(layout.data_offset, static_cast<std::size_t>(n));
      from = small_input.data();
    }
    ZF_CUDA_TRY(cudaMemcpyAsync(d_text, from, static_cast<std::size_t>(n), cudaMemcpyHostToDevice, s));
    report.chunks = 1;
    report.chunk_bytes = static_cast<std::size_t>(n);
  } else {
    const unsigned threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    staging.emplace(in.source, layout.data_offset, static_cast<std::size_t>(n), d_text, options.chunk_bytes, threads, s,
                    tick, options.io);
    report.chunks = staging->chunks();
    report.chunk_bytes = staging->chunk_bytes();
    report.copy_threads = staging->threads();
  }

  // ---- pass 1: data rows and lines per block, then their running sums ----
  csv_row::row_dialect d{layout.delimiter, layout.quote, static_cast<std::uint8_t>(layout.comment.size()), {}};
  std::copy(layout.comment.begin(), layout.comment.end(), d.comment);
  const std::int64_t blocks = csv_gpu::line_blocks(n);
  const auto counts_bytes = static_cast<std::size_t>(blocks + 1) * sizeof(line_counts);
  array totals = device_bytes(counts_bytes, where, stream);
  array offsets = device_bytes(counts_bytes, where, stream);
  auto* d_totals = static_cast<line_counts*>(totals.data());
  auto* d_offsets = static_cast<line_counts*>(offsets.data());
  csv_gpu::count_lines(d_text, n, d, d_totals, s);
  const std::size_t temp_bytes = csv_gpu::scan_temp_bytes(blocks + 1);
  array temp = device_bytes(temp_bytes, where, stream);
  csv_gpu::scan_counts(d_totals, d_offsets, blocks + 1, temp.data(), temp_bytes, s);
  if (staging) staging->finish();  // the staging chunks go back for the next read
  const auto sums = read_back<line_counts>(d_offsets + blocks, stream);
  const auto staged = clock::now();
  report.staged_seconds = std::chrono::duration<double>(staged - started).count();
  const std::int64_t rows = sums.rows;
  if (rows == 0) {
    report.host_reason = "no data rows";
    return read_on_host(in.path, in.text, in.name, options, stream);
  }
  if (options.blank == blank_lines::refuse && sums.lines != sums.rows) {
    // A skipped line among the rows: the host reader says whether it is a blank one between two.
    report.host_reason = "skipped lines between rows";
    return read_on_host(in.path, in.text, in.name, options, stream);
  }

  // ---- pass 2: parse every row into the columns ----
  std::vector<array> columns;
  std::vector<csv_row::column_out> plans(layout.names.size());
  for (std::size_t index : layout.selected) {
    columns.push_back(empty({rows}, layout.types[index], where, stream));
    plans[index] = {kind_of(layout.types[index]), columns.back().data()};
  }
  array d_plans = device_bytes(plans.size() * sizeof(csv_row::column_out), where, stream);
  ZF_CUDA_TRY(cudaMemcpyAsync(d_plans.data(), plans.data(), plans.size() * sizeof(csv_row::column_out),
                              cudaMemcpyHostToDevice, s));
  csv_row::row_params params{d, options.na == na_policy::nan, static_cast<std::int32_t>(plans.size()),
                             static_cast<const csv_row::column_out*>(d_plans.data()), pow5};
  array d_status = device_bytes(sizeof(parse_status), where, stream);
  auto* status_ptr = static_cast<parse_status*>(d_status.data());
  long long capacity = 4096;
  parse_status status{};
  array cells;
  for (;;) {
    cells = device_bytes(static_cast<std::size_t>(capacity) * sizeof(undecided_cell), where, stream);
    const parse_status fresh{~0ull, ~0ull, 0ull};
    ZF_CUDA_TRY(cudaMemcpyAsync(status_ptr, &fresh, sizeof fresh, cudaMemcpyHostToDevice, s));
    csv_gpu::parse_rows(d_text, n, params, d_offsets, static_cast<long long>(layout.data_line), status_ptr,
                        static_cast<undecided_cell*>(cells.data()), capacity, s);
    status = read_back<parse_status>(status_ptr, stream);
    if (status.undecided <= static_cast<unsigned long long>(capacity)) break;
    capacity = static_cast<long long>(status.undecided);  // rare: parse again with room for every cell
  }

  // ---- the host settles undecided cells and words the first error ----
  std::vector<undecided_cell> undecided(static_cast<std::size_t>(status.undecided));
  if (!undecided.empty()) {
    zeroflow::detail::note_device_to_host(undecided.size() * sizeof(undecided_cell));
    ZF_CUDA_TRY(cudaMemcpyAsync(undecided.data(), cells.data(), undecided.size() * sizeof(undecided_cell),
                                cudaMemcpyDeviceToHost, s));
    ZF_CUDA_TRY(cudaStreamSynchronize(s));
  }
  std::uint64_t bad_line = status.first_bad_line;
  std::uint64_t bad_offset = status.first_bad_offset;
  std::vector<host_value> values;
  for (const undecided_cell& c : undecided) {
    const std::string cell = in.source.read_string(layout.data_offset + static_cast<std::size_t>(c.cell_begin),
                                                   static_cast<std::size_t>(c.cell_end - c.cell_begin));
    const dtype type = layout.types[static_cast<std::size_t>(c.column)];
    const std::optional<std::uint64_t> bits =
        type == float64 ? host_cell_bits<double>(cell, options.na) : host_cell_bits<float>(cell, options.na);
    if (bits) {
      values.push_back({c.row, *bits, c.column, 0});
    } else if (static_cast<std::uint64_t>(c.line) < bad_line) {
      bad_line = static_cast<std::uint64_t>(c.line);
      bad_offset = static_cast<std::uint64_t>(c.line_begin);
    }
  }
  if (bad_line != ~0ull)
    throw_line_error(in.source, layout.data_offset + bad_offset, static_cast<std::int64_t>(bad_line), layout, options,
                     in.name);
  if (!values.empty()) {
    array d_values = device_bytes(values.size() * sizeof(host_value), where, stream);
    ZF_CUDA_TRY(
        cudaMemcpyAsync(d_values.data(), values.data(), values.size() * sizeof(host_value), cudaMemcpyHostToDevice, s));
    csv_gpu::scatter_values(static_cast<const csv_row::column_out*>(d_plans.data()),
                            static_cast<const host_value*>(d_values.data()), static_cast<long long>(values.size()), s);
  }
  ZF_CUDA_TRY(cudaStreamSynchronize(s));  // as documented for CUDA output; `values` dies here too

  report.parsed_seconds = std::chrono::duration<double>(clock::now() - staged).count();
  report.gpu_parsed = true;
  report.rows = rows;
  report.host_cells = static_cast<std::int64_t>(values.size());
  if (options.progress) options.progress(total, total);
  table out;
  for (std::size_t k = 0; k < layout.selected.size(); ++k) {
    out.names.push_back(layout.names[layout.selected[k]]);
    out.columns.push_back(columns[k]);
  }
  return out;
}

}  // namespace

table read_csv_cuda(const std::filesystem::path& path, const csv_options& options, stream_view stream,
                    csv_cuda_report* report) {
  ZF_EXPECTS(options.where.type == device_type::cuda, "read_csv_cuda reads into a CUDA device, not ",
             options.where.name());
  csv_cuda_report local;
  csv_cuda_report& r = report != nullptr ? *report : local;
  r = {};
  std::optional<file_source> source;
  try {
    source.emplace(path);
  } catch (const error&) {
    r.host_reason = "the file cannot be read";  // the host reader says why, in its own words
    return read_on_host(&path, {}, path.string(), options, stream);
  }
  // The host reader's order of complaints: bad options first, then a missing GPU.
  if (!options_valid(options)) {
    r.host_reason = "options the host reader refuses";
    return read_on_host(&path, {}, path.string(), options, stream);
  }
  require_cuda("read_csv to a CUDA device");
  const std::string name = path.string();
  return read_on_gpu({*source, &path, {}, name}, options, stream, r);
}

table read_csv_cuda_buffer(std::string_view text, std::string_view name_for_errors, const csv_options& options,
                           stream_view stream, csv_cuda_report* report) {
  ZF_EXPECTS(options.where.type == device_type::cuda, "read_csv_cuda_buffer reads into a CUDA device, not ",
             options.where.name());
  csv_cuda_report local;
  csv_cuda_report& r = report != nullptr ? *report : local;
  r = {};
  if (!options_valid(options)) {
    r.host_reason = "options the host reader refuses";
    return read_on_host(nullptr, text, name_for_errors, options, stream);
  }
  require_cuda("read_csv to a CUDA device");
  const memory_source source(text);
  return read_on_gpu({source, nullptr, text, name_for_errors}, options, stream, r);
}

void prepare_csv_cuda_reads(device where, stream_view stream) {
  ZF_EXPECTS(where.type == device_type::cuda, "prepare_csv_cuda_reads prepares a CUDA device, not ", where.name());
  require_cuda("prepare_csv_reads for a CUDA device");
  reserve_staging_chunks();
  // A two-row read launches every parsing kernel once, so that CUDA loads them now.
  csv_options tiny;
  tiny.where = where;
  tiny.header = header_mode::no;
  tiny.threads = 1;
  csv_cuda_report report;
  (void)read_csv_cuda_buffer("0\n1\n", "prepare_csv_reads", tiny, stream, &report);
  if (!report.gpu_parsed)
    ZF_THROW(zeroflow::error, "prepare_csv_reads: the GPU path declined its own input (", report.host_reason, ")");
}

#else  // CPU build: there is no GPU path; the host reader refuses CUDA targets with cuda_error.

void prepare_csv_cuda_reads(device, stream_view) { require_cuda("prepare_csv_reads for a CUDA device"); }
std::size_t staging_chunks_cached() { return 0; }
void free_cached_staging_chunks() {}

table read_csv_cuda(const std::filesystem::path& path, const csv_options& options, stream_view stream,
                    csv_cuda_report* report) {
  if (report != nullptr) *report = {false, "a CPU build", 0, 0, 0, 0, 0, 0, 0};
  return read_csv(path, options, stream);
}

table read_csv_cuda_buffer(std::string_view text, std::string_view name_for_errors, const csv_options& options,
                           stream_view stream, csv_cuda_report* report) {
  if (report != nullptr) *report = {false, "a CPU build", 0, 0, 0, 0, 0, 0, 0};
  return read_csv_buffer(text, name_for_errors, options, stream);
}

#endif

}  // namespace zeroflow::io::detail
