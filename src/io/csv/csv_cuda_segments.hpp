#pragma once
// Private to src/io/csv: the per-thread work of the GPU CSV passes (csv_cuda_kernels.cu), written
// for the host and the GPU alike so that the host tests can run it block by block.
//
// The text is cut into segments of 32 bytes, one per thread. A thread owns the lines that START
// in its segment (a line may run on into later segments): it counts them (pass 1) and, knowing
// its first row index and how many '\n' precede its segment (from the scans), parses them
// (pass 2). Nothing per byte or per line is stored.
#include <cstdint>
#include <cstring>

#include "csv_cuda_row.hpp"

namespace zeroflow::io::detail::csv_segments {

/// Bytes per thread; the device text buffer is padded to a multiple of it.
inline constexpr int segment_bytes = 32;

/// Data rows and line breaks in a stretch of text.
struct line_counts {
  long long rows;
  long long lines;
};

ZF_HD inline line_counts add(const line_counts& a, const line_counts& b) {
  return {a.rows + b.rows, a.lines + b.lines};
}

ZF_HD inline int popcount(unsigned x) {
#if defined(__CUDA_ARCH__)
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

/// Index of the lowest set bit (x != 0).
ZF_HD inline int lowest_bit(unsigned x) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(x)) - 1;
#else
  return __builtin_ctz(x);
#endif
}

/// Bit i set when byte s + i is '\n' (bytes at or past n read as not). s is a multiple of 32 and
/// the buffer is padded to one, so the 32 bytes read stay inside it.
ZF_HD inline unsigned newline_mask(const char* text, std::int64_t n, std::int64_t s) {
  unsigned words[8];
#if defined(__CUDA_ARCH__)
  const auto* v = reinterpret_cast<const uint4*>(text + s);  // 16-byte aligned: the buffer is
  const uint4 a = v[0], b = v[1];
  words[0] = a.x, words[1] = a.y, words[2] = a.z, words[3] = a.w;
  words[4] = b.x, words[5] = b.y, words[6] = b.z, words[7] = b.w;
#else
  std::memcpy(words, text + s, sizeof words);
#endif
  unsigned mask = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int k = 0; k < 8; ++k) {
#if defined(__CUDA_ARCH__)
    const unsigned eq = __vcmpeq4(words[k], 0x0a0a0a0au);  // 0xff in every byte that is '\n'
#else
    unsigned eq = 0;
    for (int byte = 0; byte < 4; ++byte)
      if (((words[k] >> (8 * byte)) & 0xffu) == 0x0au) eq |= 0xffu << (8 * byte);
#endif
    // the top bit of each byte (little-endian: byte j of the word is text[s + 4k + j])
    const unsigned nibble = ((eq >> 7) & 1u) | ((eq >> 14) & 2u) | ((eq >> 21) & 4u) | ((eq >> 28) & 8u);
    mask |= nibble << (4 * k);
  }
  const std::int64_t valid = n - s;
  if (valid < 32) mask &= (1u << valid) - 1u;
  return mask;
}

/// One thread's segment: its '\n' bytes and its line starts (bit i: a line starts at start + i).
struct segment {
  std::int64_t start;
  unsigned newlines;
  unsigned line_starts;
};

ZF_HD inline segment load_segment(const char* text, std::int64_t n, std::int64_t index) {
  segment seg{index * segment_bytes, 0u, 0u};
  if (seg.start >= n) return seg;
  seg.newlines = newline_mask(text, n, seg.start);
  seg.line_starts = seg.newlines << 1;  // the start after bit 31's '\n' is the next segment's
  if (seg.start == 0 || text[seg.start - 1] == '\n') seg.line_starts |= 1u;
  const std::int64_t valid = n - seg.start;
  if (valid < 32) seg.line_starts &= (1u << valid) - 1u;  // a '\n' at n - 1 starts no line
  return seg;
}

/// The data rows starting in the segment and its '\n' bytes.
ZF_HD inline line_counts count_segment(const char* text, std::int64_t n, const segment& seg,
                                       const csv_row::row_dialect& d) {
  long long rows = 0;
  for (unsigned starts = seg.line_starts; starts != 0; starts &= starts - 1)
    rows += csv_row::is_data_line(text + seg.start + lowest_bit(starts), text + n, d) ? 1 : 0;
  return {rows, static_cast<long long>(popcount(seg.newlines))};
}

/// Parses the data rows starting in the segment: the first is row `first_row`, and `lines_before`
/// is the line number of the segment's first byte. Calls bad(line, line_begin) for a refused row
/// and undecided(row, line, line_begin, column, cell_begin, cell_end) for a cell left to the host
/// (offsets in bytes from `text`).
template <class Bad, class Undecided>
ZF_HD void parse_segment(const char* text, std::int64_t n, const segment& seg, const csv_row::row_params& params,
                         long long first_row, long long lines_before, Bad&& bad, Undecided&& undecided) {
  const char* const end = text + n;
  long long row = first_row;
  for (unsigned starts = seg.line_starts; starts != 0; starts &= starts - 1) {
    const int i = lowest_bit(starts);
    const char* p = text + seg.start + i;
    if (!csv_row::is_data_line(p, end, params.d)) continue;
    const long long line = lines_before + popcount(seg.newlines & ((1u << i) - 1u));
    const long long line_begin = p - text;
    const bool fine = csv_row::parse_row(p, end, row, params, [&](int column, const char* b, const char* e) {
      undecided(row, line, line_begin, column, static_cast<long long>(b - text), static_cast<long long>(e - text));
    });
    if (!fine) bad(line, line_begin);
    ++row;
  }
}

}  // namespace zeroflow::io::detail::csv_segments
