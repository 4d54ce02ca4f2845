#pragma once
/// @file csv.hpp
/// Reading numeric CSV files into a table of columns, multi-threaded, straight from a memory map.
///
/// Format accepted (RFC 4180 with the usual relaxations):
/// - Fields are separated by one delimiter character (',' by default, ';' and '\t' common) and
///   rows end with "\n" or "\r\n". The last line may lack its final newline.
/// - Blank lines (empty or only spaces/tabs) are skipped, and so are comment lines: lines whose
///   first non-blank characters are the comment prefix ("#" by default). Comments must fill
///   the whole line; "1.5  # note" is a parse error. With blank_lines::refuse a blank line
///   between two data rows is a parse error instead (where a row's position is its time).
/// - A field may be quoted ("1.5"); a quote inside a quoted field is written twice (""). A
///   quoted field may NOT contain a line break: that is reported as an unclosed quote.
/// - Spaces and tabs around a field (outside the quotes) are ignored.
/// - Numbers: [+-]digits[.digits][(e|E)[+-]digits] (".5" and "5." too), parsed with correct
///   rounding, bit-identical to strtof (float32) and strtod (float64); values below the
///   smallest subnormal round to (signed) zero as strtod does. int64 takes [+-]digits only.
///   No hexadecimal, no thousands separators, no locale.
/// - Missing values, with na_policy::nan only: an empty field, and (any letter case) "nan",
///   "+nan", "-nan", "na", "n/a", "null", "none" read as a quiet NaN; "inf", "infinity" with
///   an optional sign read as +/-infinity, and so does a float too large for its dtype (as
///   strtod does). With na_policy::error (the default) every one of them is a parse error.
///   int64 columns have no NaN: a missing value there is always an error.
/// - The first line that is neither blank nor a comment is the header or the first row
///   (see header_mode). A UTF-8 byte-order mark at the start of the file is skipped.
///
/// Errors are zeroflow::parse_error with the message "FILE:LINE: column C ("NAME"): what",
/// where LINE is 1-based and counts every physical line (header, comments and blank lines
/// included), C is the 1-based column and NAME its header (omitted without a header).
/// When several threads find errors, the one on the earliest line is reported.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "zeroflow/core/device.hpp"
#include "zeroflow/core/dtype.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/core/table.hpp"
#include "zeroflow/io/file_loading.hpp"

namespace zeroflow::io {

/// Whether the first non-comment line is a header.
enum class header_mode {
  auto_detect,  ///< a header when that line has a cell that is not a number nor a missing-value spelling
  yes,
  no,  ///< no header: columns are named "0", "1", ... (0-based, as pandas does)
};

/// What a blank line between two data rows does (blank lines before the first row and after the
/// last are always skipped).
enum class blank_lines {
  skip,    ///< skipped, as in a table whose rows are records
  refuse,  ///< a parse error naming its line: in a recording each row is one sample, and a
           ///< skipped line would move every later sample earlier in time
};

/// What missing and non-finite values do (see the file comment for the exact spellings).
enum class na_policy {
  error,  ///< empty cells, NaN/NA and infinity spellings, and overflow are parse errors
  nan,    ///< they read as NaN / +-infinity (float columns only)
};

/// A column, named as in the header or by its 0-based position in the file.
class column_ref {
 public:
  column_ref(std::string name) : name_(std::move(name)) {}  // NOLINT(google-explicit-constructor)
  column_ref(const char* name) : name_(name) {}             // NOLINT(google-explicit-constructor)
  column_ref(std::string_view name) : name_(name) {}        // NOLINT(google-explicit-constructor)
  template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, bool> && !std::is_same_v<I, char>) column_ref(I index)
      : index_(static_cast<std::size_t>(index)) {  // NOLINT(google-explicit-constructor)
    if constexpr (std::is_signed_v<I>) negative_ = index < 0;
  }

  [[nodiscard]] bool by_name() const { return !index_.has_value(); }
  [[nodiscard]] const std::string& name() const { return name_; }
  /// 0-based position (only when !by_name()).
  [[nodiscard]] std::size_t index() const { return index_.value_or(0); }
  /// True when built from a negative integer (always rejected by read_csv).
  [[nodiscard]] bool negative() const { return negative_; }
  /// For messages: "\"name\"" or "index 3".
  [[nodiscard]] std::string describe() const;

