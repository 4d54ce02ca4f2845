#pragma once
/// @file error.hpp
/// Exceptions thrown by zeroflow, and the macros that add file:line to them.
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace zeroflow {

/// Base of every zeroflow exception; what() reads "file:line: message".
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
  throw Error(concat(base, ':', line, ": ", std::forward<Args>(args)...));
}
}  // namespace detail
}  // namespace zeroflow

/// Throws `type` with file:line and the streamed message parts.
#define ZF_THROW(type, ...) ::zeroflow::detail::throw_at<type>(__FILE__, __LINE__, __VA_ARGS__)

/// Checks a precondition; throws zeroflow::invalid_argument with the message when it fails.
#define ZF_EXPECTS(condition, ...)                                  \
  do {                                                              \
    if (!(condition)) ZF_THROW(::zeroflow::invalid_argument, __VA_ARGS__); \
  } while (0)
