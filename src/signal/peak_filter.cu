// CUDA half of peak_filter.hpp: gather the heights, take their lower median with a radix sort
// of a copy (a few thousand to ~100k values), then compact the positions whose
// height reaches ratio × median. drop_weak_peaks_cuda reads the kept count back (to size its
// output); drop_weak_peaks_live (detail_cuda/live_stages.hpp) leaves it on the device.
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "detail_cuda/common.cuh"
#include "detail_cuda/live_items.cuh"
#include "detail_cuda/live_stages.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/peak_filter.hpp"

namespace zeroflow::signal::detail {

namespace {

// The filtered signal at each live position + offset (the baseline comes later, see
// peak_heights); +inf past the live ones, so that they sort last.
__global__ void gather_heights_kernel(const float* __restrict__ x, std::int64_t n, const std::int64_t* __restrict__ p,
                                      std::int64_t count, const std::int64_t* live, std::int64_t offset,
                                      float* __restrict__ heights, std::int64_t* __restrict__ out_of_range) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t used = gpu::live_items(count, live);
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const std::int64_t at = i < used ? p[i] + offset : -1;
    if (i >= used) {
      heights[i] = INFINITY;
    } else if (at < 0 || at >= n) {
      *out_of_range = 1;  // every writer stores the same value
      heights[i] = 0.0f;
    } else {
      heights[i] = x[at];
    }
  }
}

// The host's test with the baseline subtracted here: height = x − baseline, threshold = ratio ×
// the lower median height. x ↦ fl(x − baseline) never reverses an order, so the median height is
// fl(median x − baseline) and the sort could run before the baseline was known.
__global__ void flag_strong_kernel(const float* __restrict__ raw, const float* __restrict__ sorted, std::int64_t count,
                                   const std::int64_t* live, float ratio, const float* __restrict__ baseline_at,
                                   unsigned char* __restrict__ flags) {
  const float baseline = *baseline_at;
  const std::int64_t used = gpu::live_items(count, live);
  const float threshold = ratio * __fsub_rn(sorted[used > 0 ? (used - 1) / 2 : 0], baseline);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    flags[i] = i < used && __fsub_rn(raw[i], baseline) >= threshold ? 1 : 0;
}

/// Queues the second half of the filter: the kept positions lead the returned buffer
/// (positions.size() long), their number goes to *kept (device memory).
array keep_strong(const array& positions, const std::int64_t* live, const peak_heights& h, double ratio,
                  const float* baseline, std::int64_t* kept, stream_view stream) {
  const auto where = positions.where();
  const std::int64_t count = positions.size();
  cudaStream_t s = stream.value();
  array flags = empty({count}, uint8, where, stream);
  array out = empty({count}, int64, where, stream);
  flag_strong_kernel<<<gpu::grid_for(count, 256, where.id), 256, 0, s>>>(
      h.raw.data_as<const float>(), h.sorted.data_as<const float>(), count, live, static_cast<float>(ratio), baseline,
      flags.data_as<unsigned char>());
  ZF_CUDA_TRY(cudaGetLastError());
  std::size_t bytes = 0;
  ZF_CUDA_TRY(cub::DeviceSelect::Flagged(nullptr, bytes, positions.data_as<const std::int64_t>(),
                                         flags.data_as<const unsigned char>(), out.data_as<std::int64_t>(), kept, count,
                                         s));
  array temp = gpu::scratch(bytes, where, stream);
  ZF_CUDA_TRY(cub::DeviceSelect::Flagged(temp.data(), bytes, positions.data_as<const std::int64_t>(),
                                         flags.data_as<const unsigned char>(), out.data_as<std::int64_t>(), kept, count,
                                         s));
  return out;
}

}  // namespace

peak_heights sorted_peak_heights(const array& filtered, const array& positions, const std::int64_t* live,
                                 std::int64_t offset, std::int64_t* out_of_range, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(filtered.where().id);
  const auto where = filtered.where();
  const std::int64_t count = positions.size();
  cudaStream_t s = stream.value();
  peak_heights h{empty({count}, float32, where, stream), empty({count}, float32, where, stream)};
  if (count == 0) return h;
  gather_heights_kernel<<<gpu::grid_for(count, 256, where.id), 256, 0, s>>>(
      filtered.data_as<const float>(), filtered.size(), positions.data_as<const std::int64_t>(), count, live, offset,
      h.raw.data_as<float>(), out_of_range);
  ZF_CUDA_TRY(cudaGetLastError());
  std::size_t bytes = 0;
  ZF_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, bytes, h.raw.data_as<const float>(), h.sorted.data_as<float>(),
                                             count, 0, 32, s));
  array temp = gpu::scratch(bytes, where, stream);
  ZF_CUDA_TRY(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, h.raw.data_as<const float>(),
                                             h.sorted.data_as<float>(), count, 0, 32, s));
  return h;
}

array drop_weak_peaks_cuda(const array& filtered, const array& positions, std::int64_t offset, double ratio,
                           float baseline, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(filtered.where().id);
  // [0]: out-of-range flag, [1]: kept count, [2]: the baseline's bits
  array scalars = zeros({3}, int64, filtered.where(), stream);
  auto* scalar = scalars.data_as<std::int64_t>();
  gpu::upload(scalar + 2, &baseline, sizeof baseline, stream);
  const peak_heights heights = sorted_peak_heights(filtered, positions, nullptr, offset, scalar, stream);
  array out =
      keep_strong(positions, nullptr, heights, ratio, reinterpret_cast<const float*>(scalar + 2), scalar + 1, stream);
  std::int64_t host_scalars[2] = {0, 0};  // the one scalar hand-off: the output size
  zeroflow::detail::note_device_to_host(sizeof host_scalars);
  ZF_CUDA_TRY(cudaMemcpyAsync(host_scalars, scalar, sizeof host_scalars, cudaMemcpyDeviceToHost, stream.value()));
  ZF_CUDA_TRY(cudaStreamSynchronize(stream.value()));
  ZF_EXPECTS(host_scalars[0] == 0, "drop_weak_peaks: a position plus ", offset, " is outside the ", filtered.size(),
             "-sample signal");
  return out.slice(0, 0, host_scalars[1]);
}

array drop_weak_peaks_live(const array& positions, const peak_heights& heights, double ratio, tail_scalars* s,
                           stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(positions.where().id);
  if (ratio <= 0 || positions.size() == 0) {  // nothing to drop: all of them are kept
    ZF_CUDA_TRY(cudaMemcpyAsync(&s->kept, &s->positions, sizeof s->kept, cudaMemcpyDeviceToDevice, stream.value()));
    return positions;
  }
  return keep_strong(positions, &s->positions, heights, ratio, &s->baseline, &s->kept, stream);
}

}  // namespace zeroflow::signal::detail
