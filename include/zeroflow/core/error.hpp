#pragma once
/// @file error.hpp
/// Exceptions thrown by zeroflow, and the macros that record file:line beside the message.
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace zeroflow {

/// Base of every zeroflow exception. what() is the message for a person (no source location);
/// where() names the source file and line that threw, for developers and logs.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  error(const std::string& message, std::string where) : std::runtime_error(message), where_(std::move(where)) {}
  /// "file.cpp:123" of the throw, or empty when the error was made without the macros.
  [[nodiscard]] const std::string& where() const noexcept { return where_; }

 private:
  std::string where_;
};

/// A caller broke a precondition (bad shape, dtype, stride, argument...).
class invalid_argument : public error {
 public:
  using error::error;
};

/// An allocation could not be satisfied (device full, or a limiting adaptor's budget).
class out_of_memory : public error {
 public:
  using error::error;
};

/// A CUDA runtime call failed, or CUDA is needed but absent.
class cuda_error : public error {
 public:
  using error::error;
};

/// Bad input data (a file that does not parse); the message names file, line and column.
class parse_error : public error {
 public:
  using error::error;
};

namespace detail {
template <class... Args>
std::string concat(Args&&... args) {
  std::ostringstream out;
  (out << ... << std::forward<Args>(args));
  return out.str();
}

template <class Error, class... Args>
[[noreturn]] void throw_at(const char* file, int line, Args&&... args) {
  const char* base = file;
  for (const char* p = file; *p; ++p)
    if (*p == '/') base = p + 1;
  throw Error(concat(std::forward<Args>(args)...), concat(base, ':', line));
}
}  // namespace detail
}  // namespace zeroflow

/// Throws `type` with the streamed message parts; file:line is kept in where(), not in what().
#define ZF_THROW(type, ...) ::zeroflow::detail::throw_at<type>(__FILE__, __LINE__, __VA_ARGS__)

/// Checks a precondition; throws zeroflow::invalid_argument with the message when it fails.
#define ZF_EXPECTS(condition, ...)                                         \
  do {                                                                     \
    if (!(condition)) ZF_THROW(::zeroflow::invalid_argument, __VA_ARGS__); \
  } while (0)
