// The GPU passes of read_csv's CUDA path (declared in csv_cuda_kernels.hpp).
//
// The text is cut into segments of 32 bytes, one per thread, 256 threads per block. A thread
// owns the lines that START in its segment (a line may run on into later segments), so:
//   pass 1 (count_lines): each block counts its data rows and '\n' bytes;
//   scan_counts: an exclusive scan over the blocks gives each block its first row and line;
//   pass 2 (parse_rows): each block recounts per thread, scans within the block, and every
//   thread parses its rows with csv_cuda_row.hpp, knowing each row's index and line number.
// Nothing per byte or per line is stored: the two passes cost two reads of the text.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <mutex>
#include <vector>

#include "csv_cuda_kernels.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"

namespace zeroflow::io::detail::csv_gpu {

namespace {

using csv_row::row_dialect;
using csv_row::row_params;

__device__ csv_number::pow5_entry pow5_table[csv_number::pow5_count];

struct add_counts {
  __host__ __device__ line_counts operator()(const line_counts& a, const line_counts& b) const {
    return {a.rows + b.rows, a.lines + b.lines};
  }
};

// Bit i set when byte s + i is '\n' (bytes at or past n read as not). s is a multiple of 32 and
// the buffer is padded to one, so the two 16-byte loads stay inside it.
__device__ unsigned newline_mask(const char* text, std::int64_t n, std::int64_t s) {
  const auto* v = reinterpret_cast<const uint4*>(text + s);
  const uint4 a = v[0], b = v[1];
  const unsigned words[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  unsigned mask = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const unsigned eq = __vcmpeq4(words[k], 0x0a0a0a0au);  // 0xff in every byte that is '\n'
    const unsigned nibble = ((eq >> 7) & 1u) | ((eq >> 14) & 2u) | ((eq >> 21) & 4u) | ((eq >> 28) & 8u);
    mask |= nibble << (4 * k);
  }
  const std::int64_t valid = n - s;
  if (valid < 32) mask &= (1u << valid) - 1u;
  return mask;
}

// The segment of one thread: its '\n' bytes and its line starts (bit i: a line starts at s + i).
struct segment {
  std::int64_t start;
  unsigned newlines;
  unsigned line_starts;
};

__device__ segment load_segment(const char* text, std::int64_t n, std::int64_t index) {
  segment seg{index * segment_bytes, 0u, 0u};
  if (seg.start >= n) return seg;
  seg.newlines = newline_mask(text, n, seg.start);
  seg.line_starts = seg.newlines << 1;  // the start after bit 31's '\n' is the next segment's
  if (seg.start == 0 || text[seg.start - 1] == '\n') seg.line_starts |= 1u;
  const std::int64_t valid = n - seg.start;
  if (valid < 32) seg.line_starts &= (1u << valid) - 1u;  // a '\n' at n - 1 starts no line
  return seg;
}

__device__ line_counts count_segment(const char* text, std::int64_t n, const segment& seg, const row_dialect& d) {
  long long rows = 0;
  for (unsigned starts = seg.line_starts; starts != 0; starts &= starts - 1) {
    const int i = __ffs(static_cast<int>(starts)) - 1;
    rows += csv_row::is_data_line(text + seg.start + i, text + n, d) ? 1 : 0;
  }
  return {rows, static_cast<long long>(__popc(seg.newlines))};
}

__global__ void __launch_bounds__(block_threads)
    count_lines_kernel(const char* __restrict__ text, std::int64_t n, row_dialect d, line_counts* __restrict__ totals) {
  using reduce = cub::BlockReduce<line_counts, block_threads>;
  __shared__ typename reduce::TempStorage temp;
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x;
  const segment seg = load_segment(text, n, index);
  const line_counts mine = count_segment(text, n, seg, d);
  const line_counts block_total = reduce(temp).Reduce(mine, add_counts{});
  if (threadIdx.x == 0) {
    totals[blockIdx.x] = block_total;
    if (blockIdx.x == gridDim.x - 1) totals[gridDim.x] = line_counts{0, 0};
  }
}

__global__ void __launch_bounds__(block_threads)
    parse_rows_kernel(const char* __restrict__ text, std::int64_t n, row_params params,
                      const line_counts* __restrict__ offsets, long long first_line, parse_status* status,
                      undecided_cell* cells, long long capacity) {
  using scan = cub::BlockScan<line_counts, block_threads>;
  __shared__ typename scan::TempStorage temp;
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x;
  const segment seg = load_segment(text, n, index);
  const line_counts mine = count_segment(text, n, seg, params.d);
  line_counts before;
  scan(temp).ExclusiveScan(mine, before, line_counts{0, 0}, add_counts{});
  const line_counts block_start = offsets[blockIdx.x];
  long long row = block_start.rows + before.rows;
  const long long lines_before = first_line + block_start.lines + before.lines;
  const char* const end = text + n;
  for (unsigned starts = seg.line_starts; starts != 0; starts &= starts - 1) {
    const int i = __ffs(static_cast<int>(starts)) - 1;
    const char* p = text + seg.start + i;
    if (!csv_row::is_data_line(p, end, params.d)) continue;
    const long long line = lines_before + __popc(seg.newlines & ((1u << i) - 1u));
    const long long line_begin = p - text;
    const bool fine = csv_row::parse_row(p, end, row, params, [&](int column, const char* b, const char* e) {
      const unsigned long long k = atomicAdd(&status->undecided, 1ull);
      if (k < static_cast<unsigned long long>(capacity))
        cells[k] = undecided_cell{row, line, line_begin, b - text, e - text, column, 0};
    });
    if (!fine) {
      atomicMin(&status->first_bad_line, static_cast<unsigned long long>(line));
      atomicMin(&status->first_bad_offset, static_cast<unsigned long long>(line_begin));
    }
    ++row;
  }
}

__global__ void scatter_kernel(const csv_row::column_out* __restrict__ plans, const host_value* __restrict__ values,
                               long long count) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const host_value v = values[i];
    const csv_row::column_out plan = plans[v.column];
    switch (plan.kind) {
      case csv_row::column_kind::f32: static_cast<std::uint32_t*>(plan.out)[v.row] = static_cast<std::uint32_t>(v.bits); break;
      case csv_row::column_kind::f64: static_cast<std::uint64_t*>(plan.out)[v.row] = v.bits; break;
      case csv_row::column_kind::i64: static_cast<std::uint64_t*>(plan.out)[v.row] = v.bits; break;
      case csv_row::column_kind::skip: break;
    }
  }
}

}  // namespace

