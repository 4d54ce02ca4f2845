#pragma once
// Private to src/io/wfdb: WFDB storage formats, decoded one sample at a time at any position of a
// signal file's sample stream (the samples of every signal in the file, frame after frame).
#include <cstddef>
#include <cstdint>
#include <limits>

namespace zeroflow::io::detail {

/// Formats this reader decodes (0, the null signal, is accepted in headers but holds no samples).
[[nodiscard]] constexpr bool wfdb_format_supported(int format) {
  switch (format) {
    case 0:
    case 8:
    case 16:
    case 24:
    case 32:
    case 61:
    case 80:
    case 160:
    case 212:
    case 310:
    case 311:
      return true;
    default:
      return false;
  }
}

/// The ADC resolution WFDB assumes when a header gives none.
[[nodiscard]] constexpr int wfdb_default_resolution(int format) {
  switch (format) {
    case 8:
    case 80:
      return 8;
    case 310:
    case 311:
      return 10;
    case 16:
    case 61:
    case 160:
      return 16;
    case 24:
      return 24;
    case 32:
      return 32;
    default:
      return 12;
  }
}

inline constexpr std::int32_t wfdb_no_sample = std::numeric_limits<std::int32_t>::min();

/// The number of bytes a stream of `samples` samples occupies (the last group of a packed
/// format may be partial: 212 stores an odd last sample in 2 bytes, 310 and 311 one in 2).
[[nodiscard]] constexpr std::uint64_t wfdb_stream_bytes(int format, std::uint64_t samples) {
  if (samples == 0) return 0;
  const std::uint64_t last = samples - 1;
  switch (format) {
    case 8:
    case 80:
      return samples;
    case 16:
    case 61:
    case 160:
      return 2 * samples;
    case 24:
      return 3 * samples;
    case 32:
      return 4 * samples;
    case 212:
      return 3 * (last / 2) + (last % 2 == 0 ? 2 : 3);
    case 310:
      return 4 * (last / 3) + (last % 3 == 0 ? 2 : 4);
    case 311:
      return 4 * (last / 3) + 2 + last % 3;
    default:
      return 0;
  }
}

/// The most samples a stream of `bytes` bytes holds completely.
[[nodiscard]] constexpr std::uint64_t wfdb_stream_samples(int format, std::uint64_t bytes) {
  switch (format) {
    case 8:
    case 80:
      return bytes;
    case 16:
    case 61:
    case 160:
      return bytes / 2;
    case 24:
      return bytes / 3;
    case 32:
      return bytes / 4;
    case 212:
      return 2 * (bytes / 3) + (bytes % 3 >= 2 ? 1 : 0);
    case 310:
      return 3 * (bytes / 4) + (bytes % 4 >= 2 ? 1 : 0);
    case 311:
      return 3 * (bytes / 4) + (bytes % 4 >= 2 ? bytes % 4 - 1 : 0);
    default:
      return 0;
  }
}

[[nodiscard]] constexpr std::int32_t sign_extend(std::uint32_t value, int bits) {
  const std::uint32_t sign = 1u << (bits - 1);
  return static_cast<std::int32_t>((value ^ sign)) - static_cast<std::int32_t>(sign);
}

/// Sample `k` of the stream at `p` (format 8: the stored difference). Touches only the bytes
/// that hold it, so a partial last group is safe to read (see wfdb_stream_bytes).
[[nodiscard]] inline std::int32_t wfdb_decode(int format, const unsigned char* p, std::uint64_t k) {
  switch (format) {
    case 8:
      return static_cast<std::int8_t>(p[k]);
    case 16:
      return static_cast<std::int16_t>(p[2 * k] | (p[2 * k + 1] << 8));
    case 61:
      return static_cast<std::int16_t>((p[2 * k] << 8) | p[2 * k + 1]);
    case 24: {
      const unsigned char* b = p + 3 * k;
      return sign_extend(b[0] | (b[1] << 8) | (static_cast<std::uint32_t>(b[2]) << 16), 24);
    }
    case 32: {
      const unsigned char* b = p + 4 * k;
      return static_cast<std::int32_t>(b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24));
    }
    case 80:
      return static_cast<std::int32_t>(p[k]) - 128;
    case 160:
      return static_cast<std::int32_t>(p[2 * k] | (p[2 * k + 1] << 8)) - 32768;
    case 212: {
      const unsigned char* b = p + 3 * (k / 2);
      return k % 2 == 0 ? sign_extend(b[0] | ((b[1] & 0x0Fu) << 8), 12) : sign_extend(b[2] | ((b[1] & 0xF0u) << 4), 12);
    }
    case 310: {
      // Two 16-bit words; bits 1-10 of each hold samples 0 and 1, their top five bits sample 2.
      const unsigned char* b = p + 4 * (k / 3);
      switch (k % 3) {
        case 0:
          return sign_extend(((b[0] | (b[1] << 8)) >> 1) & 0x3FFu, 10);
        case 1:
          return sign_extend(((b[2] | (b[3] << 8)) >> 1) & 0x3FFu, 10);
        default:
          return sign_extend(((b[1] >> 3) & 0x1Fu) | (((b[3] >> 3) & 0x1Fu) << 5), 10);
      }
    }
    case 311: {
      // One 32-bit word: bits 0-9, 10-19 and 20-29 hold the three samples.
      const unsigned char* b = p + 4 * (k / 3);
      switch (k % 3) {
        case 0:
          return sign_extend((b[0] | (b[1] << 8)) & 0x3FFu, 10);
        case 1:
          return sign_extend(((b[1] | (b[2] << 8)) >> 2) & 0x3FFu, 10);
        default:
          return sign_extend(((b[2] | (b[3] << 8)) >> 4) & 0x3FFu, 10);
      }
    }
    default:
      return wfdb_no_sample;
  }
}

}  // namespace zeroflow::io::detail
