// CUDA half of embed.hpp: the length rule per candidate, the kept candidates' indices in beat
// order (CUB select over the flags, so rows are deterministic, unlike the seed's atomic counter),
// and one warp per row copying the normalised beat and its zero padding.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>

#include "detail_cuda/common.cuh"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/embed.hpp"

namespace zeroflow::signal::detail {

namespace {

using u64 = unsigned long long;

struct embed_counters {
  u64 kept;  // candidates kept
  u64 bad;   // lowest kept candidate whose span leaves the signal; all ones when none
};

struct is_set {
  __host__ __device__ bool operator()(unsigned char flag) const { return flag != 0; }
};

constexpr int mark_threads = 256;

__global__ void __launch_bounds__(mark_threads)
    mark_kernel(const std::int64_t* __restrict__ start, const std::int64_t* __restrict__ length,
                std::int64_t candidates, std::int64_t min_length, std::int64_t max_length, std::int64_t n,
                unsigned char* __restrict__ kept, embed_counters* counters) {
  using reduce = cub::BlockReduce<u64, mark_threads>;
  __shared__ typename reduce::TempStorage storage;
  u64 mine = 0;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < candidates; c += step) {
    const std::int64_t len = length[c];
    const bool keep = min_length <= len && len <= max_length;
    kept[c] = keep ? 1 : 0;
    if (!keep) continue;
    ++mine;
    const std::int64_t s = start[c];
    if (!(s >= 0 && s <= n - len)) atomicMin(&counters->bad, static_cast<u64>(c));
  }
  const u64 total = reduce(storage).Sum(mine);
  if (threadIdx.x == 0 && total != 0) atomicAdd(&counters->kept, total);
}

constexpr int rows_threads = 256;  // 8 warps, one row each

__global__ void __launch_bounds__(rows_threads)
    rows_kernel(const float* __restrict__ x, const std::int64_t* __restrict__ start,
                const std::int64_t* __restrict__ length, const std::int64_t* __restrict__ index, std::int64_t rows,
                std::int64_t row_width, float center, float scale, float* __restrict__ out) {
  const unsigned lane = threadIdx.x & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; r < rows;
       r += warps) {
    const std::int64_t c = index[r];
    const float* beat = x + start[c];
    const std::int64_t len = length[c];
    float* row = out + r * row_width;
    // (x − center) / scale in float, rounded as the host rounds it.
    for (std::int64_t i = lane; i < row_width; i += 32) row[i] = i < len ? __fdiv_rn(__fsub_rn(beat[i], center), scale) : 0.0f;
  }
}

}  // namespace

embedding embed_beats_cuda(const array& signal, const array& positions, const array& lengths,
                           std::int64_t min_length, std::int64_t max_length, std::int64_t row_width,
                           normalization norm, stream_view stream) {
  const device where = signal.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t n = signal.size(), candidates = lengths.size();
  const auto* start = static_cast<const std::int64_t*>(positions.data());
  const auto* length = static_cast<const std::int64_t*>(lengths.data());

  embedding out;
  out.kept = empty({candidates}, uint8, where, stream);
  std::int64_t rows = 0;
  if (candidates > 0) {
    array counters_block = gpu::scratch(sizeof(embed_counters), where, stream);
    auto* counters = static_cast<embed_counters*>(counters_block.data());
    ZF_CUDA_TRY(cudaMemsetAsync(&counters->kept, 0, sizeof(u64), gpu::raw(stream)));
    ZF_CUDA_TRY(cudaMemsetAsync(&counters->bad, 0xff, sizeof(u64), gpu::raw(stream)));
    auto* kept = static_cast<unsigned char*>(out.kept.data());
    mark_kernel<<<gpu::grid_for(candidates, mark_threads, where.id), mark_threads, 0, gpu::raw(stream)>>>(
        start, length, candidates, min_length, max_length, n, kept, counters);
    ZF_SIGNAL_LAUNCH_CHECK();

    // The number of rows sizes the outputs: read back (this stage's host synchronisation).
    const embed_counters counts = gpu::read_back(counters, stream);
    if (counts.bad != ~u64{0}) {
      const auto c = static_cast<std::int64_t>(counts.bad);
      const std::int64_t s = gpu::read_back(start + c, stream), len = gpu::read_back(length + c, stream);
      ZF_THROW(invalid_argument, "embed_beats: candidate ", c, " spans [", s, ", ", s + len, "), outside the ", n,
               "-sample signal");
    }
    rows = static_cast<std::int64_t>(counts.kept);
    out.kept_index = empty({rows}, int64, where, stream);
    if (rows > 0) {
      thrust::counting_iterator<std::int64_t> indices(0);
      auto* selected = static_cast<long long*>(counters_block.data());  // kept's slot is free again
      auto* index = static_cast<std::int64_t*>(out.kept_index.data());
      std::size_t bytes = 0;
      ZF_CUDA_TRY(cub::DeviceSelect::FlaggedIf(nullptr, bytes, indices, kept, index, selected, candidates, is_set{},
                                               gpu::raw(stream)));
      array temp = gpu::scratch(bytes, where, stream);
      ZF_CUDA_TRY(cub::DeviceSelect::FlaggedIf(temp.data(), bytes, indices, kept, index, selected, candidates,
                                               is_set{}, gpu::raw(stream)));
    }
  } else {
    out.kept_index = empty({0}, int64, where, stream);
  }

  out.rows = empty({rows, row_width}, float32, where, stream);
  if (rows > 0 && row_width > 0) {
    const int blocks = gpu::grid_for(rows * 32, rows_threads, where.id, 8);
    rows_kernel<<<blocks, rows_threads, 0, gpu::raw(stream)>>>(
        static_cast<const float*>(signal.data()), start, length,
        static_cast<const std::int64_t*>(out.kept_index.data()), rows, row_width, norm.center, norm.scale,
        static_cast<float*>(out.rows.data()));
    ZF_SIGNAL_LAUNCH_CHECK();
  }
  return out;
}

}  // namespace zeroflow::signal::detail
