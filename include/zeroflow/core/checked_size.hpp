#pragma once
/// @file checked_size.hpp
/// Overflow-checked size arithmetic: element counts, strides and byte counts of arrays. Every size
/// that comes from a caller (a Python shape, an imported array, a row width) goes through these, so
/// that a product too large for 64 bits is an error rather than a small wrapped size.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "zeroflow/core/dtype.hpp"

namespace zeroflow {

/// @brief a * b, or std::nullopt when the product does not fit in int64.
[[nodiscard]] constexpr std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

/// @brief a + b, or std::nullopt when the sum does not fit in int64.
[[nodiscard]] constexpr std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

/// @brief a * b for sizes, where `what` says what is being sized ("rows of 8 x 2^62 samples").
/// @throws zeroflow::invalid_argument when the product does not fit in int64
[[nodiscard]] std::int64_t multiply_sizes(std::int64_t a, std::int64_t b, const char* what);

/// @brief The number of elements of an array of `shape` (1 for 0-d, 0 when an extent is 0).
/// As NumPy does, the product of the non-zero extents must fit too, so that any view of the
/// shape has representable strides.
/// @throws zeroflow::invalid_argument for a negative extent, or a product that does not fit in int64
[[nodiscard]] std::int64_t element_count(std::span<const std::int64_t> shape);

/// @brief Bytes of a C-contiguous array of `shape` and `type`.
/// @throws zeroflow::invalid_argument for a negative extent, or a size (in elements or bytes,
///         non-zero extents only) that does not fit in int64
[[nodiscard]] std::size_t contiguous_bytes(std::span<const std::int64_t> shape, dtype type);

}  // namespace zeroflow
