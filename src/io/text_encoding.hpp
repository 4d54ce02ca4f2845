#pragma once
// Private to src/io: text fields of binary formats (WFDB units, EDF labels) as UTF-8.
#include <string>
#include <string_view>

namespace zeroflow::io::detail {

/// `text` itself when it is valid UTF-8; otherwise each byte read as Latin-1 (older WFDB and EDF
/// writers store "µV" as the single byte 0xB5), so that the result is always valid UTF-8.
[[nodiscard]] std::string to_utf8(std::string_view text);

/// `text` without leading and trailing spaces, tabs, carriage returns and NUL bytes.
[[nodiscard]] std::string_view trim(std::string_view text);

}  // namespace zeroflow::io::detail
