#pragma once
/// @file safetensors.hpp
/// The safetensors format (https://huggingface.co/docs/safetensors): a u64 little-endian header
/// length, a JSON header naming every tensor's dtype, shape and byte range (plus an optional
/// "__metadata__" object of strings), then the tensors' raw little-endian bytes, row-major.
/// PyTorch, JAX, NumPy and others read it without running any code from the file, which is why
/// zeroflow's model files use it. This is zeroflow's own reader and writer: no LibTorch.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace zeroflow::io {

/// One tensor of a safetensors file.
struct safetensor {
  std::string name;
  std::string dtype;                ///< safetensors' name of the element type: "F32", "F64", "I64", ...
  std::vector<std::int64_t> shape;  ///< empty for a scalar
  std::string bytes;                ///< product(shape) × element size bytes, little-endian, row-major
};

/// A whole safetensors file: metadata and tensors.
struct safetensors_content {
  std::map<std::string, std::string> metadata;  ///< the header's "__metadata__" (string → string)
  std::vector<safetensor> tensors;              ///< in the order of their bytes in the file

  /// The tensor called `name`, or nullptr.
  [[nodiscard]] const safetensor* find(std::string_view name) const;
};

/// Bytes per element of a safetensors dtype name; 0 for a name the format does not define.
[[nodiscard]] std::int64_t safetensors_element_bytes(std::string_view dtype);

/// The file's bytes: tensors in the given order, each right after the last, and the header padded
/// with spaces to a multiple of 8 bytes so that every tensor's bytes start 8-byte aligned.
/// @throws invalid_argument for an unknown dtype, a negative dimension, bytes that do not match
///         the shape, a repeated or empty name, or the reserved name "__metadata__".
[[nodiscard]] std::string to_safetensors(const safetensors_content& content);

/// Parses and checks a whole file: the header length fits the file, the header is a JSON object
/// whose entries each give a known dtype, a shape of non-negative sizes and a byte range that
/// holds exactly that many elements, the ranges tile the data that follows the header with no
/// gap, overlap or bytes left over, and "__metadata__", when present, maps strings to strings.
/// @throws parse_error saying what is wrong (the caller names the file).
[[nodiscard]] safetensors_content from_safetensors(std::string_view file);

/// The metadata key of content_checksum's value.
inline constexpr std::string_view checksum_key = "checksum";

/// "fnv1a64:" and 16 lower-case hex digits: the 64-bit FNV-1a hash of every metadata entry but
/// checksum_key (in key order: key, NUL, value, NUL) followed by every tensor (in name order:
/// name, NUL, dtype, NUL, the sizes in decimal joined by ',', NUL, its bytes). It depends on the
/// content only, not on how a writer laid out the header, so a file re-saved by another
/// program with the same tensors and metadata keeps its checksum, and any changed value,
/// metadata entry or tensor changes it.
[[nodiscard]] std::string content_checksum(const safetensors_content& content);

}  // namespace zeroflow::io
