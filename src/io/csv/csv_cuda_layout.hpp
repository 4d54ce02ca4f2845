#pragma once
// Private to src/io/csv: what read_csv's CUDA path learns on the host before the GPU parses: the
// dialect, the header, the columns to read and where the data rows begin. It follows csv.cpp's
// rules; wherever csv.cpp would throw, it declines instead (returns nullopt), and the caller
// hands the input to the host reader, which throws the error with its own message.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../csv_cuda_source.hpp"
#include "csv_lexer.hpp"
#include "zeroflow/core/dtype.hpp"
#include "zeroflow/io/csv.hpp"

namespace zeroflow::io::detail {

struct csv_layout {
  char delimiter{','};  // resolved (never 0)
  char quote{'"'};
  std::string comment;
  bool has_header{false};
  std::vector<std::string> names;     // every column of the file
  std::vector<std::size_t> selected;  // file columns to read, in table order
  std::vector<dtype> types;           // per file column
  std::int64_t header_line{1};        // the first line that is neither blank nor a comment
  std::int64_t data_line{1};          // line of the first byte at data_offset
  std::size_t data_offset{0};         // where the data rows begin (after the header)

  /// The lexer's view of the dialect (points into `comment`: valid while the layout lives).
  [[nodiscard]] dialect lexer_dialect() const { return {delimiter, quote, comment}; }
};

/// True when csv.cpp's validate() accepts the options.
[[nodiscard]] bool options_valid(const csv_options& options);

/// The layout of `source` under `options`, or nullopt with `why` set when the host reader must
/// take the input (it then reports the error, if there is one).
[[nodiscard]] std::optional<csv_layout> plan_layout(const byte_source& source, const csv_options& options,
                                                    std::string& why);

}  // namespace zeroflow::io::detail
