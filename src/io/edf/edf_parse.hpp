#pragma once
// Private to src/io/edf: the EDF header parser, shared by the signal and annotation readers.
#include <string>
#include <string_view>

#include "zeroflow/io/edf.hpp"

namespace zeroflow::io::detail {

/// Parses the header at the start of `file` (the whole file's bytes) and checks the data records
/// against its size; `name` starts every error message.
[[nodiscard]] edf_header parse_edf_header(std::string_view file, const std::string& name);

}  // namespace zeroflow::io::detail
