// CUDA half of peak_filter.hpp: gather the heights, take their lower median with a radix sort
// of a copy (a few thousand to ~100k values: microseconds), then compact the positions whose
// height reaches ratio × median. Only the kept count crosses to the host (to size the output).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>

#include <cstdint>

#include "zeroflow/core/transfers.hpp"

#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/peak_filter.hpp"

namespace zeroflow::signal::detail {

namespace {

__global__ void gather_heights_kernel(const float* __restrict__ x, std::int64_t n, const std::int64_t* __restrict__ p,
                                      std::int64_t count, std::int64_t offset, float baseline,
                                      float* __restrict__ heights,
                                      int* __restrict__ out_of_range) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const std::int64_t at = p[i] + offset;
    if (at < 0 || at >= n) {
      atomicExch(out_of_range, 1);
      heights[i] = 0.0f;
    } else {
      heights[i] = x[at] - baseline;
    }
  }
}

__global__ void flag_strong_kernel(const float* __restrict__ heights, const float* __restrict__ sorted,
                                   std::int64_t count, float ratio, unsigned char* __restrict__ flags) {
  const float threshold = ratio * sorted[(count - 1) / 2];
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    flags[i] = heights[i] >= threshold ? 1 : 0;
}

int grid_for(std::int64_t count) {
  return static_cast<int>(std::min<std::int64_t>((count + 255) / 256, 4096));
}

}  // namespace

array drop_weak_peaks_cuda(const array& filtered, const array& positions, std::int64_t offset, double ratio,
                           float baseline, stream_view stream) {
  const auto where = filtered.where();
  const std::int64_t count = positions.size();
  cudaStream_t s = stream.value();
  array heights = empty({count}, float32, where, stream);
  array sorted = empty({count}, float32, where, stream);
  array flags = empty({count}, uint8, where, stream);
  array scalars = zeros({2}, int64, where, stream);  // [0]: out-of-range flag (as int), [1]: kept count
  auto* flag = reinterpret_cast<int*>(scalars.data_as<std::int64_t>());
  auto* kept_count = scalars.data_as<std::int64_t>() + 1;
  gather_heights_kernel<<<grid_for(count), 256, 0, s>>>(filtered.data_as<const float>(), filtered.size(),
                                                        positions.data_as<const std::int64_t>(), count, offset,
                                                        baseline, heights.data_as<float>(), flag);
  ZF_CUDA_TRY(cudaGetLastError());

  array out = empty({count}, int64, where, stream);
  std::size_t sort_bytes = 0, select_bytes = 0;
  ZF_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, heights.data_as<const float>(),
                                             sorted.data_as<float>(), count, 0, 32, s));
  ZF_CUDA_TRY(cub::DeviceSelect::Flagged(nullptr, select_bytes, positions.data_as<const std::int64_t>(),
                                         flags.data_as<const unsigned char>(), out.data_as<std::int64_t>(),
                                         kept_count, count, s));
  array temp = empty({static_cast<std::int64_t>(std::max(sort_bytes, select_bytes))}, uint8, where, stream);
  ZF_CUDA_TRY(cub::DeviceRadixSort::SortKeys(temp.data(), sort_bytes, heights.data_as<const float>(),
                                             sorted.data_as<float>(), count, 0, 32, s));
  flag_strong_kernel<<<grid_for(count), 256, 0, s>>>(heights.data_as<const float>(), sorted.data_as<const float>(),
                                                     count, static_cast<float>(ratio), flags.data_as<unsigned char>());
  ZF_CUDA_TRY(cudaGetLastError());
  ZF_CUDA_TRY(cub::DeviceSelect::Flagged(temp.data(), select_bytes, positions.data_as<const std::int64_t>(),
                                         flags.data_as<const unsigned char>(), out.data_as<std::int64_t>(),
                                         kept_count, count, s));
  std::int64_t host_scalars[2] = {0, 0};  // the one scalar hand-off: the output size
  zeroflow::detail::note_device_to_host(sizeof host_scalars);
  ZF_CUDA_TRY(cudaMemcpyAsync(host_scalars, scalars.data(), sizeof host_scalars, cudaMemcpyDeviceToHost, s));
  ZF_CUDA_TRY(cudaStreamSynchronize(s));
  ZF_EXPECTS(static_cast<int>(host_scalars[0] & 0xffffffff) == 0,
             "drop_weak_peaks: a position plus ", offset, " is outside the ", filtered.size(), "-sample signal");
  return out.slice(0, 0, host_scalars[1]);
}

}  // namespace zeroflow::signal::detail
