/// @file finite_rows.cu
/// The GPU census of non-finite row values (finite_rows.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "finite_rows.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::model::detail {

namespace {

struct census {
  unsigned long long count;
  unsigned long long first;
};

__global__ void count_kernel(const float* __restrict__ data, std::int64_t rows, std::int64_t width,
                             std::int64_t row_stride, std::int64_t col_stride, census* out) {
  const std::int64_t total = rows * width;
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t r = k / width, c = k - r * width;
    if (!isfinite(data[r * row_stride + c * col_stride])) {
      atomicAdd(&out->count, 1ULL);
      atomicMin(&out->first, static_cast<unsigned long long>(k));
    }
  }
}

}  // namespace

non_finite_count count_non_finite_on_gpu(const float* data, std::int64_t rows, std::int64_t width,
                                         std::int64_t row_stride, std::int64_t col_stride, stream_view stream) {
  non_finite_count result;
  if (rows <= 0 || width <= 0) return result;
  int gpu = 0;
  ZF_CUDA_TRY(cudaGetDevice(&gpu));
  const auto s = stream.value();
  const array buffer = empty({static_cast<std::int64_t>(sizeof(census))}, uint8, cuda_device(gpu), stream);
  auto* device_census = static_cast<census*>(buffer.data());
  const census start{0, ~0ULL};
  census host{};
  ZF_CUDA_TRY(cudaMemcpyAsync(device_census, &start, sizeof start, cudaMemcpyHostToDevice, s));
  const std::int64_t blocks = std::min<std::int64_t>((rows * width + 255) / 256, 4096);
  count_kernel<<<static_cast<unsigned>(blocks), 256, 0, s>>>(data, rows, width, row_stride, col_stride, device_census);
  ZF_CUDA_TRY(cudaGetLastError());
  ZF_CUDA_TRY(cudaMemcpyAsync(&host, device_census, sizeof host, cudaMemcpyDeviceToHost, s));
  ZF_CUDA_TRY(cudaStreamSynchronize(s));
  result.count = static_cast<std::int64_t>(host.count);
  if (host.count > 0) result.first = static_cast<std::int64_t>(host.first);
  return result;
}

}  // namespace zeroflow::model::detail