 private:
  std::string name_;
  std::optional<std::size_t> index_;
  bool negative_{false};
};

/// The dtype of one column, overriding csv_options::default_type.
struct column_type {
  column_ref column;
  dtype type;
};

/// Called with (bytes done, total bytes) from the calling thread, about every 50 ms and once
/// at the end with done == total. `done` is an estimate over both passes and never decreases.
using progress_fn = std::function<void(std::uint64_t done, std::uint64_t total)>;

struct csv_options {
  /// Field separator; 0 detects it from the first non-comment line (the most frequent of
  /// ',', '\t', ';' outside quotes; ',' when none occurs). Letters, digits, '.', '+', '-',
  /// the quote and line breaks are refused.
  char delimiter{','};
  header_mode header{header_mode::auto_detect};
  /// Columns to read, in the order wanted in the table; empty reads every column in file order.
  /// Unread columns are only split, never parsed, so they may hold text.
  std::vector<column_ref> columns;
  /// dtype of every read column without an entry in `types`: float32, float64 or int64.
  dtype default_type{float32};
  std::vector<column_type> types;
  /// Lines whose first non-blank characters are this prefix are skipped; empty: no comments.
  std::string comment{"#"};
  /// The quote character; 0 turns quoting off (a quote is then an ordinary character).
  char quote{'"'};
  na_policy na{na_policy::error};
  /// Blank lines between data rows: skipped or refused (see blank_lines).
  blank_lines blank{blank_lines::skip};
  /// Worker threads; 0 = std::thread::hardware_concurrency().
  unsigned threads{0};
  /// Where the columns end up. CUDA devices (CUDA builds): parsed on the GPU, bit-identical to the
  /// host parse and with the same errors (see io/detail/csv_cuda.hpp), stream-ordered on the
  /// stream given to read_csv, which is synchronised before returning.
  device where{cpu_device};
  /// Optional progress report (see progress_fn); empty = none.
  progress_fn progress;
  /// How a file's bytes reach a CUDA device (file_loading.hpp); host output ignores it.
  io_method io{io_method::automatic};
  /// Bytes per work item (each begins at a line start); 0 chooses from the size and the thread
  /// count. Exposed for tests and tuning: tiny values exercise every range split. For CUDA
  /// output it is the size of the chunks staged to the GPU instead (0: 16 MiB).
  std::size_t chunk_bytes{0};
};

/// Reads a CSV file (memory-mapped) into a table of 1-D columns on options.where.
/// @param path    the file; its name, as given, prefixes every error message
/// @param options see csv_options
/// @param stream  orders the copy to a CUDA device (unused for host output)
/// @throws zeroflow::parse_error for a file that cannot be opened or does not parse (see the
///         file comment), zeroflow::invalid_argument for contradictory options,
///         zeroflow::cuda_error when options.where is a CUDA device and CUDA is unavailable.
[[nodiscard]] table read_csv(const std::filesystem::path& path, const csv_options& options = {},
                             stream_view stream = {});

/// The names of a CSV file's columns, as read_csv names them: the header's, or "0", "1", ... when
/// the file has none (options.header, delimiter, quote and comment as read_csv takes them). Only
/// the lines before the first data row are read.
/// @throws parse_error for a file that is not text, is empty or holds no data line
[[nodiscard]] std::vector<std::string> csv_column_names(const std::filesystem::path& path,
                                                        const csv_options& options = {});

/// Pays the one-time costs of reading CSV into `where` now rather than in the first read_csv:
/// for a CUDA device, pins the staging buffers (3 x 16 MiB; pinning is slow) and loads the
/// parsing kernels (CUDA loads them lazily, on first launch). Optional: the total time
/// is the same, it only moves to where start-up costs belong (the CLI's cuda_init stage calls
/// it). Does nothing for host devices.
/// @throws zeroflow::cuda_error when `where` is a CUDA device and CUDA is unavailable.
void prepare_csv_reads(device where, stream_view stream = {});

/// Parses CSV text held in memory, exactly as read_csv parses a file's bytes.
/// @param text            the CSV content (not copied; only read during the call)
/// @param name_for_errors what error messages call the input, e.g. "ecg.csv"
[[nodiscard]] table read_csv_buffer(std::string_view text, std::string_view name_for_errors,
                                    const csv_options& options = {}, stream_view stream = {});

}  // namespace zeroflow::io
