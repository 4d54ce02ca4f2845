#pragma once
// Private to src/io: picking one channel out of interleaved raw samples and converting it to
// physical units. The same inline function runs on the host and in the CUDA kernel, so both give
// the same float32 bits (one subtraction and one division in double, then one rounding; no
// multiply-add for the compiler to fuse).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "zeroflow/core/detail/host_device.hpp"

namespace zeroflow::io::detail {

/// One channel of interleaved little-endian samples and its conversion.
struct sample_layout {
  int type = 0;  ///< 0 float32, 1 int16, 2 int32 (binary_sample's order)
  std::int64_t frame_samples = 1;
  std::int64_t channel = 0;
  double gain = 1;
  double baseline = 0;
  bool has_invalid = false;
  std::int32_t invalid = 0;
  /// float32 stored in physical units: copied as it is (bit for bit, NaN payloads included).
  [[nodiscard]] ZF_HD bool identity() const { return type == 0 && gain == 1 && baseline == 0 && !has_invalid; }
};

/// Sample `i` of the channel, in physical units; `raw` points at the first frame.
ZF_HD inline float convert_sample(const unsigned char* raw, const sample_layout& l, std::int64_t i) {
  const std::int64_t k = i * l.frame_samples + l.channel;
  if (l.type == 1) {
    const auto v = static_cast<std::int16_t>(raw[2 * k] | (raw[2 * k + 1] << 8));
    if (l.has_invalid && v == l.invalid) return std::numeric_limits<float>::quiet_NaN();
    return static_cast<float>((static_cast<double>(v) - l.baseline) / l.gain);
  }
  const unsigned char* p = raw + 4 * k;
  const std::uint32_t bits = static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
                             (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
  if (l.type == 2) {
    const auto v = static_cast<std::int32_t>(bits);
    if (l.has_invalid && v == l.invalid) return std::numeric_limits<float>::quiet_NaN();
    return static_cast<float>((static_cast<double>(v) - l.baseline) / l.gain);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  if (l.identity()) return f;
  return static_cast<float>((static_cast<double>(f) - l.baseline) / l.gain);
}

}  // namespace zeroflow::io::detail
