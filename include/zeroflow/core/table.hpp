#pragma once
/// @file table.hpp
/// Named 1-D arrays of equal length: Arrow's columnar layout (one contiguous buffer per column).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zeroflow/core/array.hpp"

namespace zeroflow {

/// A table of columns; names[i] names columns[i]. Every column is a 1-D array and all have the
/// same length. A plain aggregate: readers (read_csv) build it, and validate() checks it.
struct table {
  std::vector<std::string> names;
  std::vector<array> columns;

  /// The first column called `name`.
  /// @throws zeroflow::invalid_argument naming `name` and listing the available names.
  [[nodiscard]] const array& column(std::string_view name) const;
  /// The column at `index` (0-based).
  /// @throws zeroflow::invalid_argument when `index` >= num_columns().
  [[nodiscard]] const array& column(std::size_t index) const;
  /// Length of the columns (0 for a table without columns).
  [[nodiscard]] std::int64_t num_rows() const;
  [[nodiscard]] std::size_t num_columns() const { return columns.size(); }

  /// Checks the invariants: as many names as columns, every column valid, 1-D and of the same length.
  /// @throws zeroflow::invalid_argument describing the first violation.
  void validate() const;
};

}  // namespace zeroflow
