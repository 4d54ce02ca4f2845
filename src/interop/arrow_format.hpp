#pragma once
/// @file arrow_format.hpp
/// Private helpers shared by Arrow export and import: dtype <-> format strings, bit packing.
#include <cstdint>
#include <optional>
#include <string_view>

#include "zeroflow/core/dtype.hpp"

namespace zeroflow::arrow::detail {

/// The Arrow format string of a primitive zeroflow dtype ("f" for float32...), or nullptr.
[[nodiscard]] const char* format_of(dtype t);

/// The zeroflow dtype of a primitive Arrow format ("b" is bool8), or nothing.
[[nodiscard]] std::optional<dtype> dtype_of_format(std::string_view format);

/// Arrow's bit order: bit i lives in byte i / 8 at position i % 8 (least significant first).
[[nodiscard]] inline bool bit_at(const std::uint8_t* bits, std::int64_t i) {
  return ((bits[i >> 3] >> (i & 7)) & 1) != 0;
}

}  // namespace zeroflow::arrow::detail
