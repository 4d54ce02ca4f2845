#include "zeroflow/core/table.hpp"

#include <sstream>

#include "zeroflow/core/error.hpp"

namespace zeroflow {

namespace {
std::string quoted_list(const std::vector<std::string>& names) {
  if (names.empty()) return "(none)";
  std::ostringstream out;
  for (std::size_t i = 0; i < names.size(); ++i) out << (i ? ", " : "") << '"' << names[i] << '"';
  return out.str();
}
}  // namespace

const array& table::column(std::string_view name) const {
  for (std::size_t i = 0; i < names.size() && i < columns.size(); ++i)
    if (names[i] == name) return columns[i];
  ZF_THROW(invalid_argument, "no column named \"", name, "\"; available: ", quoted_list(names));
}

const array& table::column(std::size_t index) const {
  ZF_EXPECTS(index < columns.size(), "column index ", index, " out of range: the table has ", columns.size(),
             " column(s)");
  return columns[index];
}

std::int64_t table::num_rows() const { return columns.empty() ? 0 : columns.front().shape(0); }

void table::validate() const {
  ZF_EXPECTS(names.size() == columns.size(), "table has ", names.size(), " names for ", columns.size(), " columns");
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const array& c = columns[i];
    ZF_EXPECTS(c.valid(), "column \"", names[i], "\" has no data");
    ZF_EXPECTS(c.ndim() == 1, "column \"", names[i], "\" is ", c.ndim(), "-D; columns must be 1-D");
    ZF_EXPECTS(c.shape(0) == columns.front().shape(0), "column \"", names[i], "\" has ", c.shape(0), " rows, column \"",
               names.front(), "\" has ", columns.front().shape(0));
  }
}

}  // namespace zeroflow
