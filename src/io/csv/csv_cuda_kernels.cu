// The GPU passes of read_csv's CUDA path (declared in csv_cuda_kernels.hpp). Each thread owns a
// 32-byte segment of the text (csv_cuda_segments.hpp holds the per-thread work):
//   pass 1 (count_lines): each block counts its data rows and '\n' bytes;
//   scan_counts: an exclusive scan over the blocks gives each block its first row and line;
//   pass 2 (parse_rows): each block recounts per thread, scans within the block, and every
//   thread parses its rows, knowing each row's index and line number.
// The two passes cost two reads of the text.
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
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
    return csv_segments::add(a, b);
  }
};

__global__ void __launch_bounds__(block_threads)
    count_lines_kernel(const char* __restrict__ text, std::int64_t n, row_dialect d, line_counts* __restrict__ totals) {
  using reduce = cub::BlockReduce<line_counts, block_threads>;
  __shared__ typename reduce::TempStorage temp;
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * block_threads + threadIdx.x;
  const csv_segments::segment seg = csv_segments::load_segment(text, n, index);
  const line_counts mine = csv_segments::count_segment(text, n, seg, d);
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
  const csv_segments::segment seg = csv_segments::load_segment(text, n, index);
  const line_counts mine = csv_segments::count_segment(text, n, seg, params.d);
  line_counts before;
  scan(temp).ExclusiveScan(mine, before, line_counts{0, 0}, add_counts{});
  const line_counts block_start = offsets[blockIdx.x];
  csv_segments::parse_segment(
      text, n, seg, params, block_start.rows + before.rows, first_line + block_start.lines + before.lines,
      [&](long long line, long long line_begin) {
        atomicMin(&status->first_bad_line, static_cast<unsigned long long>(line));
        atomicMin(&status->first_bad_offset, static_cast<unsigned long long>(line_begin));
      },
      [&](long long row, long long line, long long line_begin, int column, long long cell_begin, long long cell_end) {
        const unsigned long long k = atomicAdd(&status->undecided, 1ull);
        if (k < static_cast<unsigned long long>(capacity))
          cells[k] = undecided_cell{row, line, line_begin, cell_begin, cell_end, column, 0};
      });
}

__global__ void scatter_kernel(const csv_row::column_out* __restrict__ plans, const host_value* __restrict__ values,
                               long long count) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const host_value v = values[i];
    const csv_row::column_out plan = plans[v.column];
    switch (plan.kind) {
      case csv_row::column_kind::f32:
        static_cast<std::uint32_t*>(plan.out)[v.row] = static_cast<std::uint32_t>(v.bits);
        break;
      case csv_row::column_kind::f64:
        static_cast<std::uint64_t*>(plan.out)[v.row] = v.bits;
        break;
      case csv_row::column_kind::i64:
        static_cast<std::uint64_t*>(plan.out)[v.row] = v.bits;
        break;
      case csv_row::column_kind::skip:
        break;
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
  ZF_CUDA_TRY(cub::DeviceScan::ExclusiveScan(temp, temp_bytes, totals, offsets, add_counts{}, line_counts{0, 0}, count,
                                             stream));
}

void parse_rows(const char* text, std::int64_t n, const row_params& params, const line_counts* offsets,
                long long first_line, parse_status* status, undecided_cell* cells, long long capacity,
                cudaStream_t stream) {
  const std::int64_t blocks = line_blocks(n);
  if (blocks == 0) return;
  parse_rows_kernel<<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(text, n, params, offsets, first_line,
                                                                                 status, cells, capacity);
  ZF_CUDA_TRY(cudaGetLastError());
}

void scatter_values(const csv_row::column_out* plans, const host_value* values, long long count, cudaStream_t stream) {
  if (count == 0) return;
  constexpr int threads = 256;
  const long long blocks = (count + threads - 1) / threads;
  scatter_kernel<<<static_cast<unsigned>(blocks < 1024 ? blocks : 1024), threads, 0, stream>>>(plans, values, count);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::io::detail::csv_gpu
