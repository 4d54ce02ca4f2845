// CUDA half of embed.hpp: the length rule per candidate, the kept candidates' indices in beat
// order (CUB select over the flags, so rows are deterministic, unlike the seed's atomic counter),
// and one warp per row copying the normalised beat and its zero padding.
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_select.cuh>

#include "detail_cuda/common.cuh"
#include "detail_cuda/live_items.cuh"
#include "detail_cuda/live_stages.hpp"
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

// embed_beats_cuda's device block: the counters, set before mark_and_select, and the
// normalisation the rows kernel reads.
struct embed_block {
  embed_counters counters;
  float center;
  float scale;
};

struct is_set {
  __host__ __device__ bool operator()(unsigned char flag) const { return flag != 0; }
};

constexpr int mark_threads = 256;

// Candidates from `live_positions` − 1 on (when given: the positions' count on the device) are not
// kept, so that a selection over the whole buffer picks the live ones only.
__global__ void __launch_bounds__(mark_threads)
    mark_kernel(const std::int64_t* __restrict__ start, const std::int64_t* __restrict__ length,
                std::int64_t candidates, std::int64_t min_length, std::int64_t max_length, std::int64_t n,
                unsigned char* __restrict__ kept, u64* kept_count, u64* first_bad, const std::int64_t* live_positions) {
  using reduce = cub::BlockReduce<u64, mark_threads>;
  __shared__ typename reduce::TempStorage storage;
  const std::int64_t live = gpu::live_items(candidates, live_positions, 1);
  u64 mine = 0;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < candidates; c += step) {
    const std::int64_t len = c < live ? length[c] : -1;
    const bool keep = min_length <= len && len <= max_length;
    kept[c] = keep ? 1 : 0;
    if (!keep) continue;
    ++mine;
    const std::int64_t s = start[c];
    if (!(s >= 0 && s <= n - len)) atomicMin(first_bad, static_cast<u64>(c));
  }
  const u64 total = reduce(storage).Sum(mine);
  if (threadIdx.x == 0 && total != 0) atomicAdd(kept_count, total);
}

constexpr int rows_threads = 256;  // 8 warps, one row each

__global__ void __launch_bounds__(rows_threads)
    rows_kernel(const float* __restrict__ x, const std::int64_t* __restrict__ start,
                const std::int64_t* __restrict__ length, const std::int64_t* __restrict__ index, std::int64_t rows,
                std::int64_t row_width, const float* __restrict__ center_at, const float* __restrict__ scale_at,
                const u64* live_rows, float* __restrict__ out) {
  const unsigned lane = threadIdx.x & 31;
  if (live_rows != nullptr && static_cast<std::int64_t>(*live_rows) < rows)
    rows = static_cast<std::int64_t>(*live_rows);
  const float center = *center_at, scale = *scale_at;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; r < rows;
       r += warps) {
    const std::int64_t c = index[r];
    const float* beat = x + start[c];
    const std::int64_t len = length[c];
    float* row = out + r * row_width;
    // (x − center) / scale in float, rounded as the host rounds it.
#pragma unroll 8  // a row of 256 is 8 stores per lane: their loads go out together
    for (std::int64_t i = lane; i < row_width; i += 32)
      row[i] = i < len ? __fdiv_rn(__fsub_rn(beat[i], center), scale) : 0.0f;
  }
}

/// Queues the length rule and the selection of the kept candidates (flags and indices sized for
/// every candidate of the buffer); their number lands in *kept_count and the lowest candidate
/// whose span leaves the signal in *first_bad (all ones when none), both device memory, which
/// the caller has set to 0 and all ones on the stream before.
embedding mark_and_select(const array& signal, const array& positions, const array& lengths, std::int64_t min_length,
                          std::int64_t max_length, u64* kept_count, u64* first_bad, const std::int64_t* live_positions,
                          stream_view stream) {
  const device where = signal.where();
  const std::int64_t candidates = lengths.size();
  embedding out;
  out.kept = empty({candidates}, uint8, where, stream);
  out.kept_index = empty({candidates}, int64, where, stream);
  if (candidates == 0) return out;
  auto* kept = static_cast<unsigned char*>(out.kept.data());
  mark_kernel<<<gpu::grid_for(candidates, mark_threads, where.id), mark_threads, 0, gpu::raw(stream)>>>(
      static_cast<const std::int64_t*>(positions.data()), static_cast<const std::int64_t*>(lengths.data()), candidates,
      min_length, max_length, signal.size(), kept, kept_count, first_bad, live_positions);
  ZF_SIGNAL_LAUNCH_CHECK();
  thrust::counting_iterator<std::int64_t> indices(0);
  auto* index = static_cast<std::int64_t*>(out.kept_index.data());
  // CUB counts what it selects too; mark_kernel has counted the same rows already.
  array selected_count = gpu::scratch(sizeof(long long), where, stream);
  auto* selected = static_cast<long long*>(selected_count.data());
  std::size_t bytes = 0;
  ZF_CUDA_TRY(cub::DeviceSelect::FlaggedIf(nullptr, bytes, indices, kept, index, selected, candidates, is_set{},
                                           gpu::raw(stream)));
  array temp = gpu::scratch(bytes, where, stream);
  ZF_CUDA_TRY(cub::DeviceSelect::FlaggedIf(temp.data(), bytes, indices, kept, index, selected, candidates, is_set{},
                                           gpu::raw(stream)));
  return out;
}

