// The fused band-pass + NMS gate (detail_cuda/bandpass_gate.hpp). Each block filters its tile
// plus a window of halo into shared memory (bandpass_tile.cuh), writes its share of the filtered
// signal, computes the gate from the tile still in shared memory (chunk_gate.cuh) and counts its
// ones, so that the gate's positions are found without another pass to count them.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/block/block_scan.cuh>

#include "detail_cuda/bandpass_gate.hpp"
#include "detail_cuda/bandpass_tile.cuh"
#include "detail_cuda/chunk_gate.cuh"
#include "detail_cuda/common.cuh"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/nms.hpp"
#include "zeroflow/signal/detail/ricker.hpp"

namespace zeroflow::signal::detail {

namespace {

using u64 = unsigned long long;

constexpr int threads = gpu::bandpass_threads;
constexpr int chunk = 13;  // gate outputs per thread (odd: conflict-free, see chunk_gate.cuh)
static_assert(chunk <= 16, "a thread's ones travel as 16 bits");
constexpr int tile = threads * chunk;  // gate outputs per block

/// Shared-memory layout of one block, in bytes from the start (every part 16-byte aligned).
struct fused_layout {
  int passes = 0;  // bandpass passes that cover tile + window filtered values
  std::size_t inputs = 0, filtered = 0, chunk_max = 0, raw_words = 0, ones = 0, total = 0;
};

__host__ __device__ constexpr std::size_t aligned16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

__host__ __device__ fused_layout layout_for(int width, int window) {
  fused_layout l;
  l.passes = (tile + window + gpu::bandpass_pass - 1) / gpu::bandpass_pass;
  const std::size_t outputs = static_cast<std::size_t>(l.passes) * gpu::bandpass_pass;
  l.inputs = aligned16(sizeof(double) * static_cast<std::size_t>(width));
  // The input tile is dead once filtered, and then holds the staged gate bytes (tile <= its size).
  l.filtered =
      l.inputs + aligned16(sizeof(float) * static_cast<std::size_t>(gpu::bandpass_input_floats(width, outputs)));
  l.chunk_max = l.filtered + aligned16(sizeof(float) * outputs);
  l.raw_words = l.chunk_max + aligned16(sizeof(float) * (threads + gpu::extra_chunks<chunk>(window)));
  l.ones = l.raw_words + aligned16(sizeof(unsigned) * (threads + 1));
  l.total = l.ones + aligned16(sizeof(unsigned));  // (no static shared memory: the 48 KiB default limit counts both)
  return l;
}

// Six blocks of 256 threads per SM (40 registers): the phases of one block (global loads, double
// arithmetic, shared-memory gate) overlap those of the others.
__global__ void __launch_bounds__(threads, 6)
    bandpass_gate_kernel(const float* __restrict__ x, std::int64_t n, const double* __restrict__ taps, int width,
                         int window, float* __restrict__ y, unsigned char* __restrict__ gate,
                         u64* __restrict__ block_ones, unsigned short* __restrict__ thread_ones) {
  extern __shared__ __align__(16) unsigned char smem[];
  const fused_layout l = layout_for(width, window);
  unsigned& ones = *reinterpret_cast<unsigned*>(smem + l.ones);
  auto* s_taps = reinterpret_cast<double*>(smem);
  auto* inputs = reinterpret_cast<float*>(smem + l.inputs);
  auto* f = reinterpret_cast<float*>(smem + l.filtered);  // f[i] = filtered[g0 − 1 + i]

  const std::int64_t m = n - window + 1;
  const std::int64_t g0 = static_cast<std::int64_t>(blockIdx.x) * tile;
  const std::int64_t f_first = g0 - 1;
  if (threadIdx.x == 0) ones = 0;
  gpu::load_taps(s_taps, taps, width);
  gpu::load_inputs(inputs, x, n, f_first - (width - 1), l.passes * gpu::bandpass_pass + width - 1);
  __syncthreads();
  for (int pass = 0; pass < l.passes; ++pass)
    gpu::convolve_pass(s_taps, width, inputs + gpu::bandpass_run, pass * gpu::bandpass_pass, f);
  __syncthreads();

  // This block's share of the filtered signal: [g0, g0 + tile), and the last block also the
  // samples past the gate's end, up to N.
  const std::int64_t limit = g0 + tile < m ? g0 + tile : n;
  for (std::int64_t i = 1 + threadIdx.x; f_first + i < limit; i += blockDim.x) y[f_first + i] = f[i];
  const gpu::chunk_gate_scratch scratch{reinterpret_cast<float*>(smem + l.chunk_max),
                                        reinterpret_cast<unsigned*>(smem + l.raw_words),
                                        reinterpret_cast<unsigned char*>(inputs)};
  const unsigned edges = gpu::chunk_gate<chunk>(f, window, g0, m, scratch, gate);
  thread_ones[static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x] = static_cast<unsigned short>(edges);
  unsigned warp_ones = static_cast<unsigned>(__popc(edges));
#pragma unroll
  for (int k = 16; k > 0; k /= 2) warp_ones += __shfl_xor_sync(0xffffffffu, warp_ones, k);
  if ((threadIdx.x & 31) == 0 && warp_ones != 0) atomicAdd(&ones, warp_ones);
  __syncthreads();
  if (threadIdx.x == 0) block_ones[blockIdx.x] = ones;
}

// offsets[b] = Σ ones[< b] for b <= blocks (the last is the total), in one block: each thread
// adds a contiguous run of counts (independent loads, in flight together), one block-wide scan of
// the runs' sums, then each thread writes its run's offsets.
constexpr int scan_threads = 1024;

// When `live` is given, the total also goes to *total and, clamped to `capacity`, to *live.
__global__ void __launch_bounds__(scan_threads)
    block_offsets_kernel(const u64* __restrict__ ones, std::int64_t blocks, u64* __restrict__ offsets,
                         std::int64_t capacity, std::int64_t* live, u64* total) {
  using scan = cub::BlockScan<u64, scan_threads>;
  __shared__ typename scan::TempStorage storage;
  const std::int64_t run = (blocks + scan_threads) / scan_threads;  // covers blocks + 1 entries
  const std::int64_t first = static_cast<std::int64_t>(threadIdx.x) * run;
  u64 sum = 0;
  for (std::int64_t b = first; b < first + run && b < blocks; ++b) sum += ones[b];
  u64 before = 0;
  scan(storage).ExclusiveSum(sum, before);
  for (std::int64_t b = first; b < first + run && b <= blocks; ++b) {
    offsets[b] = before;
    if (b < blocks) before += ones[b];
    if (b == blocks && live != nullptr) {
      *total = before;
      *live = before < static_cast<u64>(capacity) ? static_cast<std::int64_t>(before) : capacity;
    }
  }
}

// Block b writes the positions of its tile's ones from offsets[b] on, in order, from the bits
// each thread of the fused kernel left (bit u of thread t: gate[b·tile + t·chunk + u]); those
// that would land at `capacity` or later are dropped.
__global__ void __launch_bounds__(threads)
    scatter_positions_kernel(const unsigned short* __restrict__ thread_ones, const u64* __restrict__ offsets,
                             std::int64_t capacity, std::int64_t* __restrict__ positions) {
  using scan = cub::BlockScan<unsigned, threads>;
  __shared__ typename scan::TempStorage storage;
  unsigned bits = thread_ones[static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x];
  unsigned before = 0;
  scan(storage).ExclusiveSum(static_cast<unsigned>(__popc(bits)), before);
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * tile + threadIdx.x * chunk;
  std::int64_t at = static_cast<std::int64_t>(offsets[blockIdx.x] + before);
  for (; bits != 0 && at < capacity; bits &= bits - 1) positions[at++] = first + __ffs(static_cast<int>(bits)) - 1;
}

}  // namespace

filtered_gate bandpass_gate_cuda(const array& signal, std::int64_t ricker_width, std::int64_t nms_window,
                                 stream_view stream) {
  if (ricker_width > gpu::max_tiled_taps || nms_window > gpu::max_tiled_window) {
    array filtered = bandpass_cuda(signal, ricker_width, stream);
    array gate = nms_gate_cuda(filtered, nms_window, stream);
    return {filtered, gate, {}, {}};
  }
  const device where = signal.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t n = signal.size(), m = n - nms_window + 1;
  const auto width = static_cast<int>(ricker_width), window = static_cast<int>(nms_window);
  const unsigned blocks = gpu::tiles_for(m, tile);
  filtered_gate out{empty({n}, float32, where, stream), empty({m}, uint8, where, stream),
                    empty({static_cast<std::int64_t>(blocks)}, uint64, where, stream),
                    empty({static_cast<std::int64_t>(blocks) * threads}, uint16, where, stream)};
  auto* block_ones = static_cast<u64*>(out.block_ones.data());
  const auto host_taps = ricker_taps(ricker_width);
  array taps = empty({ricker_width}, float64, where, stream);
  gpu::upload(taps.data(), host_taps.data(), host_taps.size() * sizeof(double), stream);

  const fused_layout layout = layout_for(width, window);
  if (layout.total > 48 * 1024)
    ZF_CUDA_TRY(cudaFuncSetAttribute(bandpass_gate_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(layout.total)));
  bandpass_gate_kernel<<<blocks, threads, layout.total, gpu::raw(stream)>>>(
      static_cast<const float*>(signal.data()), n, static_cast<const double*>(taps.data()), width, window,
      static_cast<float*>(out.filtered.data()), static_cast<unsigned char*>(out.gate.data()), block_ones,
      static_cast<unsigned short*>(out.thread_ones.data()));
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

namespace {

/// The scan of the fused kernel's block counts (blocks + 1 offsets, the last one the total).
array block_offsets(const filtered_gate& fused, std::int64_t capacity, std::int64_t* live, u64* total,
                    stream_view stream) {
  ZF_EXPECTS(fused.block_ones.valid(), "fused_gate_positions: the gate was not computed by the fused kernel");
  const std::int64_t blocks = fused.block_ones.size();
  array offsets = empty({blocks + 1}, uint64, fused.gate.where(), stream);
  block_offsets_kernel<<<1, scan_threads, 0, gpu::raw(stream)>>>(static_cast<const u64*>(fused.block_ones.data()),
                                                                 blocks, static_cast<u64*>(offsets.data()), capacity,
                                                                 live, total);
  ZF_SIGNAL_LAUNCH_CHECK();
  return offsets;
}

void scatter_positions(const filtered_gate& fused, const array& offsets, array& positions, stream_view stream) {
  if (positions.size() == 0) return;
  scatter_positions_kernel<<<static_cast<unsigned>(fused.block_ones.size()), threads, 0, gpu::raw(stream)>>>(
      static_cast<const unsigned short*>(fused.thread_ones.data()), static_cast<const u64*>(offsets.data()),
      positions.size(), static_cast<std::int64_t*>(positions.data()));
  ZF_SIGNAL_LAUNCH_CHECK();
}

}  // namespace

array fused_gate_positions(const filtered_gate& fused, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(fused.gate.where().id);
  const array offsets = block_offsets(fused, 0, nullptr, nullptr, stream);
  // The number of positions sizes the output: read back (this stage's host synchronisation).
  const std::int64_t blocks = fused.block_ones.size();
  const auto count =
      static_cast<std::int64_t>(gpu::read_back(static_cast<const u64*>(offsets.data()) + blocks, stream));
  array positions = empty({count}, int64, fused.gate.where(), stream);
  scatter_positions(fused, offsets, positions, stream);
  return positions;
}

array fused_gate_positions_live(const filtered_gate& fused, std::int64_t capacity, std::int64_t* live,
                                unsigned long long* total, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(fused.gate.where().id);
  ZF_EXPECTS(capacity >= 0 && live != nullptr && total != nullptr,
             "fused_gate_positions_live: needs a capacity >= 0 and both device counters");
  const array offsets = block_offsets(fused, capacity, live, total, stream);
  array positions = empty({capacity}, int64, fused.gate.where(), stream);
  scatter_positions(fused, offsets, positions, stream);
  return positions;
}

}  // namespace zeroflow::signal::detail
