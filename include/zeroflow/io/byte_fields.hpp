#pragma once
/// @file byte_fields.hpp
/// The fixed-width fields zeroflow's file formats share: little-endian u64 (safetensors' header
/// length, the trailers of the earlier model files) and the 64-bit FNV-1a hash of their checksums.
#include <cstdint>
#include <string>
#include <string_view>

namespace zeroflow::io {

/// Appends `v` as 8 little-endian bytes.
inline void append_u64_le(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

/// The first 8 bytes of `bytes` (at least 8) as a little-endian u64.
[[nodiscard]] inline std::uint64_t read_u64_le(std::string_view bytes) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  return v;
}

/// 64-bit FNV-1a, fed piece by piece.
class fnv1a64 {
 public:
  void add(std::string_view bytes) {
    for (const char c : bytes) hash_ = (hash_ ^ static_cast<unsigned char>(c)) * prime;
  }
  void add_byte(unsigned char b) { hash_ = (hash_ ^ b) * prime; }
  [[nodiscard]] std::uint64_t value() const { return hash_; }

 private:
  static constexpr std::uint64_t prime = 0x100000001b3ULL;
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

/// FNV-1a-64 of `bytes`.
[[nodiscard]] inline std::uint64_t fnv1a64_of(std::string_view bytes) {
  fnv1a64 h;
  h.add(bytes);
  return h.value();
}

}  // namespace zeroflow::io