const csv_number::pow5_entry* device_pow5_table() {
  static std::mutex mutex;
  static std::vector<bool> uploaded;
  int device = 0;
  ZF_CUDA_TRY(cudaGetDevice(&device));
  std::lock_guard lock(mutex);
  if (uploaded.size() <= static_cast<std::size_t>(device)) uploaded.resize(static_cast<std::size_t>(device) + 1);
  if (!uploaded[static_cast<std::size_t>(device)]) {
    const std::vector<csv_number::pow5_entry> table = csv_number::make_pow5_table();
    ZF_CUDA_TRY(cudaMemcpyToSymbol(pow5_table, table.data(), table.size() * sizeof(csv_number::pow5_entry)));
    uploaded[static_cast<std::size_t>(device)] = true;
  }
  void* address = nullptr;
  ZF_CUDA_TRY(cudaGetSymbolAddress(&address, pow5_table));
  return static_cast<const csv_number::pow5_entry*>(address);
}

void count_lines(const char* text, std::int64_t n, const row_dialect& d, line_counts* totals, cudaStream_t stream) {
  const std::int64_t blocks = line_blocks(n);
  if (blocks == 0) {
    ZF_CUDA_TRY(cudaMemsetAsync(totals, 0, sizeof(line_counts), stream));
    return;
  }
  count_lines_kernel<<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(text, n, d, totals);
  ZF_CUDA_TRY(cudaGetLastError());
}

std::size_t scan_temp_bytes(std::int64_t count) {
  std::size_t bytes = 0;
  ZF_CUDA_TRY(cub::DeviceScan::ExclusiveScan(nullptr, bytes, static_cast<const line_counts*>(nullptr),
                                             static_cast<line_counts*>(nullptr), add_counts{}, line_counts{0, 0},
                                             count));
  return bytes;
}

void scan_counts(const line_counts* totals, line_counts* offsets, std::int64_t count, void* temp,
                 std::size_t temp_bytes, cudaStream_t stream) {
  ZF_CUDA_TRY(cub::DeviceScan::ExclusiveScan(temp, temp_bytes, totals, offsets, add_counts{}, line_counts{0, 0},
                                             count, stream));
}

void parse_rows(const char* text, std::int64_t n, const row_params& params, const line_counts* offsets,
                long long first_line, parse_status* status, undecided_cell* cells, long long capacity,
                cudaStream_t stream) {
  const std::int64_t blocks = line_blocks(n);
  if (blocks == 0) return;
  parse_rows_kernel<<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(text, n, params, offsets,
                                                                                 first_line, status, cells, capacity);
  ZF_CUDA_TRY(cudaGetLastError());
}

void scatter_values(const csv_row::column_out* plans, const host_value* values, long long count,
                    cudaStream_t stream) {
  if (count == 0) return;
  constexpr int threads = 256;
  const long long blocks = (count + threads - 1) / threads;
  scatter_kernel<<<static_cast<unsigned>(blocks < 1024 ? blocks : 1024), threads, 0, stream>>>(plans, values, count);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::io::detail::csv_gpu
