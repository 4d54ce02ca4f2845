// CUDA half of eval/quantile.hpp: the values widened to double (NaN counted) in one grid-stride
// pass, a radix sort on the device, then one read-back of the few order statistics a quantile
// needs. The values never leave the GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <vector>

#include "order_statistics.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/transfers.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::eval::detail {
namespace {

using u64 = unsigned long long;
constexpr int threads = 256;

/// keys[i] = x[i * stride] as a double; *nans counts the NaN among them.
template <class T>
__global__ void widen_kernel(const T* __restrict__ x, std::int64_t n, std::int64_t stride, double* __restrict__ keys,
                             u64* __restrict__ nans) {
  u64 mine = 0;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const double v = static_cast<double>(x[i * stride]);
    keys[i] = v;
    mine += isnan(v) ? 1 : 0;
  }
  if (mine > 0) atomicAdd(nans, mine);
}

}  // namespace

order_statistics order_statistics_cuda(const array& values, std::span<const std::int64_t> ranks, stream_view stream) {
  const int id = values.where().id;
  const zeroflow::detail::cuda_device_guard on_device(id);
  const cudaStream_t raw = stream.value();
  const std::int64_t n = values.size();
  const array keys = empty({n}, float64, values.where(), stream);
  const array sorted = empty({n}, float64, values.where(), stream);
  const array nans = empty({1}, uint64, values.where(), stream);
  auto* nan_count = static_cast<u64*>(nans.data());
  ZF_CUDA_TRY(cudaMemsetAsync(nan_count, 0, sizeof(u64), raw));

  int sms = 0;
  ZF_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, id));
  const auto blocks = static_cast<int>(std::clamp<std::int64_t>((n + threads - 1) / threads, 1, std::int64_t{sms} * 8));
  auto* key_data = static_cast<double*>(keys.data());
  if (values.type() == float32)
    widen_kernel<<<blocks, threads, 0, raw>>>(static_cast<const float*>(values.data()), n, values.strides()[0],
                                              key_data, nan_count);
  else
    widen_kernel<<<blocks, threads, 0, raw>>>(static_cast<const double*>(values.data()), n, values.strides()[0],
                                              key_data, nan_count);
  ZF_CUDA_TRY(cudaGetLastError());

  auto* sorted_data = static_cast<double*>(sorted.data());
  std::size_t scratch_bytes = 0;
  ZF_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, scratch_bytes, key_data, sorted_data, n, 0, 64, raw));
  const array scratch =
      empty({static_cast<std::int64_t>(std::max<std::size_t>(scratch_bytes, 1))}, uint8, values.where(), stream);
  ZF_CUDA_TRY(cub::DeviceRadixSort::SortKeys(scratch.data(), scratch_bytes, key_data, sorted_data, n, 0, 64, raw));

  // The NaN count and the asked order statistics, in one synchronisation.
  u64 nan_total = 0;
  std::vector<double> picked(ranks.size());
  zeroflow::detail::note_device_to_host(sizeof nan_total + picked.size() * sizeof(double));
  ZF_CUDA_TRY(cudaMemcpyAsync(&nan_total, nan_count, sizeof nan_total, cudaMemcpyDeviceToHost, raw));
  for (std::size_t j = 0; j < ranks.size(); ++j)
    ZF_CUDA_TRY(cudaMemcpyAsync(&picked[j], sorted_data + ranks[j], sizeof(double), cudaMemcpyDeviceToHost, raw));
  ZF_CUDA_TRY(cudaStreamSynchronize(raw));
  if (nan_total > 0) return {true, {}};
  return {false, std::move(picked)};
}

}  // namespace zeroflow::eval::detail
