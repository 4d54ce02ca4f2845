#pragma once
// Shared by the CSV tests: reading text, pulling columns out, checking error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "zeroflow/core/error.hpp"
#include "zeroflow/io/csv.hpp"

namespace zeroflow::test {

/// The values of a host column.
template <class T>
std::vector<T> values(const array& column) {
  auto s = column.span<const T>();
  return {s.begin(), s.end()};
}

/// read_csv_buffer's parse_error message for `text` ("" when it parses).
inline std::string csv_error(std::string_view text, const io::csv_options& options = {},
                             std::string_view name = "t.csv") {
  try {
    (void)io::read_csv_buffer(text, name, options);
  } catch (const parse_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace zeroflow::test
