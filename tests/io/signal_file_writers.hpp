#pragma once
// Test helpers for tests/io: WFDB signal files and EDF files written byte by byte from the
// format descriptions (the WFDB signal(5) manual page, the EDF and EDF+ specifications), so that
// the readers are checked against an encoder written independently of their decoders.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace zeroflow::test {

inline void put_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

/// The bytes of a WFDB sample stream (every signal of the file, frame after frame) in `format`.
/// Format 8 takes the samples and stores first differences per signal: `signals` interleaved
/// signals, one sample each per frame, starting from `initial` (one per signal).
inline std::string wfdb_stream(int format, const std::vector<std::int32_t>& samples, int signals = 1,
                               const std::vector<std::int32_t>& initial = {}) {
  std::string out;
  const std::size_t n = samples.size();
  switch (format) {
    case 8: {
      std::vector<std::int32_t> previous = initial;
      previous.resize(static_cast<std::size_t>(signals), 0);
      for (std::size_t i = 0; i < n; ++i) {
        auto& last = previous[i % static_cast<std::size_t>(signals)];
        out += static_cast<char>(static_cast<std::int8_t>(samples[i] - last));
        last = samples[i];
      }
      break;
    }
    case 16:
      for (auto v : samples) put_le(out, static_cast<std::uint16_t>(v), 2);
      break;
    case 24:
      for (auto v : samples) put_le(out, static_cast<std::uint32_t>(v) & 0xFFFFFF, 3);
      break;
    case 32:
      for (auto v : samples) put_le(out, static_cast<std::uint32_t>(v), 4);
      break;
    case 61:
      for (auto v : samples) {
        const auto u = static_cast<std::uint16_t>(v);
        out += static_cast<char>(u >> 8);
        out += static_cast<char>(u & 0xFF);
      }
      break;
    case 80:
      for (auto v : samples) out += static_cast<char>(v + 128);
      break;
    case 160:
      for (auto v : samples) put_le(out, static_cast<std::uint32_t>(v + 32768), 2);
      break;
    case 212:
      // Two 12-bit samples in three bytes: the low 8 bits of each in bytes 0 and 2, their high
      // nibbles in byte 1 (first sample low nibble). An odd last sample takes two bytes.
      for (std::size_t i = 0; i < n; i += 2) {
        const auto a = static_cast<std::uint32_t>(samples[i]) & 0xFFF;
        const auto b = i + 1 < n ? static_cast<std::uint32_t>(samples[i + 1]) & 0xFFF : 0u;
        out += static_cast<char>(a & 0xFF);
        out += static_cast<char>((a >> 8) | ((b >> 8) << 4));
        if (i + 1 < n) out += static_cast<char>(b & 0xFF);
      }
      break;
    case 310:
      // Three 10-bit samples in two 16-bit words: bits 1-10 of word 0 and 1 hold samples 0 and 1,
      // bits 11-15 of word 0 the low five bits of sample 2, of word 1 its high five bits.
      for (std::size_t i = 0; i < n; i += 3) {
        const auto s0 = static_cast<std::uint32_t>(samples[i]) & 0x3FF;
        const auto s1 = i + 1 < n ? static_cast<std::uint32_t>(samples[i + 1]) & 0x3FF : 0u;
        const auto s2 = i + 2 < n ? static_cast<std::uint32_t>(samples[i + 2]) & 0x3FF : 0u;
        put_le(out, (s0 << 1) | ((s2 & 0x1F) << 11), 2);
        if (i + 1 < n) put_le(out, (s1 << 1) | ((s2 >> 5) << 11), 2);
      }
      break;
    case 311:
      // Three 10-bit samples in bits 0-9, 10-19 and 20-29 of a 32-bit word; a partial last word
      // keeps only the bytes its samples reach.
      for (std::size_t i = 0; i < n; i += 3) {
        const std::size_t left = n - i;
        std::uint32_t word = 0;
        for (std::size_t k = 0; k < 3 && k < left; ++k)
          word |= (static_cast<std::uint32_t>(samples[i + k]) & 0x3FF) << (10 * k);
        put_le(out, word, left >= 3 ? 4 : left == 2 ? 3 : 2);
      }
      break;
    default:
      break;
  }
  return out;
}

/// One signal of an EDF file to write.
struct edf_test_signal {
  std::string label;
  std::string units = "mV";
  double physical_min = -1, physical_max = 1;
  int digital_min = -32768, digital_max = 32767;
  int samples_per_record = 1;
  std::vector<std::int16_t> samples;  // records x samples_per_record (annotation signals: empty)
  std::string annotation_bytes;       // for "EDF Annotations": the bytes of every record, concatenated
};

inline std::string edf_field(const std::string& text, std::size_t width) {
  std::string out = text.substr(0, width);
  out.resize(width, ' ');
  return out;
}

inline std::string edf_number(double value, std::size_t width) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return edf_field(buffer, width);
}

/// The bytes of an EDF file with `records` data records of `duration` seconds.
inline std::string edf_file(const std::vector<edf_test_signal>& signals, int records, double duration,
                            const std::string& reserved = "", const std::string& records_field = "") {
  std::string out;
  out += edf_field("0", 8);
  out += edf_field("X X X X", 80);
  out += edf_field("Startdate X X X X", 80);
  out += "01.02.03";
  out += "04.05.06";
  out += edf_field(std::to_string(256 * (signals.size() + 1)), 8);
  out += edf_field(reserved, 44);
  out += edf_field(records_field.empty() ? std::to_string(records) : records_field, 8);
  out += edf_number(duration, 8);
  out += edf_field(std::to_string(signals.size()), 4);
  for (const auto& s : signals) out += edf_field(s.label, 16);
  for (std::size_t i = 0; i < signals.size(); ++i) out += edf_field("AgAgCl electrode", 80);
  for (const auto& s : signals) out += edf_field(s.units, 8);
  for (const auto& s : signals) out += edf_number(s.physical_min, 8);
  for (const auto& s : signals) out += edf_number(s.physical_max, 8);
  for (const auto& s : signals) out += edf_number(s.digital_min, 8);
  for (const auto& s : signals) out += edf_number(s.digital_max, 8);
  for (std::size_t i = 0; i < signals.size(); ++i) out += edf_field("HP:0.1Hz", 80);
  for (const auto& s : signals) out += edf_field(std::to_string(s.samples_per_record), 8);
  for (std::size_t i = 0; i < signals.size(); ++i) out += edf_field("", 32);
  for (int r = 0; r < records; ++r)
    for (const auto& s : signals) {
      const auto per = static_cast<std::size_t>(s.samples_per_record);
      if (!s.annotation_bytes.empty()) {
        out += s.annotation_bytes.substr(static_cast<std::size_t>(r) * 2 * per, 2 * per);
        continue;
      }
      for (std::size_t j = 0; j < per; ++j)
        put_le(out, static_cast<std::uint16_t>(s.samples[static_cast<std::size_t>(r) * per + j]), 2);
    }
  return out;
}

}  // namespace zeroflow::test
