#pragma once
// Private to src/io/csv: the GPU passes of read_csv's CUDA path (csv_cuda_kernels.cu), callable from
// host C++ (csv_cuda.cpp). Only for CUDA builds.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "csv_cuda_row.hpp"
#include "csv_cuda_segments.hpp"

namespace zeroflow::io::detail::csv_gpu {

/// Bytes each thread of the line passes looks at (csv_cuda_segments.hpp), and threads per block.
using csv_segments::line_counts;
using csv_segments::segment_bytes;
inline constexpr int block_threads = 256;
inline constexpr std::int64_t tile_bytes = std::int64_t{segment_bytes} * block_threads;

/// The device text buffer must hold the text rounded up to this many bytes (vector loads).
constexpr std::int64_t padded_size(std::int64_t n) { return (n + segment_bytes - 1) / segment_bytes * segment_bytes; }

/// Blocks of the line passes for n bytes of text.
constexpr std::int64_t line_blocks(std::int64_t n) { return (n + tile_bytes - 1) / tile_bytes; }

/// The GPU's verdict on the rows, read back by the host.
struct parse_status {
  unsigned long long first_bad_line;    // 1-based line of the earliest refused row; ~0 when none
  unsigned long long first_bad_offset;  // its start, in bytes from the text start
  unsigned long long undecided;         // cells left for the host (may exceed the list's capacity)
};

/// A cell whose value the GPU could not decide (see csv_cuda_number.hpp).
struct undecided_cell {
  long long row;
  long long line;
  long long line_begin;  // bytes from the text start
  long long cell_begin;
  long long cell_end;
  int column;
  int pad;
};

/// A value the host computed, to be written to column `column`, row `row`.
struct host_value {
  long long row;
  unsigned long long bits;  // float bits in the low half for float32
  int column;
  int pad;
};

/// The power-of-five table on the current device (uploaded on first use per device).
const csv_number::pow5_entry* device_pow5_table();

/// Pass 1: per block of tile_bytes, the data rows starting in it and the '\n' bytes in it, into
/// totals[0, line_blocks(n)); totals[line_blocks(n)] is set to zero (for the scan).
void count_lines(const char* text, std::int64_t n, const csv_row::row_dialect& d, line_counts* totals,
                 cudaStream_t stream);

/// Bytes of temporary storage for scan_counts over `count` entries.
std::size_t scan_temp_bytes(std::int64_t count);
/// offsets[i] = sum of totals[0, i) for i in [0, count) (exclusive scan).
void scan_counts(const line_counts* totals, line_counts* offsets, std::int64_t count, void* temp,
                 std::size_t temp_bytes, cudaStream_t stream);

/// Pass 2: parses every data row into the plans' outputs; `offsets` from scan_counts; the first
/// text byte is on line `first_line`. `status` must hold {~0, ~0, 0} before the call; up to
/// `capacity` undecided cells are listed in `cells`.
void parse_rows(const char* text, std::int64_t n, const csv_row::row_params& params, const line_counts* offsets,
                long long first_line, parse_status* status, undecided_cell* cells, long long capacity,
                cudaStream_t stream);

/// Writes host-computed values into the plans' outputs.
void scatter_values(const csv_row::column_out* plans, const host_value* values, long long count, cudaStream_t stream);

}  // namespace zeroflow::io::detail::csv_gpu
