#pragma once
/// @file utf8.hpp
/// Whether bytes are UTF-8: names and cells from files may hold anything, and what zeroflow
/// shows or writes of them must be valid text.
#include <cstddef>
#include <string_view>

namespace zeroflow::io {

/// @brief The length of the UTF-8 character that starts at `text[at]`.
/// @return 1 for an ASCII byte, 2 to 4 for a valid multi-byte character, and 0 where the bytes
///         are no character: a continuation or invalid lead byte, a sequence cut short (by the end
///         of `text` too), an overlong form, a UTF-16 surrogate or a code point past U+10FFFF; 0
///         also when `at` is past the end
[[nodiscard]] std::size_t utf8_char_length(std::string_view text, std::size_t at) noexcept;

/// @brief Whether all of `text` is valid UTF-8 (RFC 3629); the empty text is.
[[nodiscard]] bool is_utf8(std::string_view text) noexcept;

}  // namespace zeroflow::io
