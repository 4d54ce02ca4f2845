// CUDA halves of beats.hpp: gate positions (CUB select), beat lengths, their histogram
// (shared-memory atomics) and the R-peak search.
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>

#include "detail_cuda/common.cuh"
#include "detail_cuda/live_items.cuh"
#include "detail_cuda/live_stages.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/detail/beats.hpp"

namespace zeroflow::signal::detail {

namespace {

struct is_one {
  __host__ __device__ bool operator()(unsigned char g) const { return g == 1; }
};
struct one_if_set {
  __host__ __device__ long long operator()(unsigned char g) const { return g == 1 ? 1 : 0; }
};
struct plus_int64 {
  __host__ __device__ long long operator()(long long a, long long b) const { return a + b; }
};

__global__ void diff_kernel(const std::int64_t* __restrict__ p, std::int64_t* __restrict__ d, std::int64_t count,
                            const std::int64_t* live) {
  count = gpu::live_items(count, live, 1);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    d[i] = p[i + 1] - p[i];
}

constexpr std::int64_t max_shared_bins = 8192;

// Counts per block in shared memory, then one global atomic per non-empty bin of the block.
__global__ void histogram_shared_kernel(const std::int64_t* __restrict__ lengths, std::int64_t count, int bins,
                                        unsigned long long* __restrict__ counts, const std::int64_t* live) {
  extern __shared__ unsigned s_counts[];
  count = gpu::live_items(count, live, 1);
  for (int b = threadIdx.x; b < bins; b += blockDim.x) s_counts[b] = 0;
  __syncthreads();
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const std::int64_t v = lengths[i];
    if (v >= 0) atomicAdd(&s_counts[v < bins - 1 ? v : bins - 1], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    if (s_counts[b] != 0) atomicAdd(&counts[b], static_cast<unsigned long long>(s_counts[b]));
}

// More bins than shared memory holds: global atomics (each length touches one counter).
__global__ void histogram_global_kernel(const std::int64_t* __restrict__ lengths, std::int64_t count, std::int64_t bins,
                                        unsigned long long* __restrict__ counts, const std::int64_t* live) {
  count = gpu::live_items(count, live, 1);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const std::int64_t v = lengths[i];
    if (v >= 0) atomicAdd(&counts[v < bins - 1 ? v : bins - 1], 1ull);
  }
}

// The host's loop for one position per thread: the largest |x[i] − center| (float) over
// [guess − reach, guess + reach] ∩ [0, n), first index on ties, NaN never wins.
__global__ void locate_peaks_kernel(const float* __restrict__ x, std::int64_t n,
                                    const std::int64_t* __restrict__ positions, std::int64_t count, std::int64_t shift,
                                    std::int64_t reach, const float* __restrict__ center_at,
                                    std::int64_t* __restrict__ peaks, const std::int64_t* live) {
  count = gpu::live_items(count, live, 0);
  const float center = *center_at;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < count; c += step) {
    const std::int64_t guess = positions[c] + shift;
    std::int64_t best = guess < 0 ? 0 : (guess > n - 1 ? n - 1 : guess);
    float best_value = -1.0f;
    const std::int64_t lo = guess - reach > 0 ? guess - reach : 0;
    const std::int64_t hi = guess + reach < n - 1 ? guess + reach : n - 1;
    for (std::int64_t i = lo; i <= hi; ++i) {
      const float v = fabsf(__fsub_rn(x[i], center));
      if (v > best_value) {
        best_value = v;
        best = i;
      }
    }
    peaks[c] = best;
  }
}

}  // namespace

array gate_positions_cuda(const array& gate, stream_view stream) {
  const device where = gate.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t n = gate.size();
  if (n == 0) return empty({0}, int64, where, stream);
  const auto* g = static_cast<const unsigned char*>(gate.data());

  // The output's size is the number of ones: counted first and read back (the one host
  // synchronisation of this stage), then CUB's select writes exactly that many indices.
  array counter = empty({2}, int64, where, stream);
  auto* total = static_cast<long long*>(counter.data());
  std::size_t reduce_bytes = 0;
  ZF_CUDA_TRY(cub::DeviceReduce::TransformReduce(nullptr, reduce_bytes, g, total, n, plus_int64{}, one_if_set{}, 0LL,
                                                 gpu::raw(stream)));
  array reduce_temp = gpu::scratch(reduce_bytes, where, stream);
  ZF_CUDA_TRY(cub::DeviceReduce::TransformReduce(reduce_temp.data(), reduce_bytes, g, total, n, plus_int64{},
                                                 one_if_set{}, 0LL, gpu::raw(stream)));
  const long long count = gpu::read_back(total, stream);

  array out = empty({count}, int64, where, stream);
  if (count == 0) return out;
  thrust::counting_iterator<std::int64_t> indices(0);
  std::size_t select_bytes = 0;
  ZF_CUDA_TRY(cub::DeviceSelect::FlaggedIf(nullptr, select_bytes, indices, g, static_cast<std::int64_t*>(out.data()),
                                           total + 1, n, is_one{}, gpu::raw(stream)));
  array select_temp = gpu::scratch(select_bytes, where, stream);
  ZF_CUDA_TRY(cub::DeviceSelect::FlaggedIf(select_temp.data(), select_bytes, indices, g,
                                           static_cast<std::int64_t*>(out.data()), total + 1, n, is_one{},
                                           gpu::raw(stream)));
  return out;
}