void launch_rows(const array& signal, const array& positions, const array& lengths, const array& kept_index,
                 std::int64_t rows, const float* center, const float* scale, const u64* live_rows, array& out,
                 stream_view stream) {
  const std::int64_t row_width = out.shape(1);
  if (rows == 0 || row_width == 0) return;
  const int blocks = gpu::grid_for(rows * 32, rows_threads, signal.where().id, 8);
  rows_kernel<<<blocks, rows_threads, 0, gpu::raw(stream)>>>(
      static_cast<const float*>(signal.data()), static_cast<const std::int64_t*>(positions.data()),
      static_cast<const std::int64_t*>(lengths.data()), static_cast<const std::int64_t*>(kept_index.data()), rows,
      row_width, center, scale, live_rows, static_cast<float*>(out.data()));
  ZF_SIGNAL_LAUNCH_CHECK();
}

}  // namespace

embedding embed_beats_cuda(const array& signal, const array& positions, const array& lengths, std::int64_t min_length,
                           std::int64_t max_length, std::int64_t row_width, normalization norm, stream_view stream) {
  const device where = signal.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  // The counters' starting values and the normalisation, in one upload.
  array block = gpu::scratch(sizeof(embed_block), where, stream);
  auto* device_block = static_cast<embed_block*>(block.data());
  const embed_block initial{{0, ~u64{0}}, norm.center, norm.scale};
  gpu::upload(device_block, &initial, sizeof initial, stream);
  embed_counters* counters = &device_block->counters;
  embedding out = mark_and_select(signal, positions, lengths, min_length, max_length, &counters->kept, &counters->bad,
                                  nullptr, stream);

  // The number of rows sizes the outputs: read back (this stage's host synchronisation).
  const embed_counters counts = lengths.size() == 0 ? embed_counters{0, ~u64{0}} : gpu::read_back(counters, stream);
  if (counts.bad != ~u64{0}) {
    const auto c = static_cast<std::int64_t>(counts.bad);
    const auto* start = static_cast<const std::int64_t*>(positions.data());
    const auto* length = static_cast<const std::int64_t*>(lengths.data());
    const std::int64_t s = gpu::read_back(start + c, stream), len = gpu::read_back(length + c, stream);
    ZF_THROW(invalid_argument, "embed_beats: candidate ", c, " spans [", s, ", ", s + len, "), outside the ",
             signal.size(), "-sample signal");
  }
  const auto rows = static_cast<std::int64_t>(counts.kept);
  out.kept_index = out.kept_index.slice(0, 0, rows);
  out.rows = empty({rows, row_width}, float32, where, stream);
  launch_rows(signal, positions, lengths, out.kept_index, rows, &device_block->center, &device_block->scale, nullptr,
              out.rows, stream);
  return out;
}

embedding embed_beats_live(const array& signal, const array& positions, const array& lengths, const std::int64_t* kept,
                           std::int64_t min_length, std::int64_t max_length, std::int64_t row_width,
                           std::int64_t max_rows, tail_scalars* s, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(signal.where().id);
  embedding out = mark_and_select(signal, positions, lengths, min_length, max_length, &s->rows, &s->bad, kept, stream);
  const std::int64_t room = std::clamp<std::int64_t>(max_rows, 0, lengths.size());
  out.rows = empty({room, row_width}, float32, signal.where(), stream);
  launch_rows(signal, positions, lengths, out.kept_index, room, &s->row_center, &s->row_scale, &s->rows, out.rows,
              stream);
  return out;
}

void embed_rows_cuda(const array& signal, const array& positions, const array& lengths, const array& kept_index,
                     std::int64_t rows, const float* center, const float* scale, array& out, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(signal.where().id);
  launch_rows(signal, positions, lengths, kept_index, rows, center, scale, nullptr, out, stream);
}

}  // namespace zeroflow::signal::detail
