#pragma once
/// @file dtype.hpp
/// Element types, with DLPack's DLDataType encoding (type code, bits, lanes).
#include <cstdint>
#include <string>

namespace zeroflow {

/// DLPack type codes (DLDataTypeCode).
enum class type_code : std::uint8_t { int_ = 0, uint = 1, float_ = 2, bfloat = 4, complex = 5, bool_ = 6 };

/// An element type; the same three fields, in the same order, as DLPack's DLDataType.
struct dtype {
  type_code code{type_code::float_};
  std::uint8_t bits{32};
  std::uint16_t lanes{1};

  /// Bytes per element (lanes included); bool is one byte, as DLPack requires.
  [[nodiscard]] constexpr std::size_t itemsize() const { return (std::size_t{bits} * lanes + 7) / 8; }
  friend constexpr bool operator==(dtype, dtype) = default;
  /// NumPy-style name: "float32", "int64", "bool"...
  [[nodiscard]] std::string name() const;
};

inline constexpr dtype float32{type_code::float_, 32, 1};
inline constexpr dtype float64{type_code::float_, 64, 1};
inline constexpr dtype float16{type_code::float_, 16, 1};
inline constexpr dtype bfloat16{type_code::bfloat, 16, 1};
inline constexpr dtype int8{type_code::int_, 8, 1};
inline constexpr dtype int16{type_code::int_, 16, 1};
inline constexpr dtype int32{type_code::int_, 32, 1};
inline constexpr dtype int64{type_code::int_, 64, 1};
inline constexpr dtype uint8{type_code::uint, 8, 1};
inline constexpr dtype uint16{type_code::uint, 16, 1};
inline constexpr dtype uint32{type_code::uint, 32, 1};
inline constexpr dtype uint64{type_code::uint, 64, 1};
inline constexpr dtype bool8{type_code::bool_, 8, 1};

/// The dtype of a C++ element type.
template <class T>
constexpr dtype dtype_of();
template <>
constexpr dtype dtype_of<float>() {
  return float32;
}
template <>
constexpr dtype dtype_of<double>() {
  return float64;
}
template <>
constexpr dtype dtype_of<std::int8_t>() {
  return int8;
}
template <>
constexpr dtype dtype_of<std::int16_t>() {
  return int16;
}
template <>
constexpr dtype dtype_of<std::int32_t>() {
  return int32;
}
template <>
constexpr dtype dtype_of<std::int64_t>() {
  return int64;
}
template <>
constexpr dtype dtype_of<std::uint8_t>() {
  return uint8;
}
template <>
constexpr dtype dtype_of<std::uint16_t>() {
  return uint16;
}
template <>
constexpr dtype dtype_of<std::uint32_t>() {
  return uint32;
}
template <>
constexpr dtype dtype_of<std::uint64_t>() {
  return uint64;
}
template <>
constexpr dtype dtype_of<bool>() {
  return bool8;
}

/// True for the dtypes zeroflow knows how to store (any DLPack code with whole bytes, lanes >= 1).
[[nodiscard]] bool is_valid(dtype t);

}  // namespace zeroflow