namespace {

array lengths_of(const array& positions, const std::int64_t* live, stream_view stream) {
  const device where = positions.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t count = positions.size() > 1 ? positions.size() - 1 : 0;
  array out = empty({count}, int64, where, stream);
  if (count == 0) return out;
  constexpr int threads = 256;
  diff_kernel<<<gpu::grid_for(count, threads, where.id), threads, 0, gpu::raw(stream)>>>(
      static_cast<const std::int64_t*>(positions.data()), static_cast<std::int64_t*>(out.data()), count, live);
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

array histogram_of(const array& lengths, std::int64_t bins, const std::int64_t* live, stream_view stream) {
  const device where = lengths.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  array out = empty({bins}, int64, where, stream);
  ZF_CUDA_TRY(cudaMemsetAsync(out.data(), 0, out.nbytes(), gpu::raw(stream)));
  const std::int64_t count = lengths.size();
  if (count == 0) return out;
  const auto* l = static_cast<const std::int64_t*>(lengths.data());
  // Counts are non-negative, so the int64 output can be added to as unsigned long long.
  auto* counts = static_cast<unsigned long long*>(out.data());
  constexpr int threads = 256;
  const int blocks = gpu::grid_for(count, threads, where.id, 2);
  if (bins <= max_shared_bins) {
    histogram_shared_kernel<<<blocks, threads, sizeof(unsigned) * static_cast<std::size_t>(bins), gpu::raw(stream)>>>(
        l, count, static_cast<int>(bins), counts, live);
  } else {
    histogram_global_kernel<<<blocks, threads, 0, gpu::raw(stream)>>>(l, count, bins, counts, live);
  }
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

array peaks_of(const array& signal, const array& positions, std::int64_t nms_window, std::int64_t ricker_width,
               const float* center, const std::int64_t* live, stream_view stream) {
  const device where = signal.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t count = positions.size();
  array out = empty({count}, int64, where, stream);
  if (count == 0) return out;
  const std::int64_t shift = (nms_window + 1) / 2 - (ricker_width - 1) / 2, reach = ricker_width / 2;
  constexpr int threads = 256;
  locate_peaks_kernel<<<gpu::grid_for(count, threads, where.id), threads, 0, gpu::raw(stream)>>>(
      static_cast<const float*>(signal.data()), signal.size(), static_cast<const std::int64_t*>(positions.data()),
      count, shift, reach, center, static_cast<std::int64_t*>(out.data()), live);
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

}  // namespace

array beat_lengths_cuda(const array& positions, stream_view stream) { return lengths_of(positions, nullptr, stream); }

array beat_lengths_live(const array& positions, const std::int64_t* kept, stream_view stream) {
  return lengths_of(positions, kept, stream);
}

array length_histogram_cuda(const array& lengths, std::int64_t bins, stream_view stream) {
  return histogram_of(lengths, bins, nullptr, stream);
}

array length_histogram_live(const array& lengths, const std::int64_t* kept, std::int64_t bins, stream_view stream) {
  return histogram_of(lengths, bins, kept, stream);
}

array locate_peaks_cuda(const array& signal, const array& positions, std::int64_t nms_window, std::int64_t ricker_width,
                        float center, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(signal.where().id);
  if (positions.size() == 0) return empty({0}, int64, signal.where(), stream);
  array center_on_device = empty({1}, float32, signal.where(), stream);
  gpu::upload(center_on_device.data(), &center, sizeof center, stream);
  return peaks_of(signal, positions, nms_window, ricker_width, static_cast<const float*>(center_on_device.data()),
                  nullptr, stream);
}

array locate_peaks_live(const array& signal, const array& positions, const std::int64_t* kept, std::int64_t nms_window,
                        std::int64_t ricker_width, const float* center, stream_view stream) {
  return peaks_of(signal, positions, nms_window, ricker_width, center, kept, stream);
}

}  // namespace zeroflow::signal::detail
