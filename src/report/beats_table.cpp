#include "zeroflow/report/beats_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/csv_row.hpp"
#include "zeroflow/io/text_lines.hpp"

namespace zeroflow::report {

beats_table parse_beats_table(std::string_view text, const std::string& name) {
  beats_table t;
  t.name = name;
  bool header = false;
  for (const auto& [line_number, line] : io::text_lines(text)) {
    if (line.empty()) continue;
    auto cells = io::split_csv_row(line);
    if (!header) {
      t.header = std::move(cells);
      header = true;
      continue;
    }
    if (cells.size() != t.header.size())
      ZF_THROW(parse_error, name, ':', line_number, ": expected ", t.header.size(), " fields as in the header, got ",
               cells.size());
    t.rows.push_back(std::move(cells));
    t.lines.push_back(line_number);
  }
  if (!header) ZF_THROW(parse_error, name, ":1: the file is empty; expected beats.csv of `zeroflow run`");
  return t;
}

std::optional<std::size_t> beats_table::find(std::string_view column) const {
  const auto it = std::find(header.begin(), header.end(), column);
  if (it == header.end()) return std::nullopt;
  return static_cast<std::size_t>(it - header.begin());
}

std::size_t beats_table::column(std::string_view column) const {
  const auto at = find(column);
  if (!at)
    ZF_THROW(parse_error, name, ":1: the header has no '", column,
             "' column; is this the beats.csv of `zeroflow run`?");
  return *at;
}

std::int64_t beats_table::sample(std::size_t row, std::size_t column) const {
  const std::string& cell = rows[row][column];
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || ec != std::errc{} || end != cell.data() + cell.size() || value < 0)
    ZF_THROW(parse_error, name, ':', lines[row], ": ", header[column], " '", cell, "' is not a sample index");
  return value;
}

double beats_table::number(std::size_t row, std::size_t column) const {
  const std::string& cell = rows[row][column];
  if (cell.empty()) return std::numeric_limits<double>::quiet_NaN();
  double value = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (ec != std::errc{} || end != cell.data() + cell.size() || !std::isfinite(value))
    ZF_THROW(parse_error, name, ':', lines[row], ": ", header[column], " '", cell,
             "' is not a number (leave it empty when a beat has none)");
  return value;
}

}  // namespace zeroflow::report
