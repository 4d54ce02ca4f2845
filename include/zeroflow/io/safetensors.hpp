#pragma once
/// @file safetensors.hpp
/// The safetensors format (https://huggingface.co/docs/safetensors): a u64 little-endian header
/// length, a JSON header naming every tensor's dtype, shape and byte range (plus an optional
/// "__metadata__" object of strings), then the tensors' raw little-endian bytes, row-major.
/// PyTorch, JAX, NumPy and others read it without running any code from the file, which is why
/// zeroflow's model files use it. This is zeroflow's own reader and writer: no LibTorch.
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
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

/// content with checksum_key set to its content_checksum, as the file's bytes.
[[nodiscard]] std::string sealed_safetensors(safetensors_content content);

/// True when content's checksum_key entry is its content_checksum (false when it has none).
[[nodiscard]] bool checksum_holds(const safetensors_content& content);

/// True when `bytes` start as a safetensors file does (a header length that fits, then '{'): how a
/// reader tells such a file from another format before parsing it.
[[nodiscard]] bool looks_like_safetensors(std::string_view bytes);

/// The metadata entry `key`. @throws parse_error when there is none.
[[nodiscard]] const std::string& metadata_entry(const safetensors_content& content, const std::string& key);

/// The metadata entry `key` read whole as a T (int, std::int64_t, std::uint64_t, float or double).
/// @throws parse_error when there is none, or it is not such a number to its last character.
template <class T>
[[nodiscard]] T metadata_number(const safetensors_content& content, const std::string& key);

/// safetensors' name of T's dtype.
template <class T>
[[nodiscard]] constexpr std::string_view safetensors_dtype_of() {
  if constexpr (std::is_same_v<T, float>) return "F32";
  if constexpr (std::is_same_v<T, double>) return "F64";
  if constexpr (std::is_same_v<T, std::int64_t>) return "I64";
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int64_t>,
                "a dtype zeroflow does not write");
  return {};
}

/// A tensor `name` of `dtype` and `shape` holding the shape's product of elements from `values`
/// (row-major, little-endian). @throws invalid_argument for an unknown dtype, a negative size or
/// a shape too large to count.
[[nodiscard]] safetensor make_safetensor(std::string name, std::string_view dtype, std::vector<std::int64_t> shape,
                                         const void* values);

/// The same with T's dtype.
template <class T>
[[nodiscard]] safetensor make_safetensor(std::string name, std::vector<std::int64_t> shape, const T* values) {
  return make_safetensor(std::move(name), safetensors_dtype_of<T>(), std::move(shape), values);
}

/// The tensor `name` of `content` when it has `dtype` and exactly `shape`, and bytes that hold it.
/// @throws parse_error when there is none, or it has another dtype or shape, or bytes of another
///         length.
[[nodiscard]] const safetensor& tensor_of_shape(const safetensors_content& content, const std::string& name,
                                                std::string_view dtype, const std::vector<std::int64_t>& shape);

/// The values of the tensor `name`, of T's dtype and exactly `shape`, copied out.
/// @throws parse_error as tensor_of_shape.
template <class T>
[[nodiscard]] std::vector<T> safetensor_values(const safetensors_content& content, const std::string& name,
                                               const std::vector<std::int64_t>& shape) {
  const safetensor& t = tensor_of_shape(content, name, safetensors_dtype_of<T>(), shape);
  std::vector<T> values(t.bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), t.bytes.data(), t.bytes.size());
  return values;
}

}  // namespace zeroflow::io
