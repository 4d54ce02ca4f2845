#pragma once
// The one line a failed command prints: the exception's message in a person's terms, never a
// stack trace, a library's internals or raw bytes from a file.
#include <exception>
#include <string>
#include <string_view>

namespace zeroflow::cli {

/// @brief The message of `e` for a person: LibTorch's errors without their stack trace (an
/// out-of-memory one with what to try), out of memory as such, file system errors as "PATH:
/// reason", a broken precondition without the name of the function that checks it
/// (without_function_name); then made one line (one_line).
[[nodiscard]] std::string message_of(const std::exception& e);

/// @brief `message` without a leading function name ("robust_zscore: the signal is empty" gives
/// "the signal is empty"): a snake_case name with an underscore, or a qualified one, then ": ",
/// unless a file of that name exists (then it is the file the message is about).
[[nodiscard]] std::string without_function_name(std::string_view message);

/// @brief `text` as one printable line: line breaks and tabs become spaces, other control
/// characters and bytes that are not UTF-8 become \xNN (a file name or cell may hold anything),
/// and a message longer than 2000 bytes loses its middle (" ... "), keeping its first 500 bytes
/// and its last 1500: the reason, which comes last, is never cut.
[[nodiscard]] std::string one_line(std::string_view text);

}  // namespace zeroflow::cli
