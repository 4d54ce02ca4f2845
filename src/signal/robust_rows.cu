// CUDA halves of beat_windows.hpp, rhythm.hpp and beat_score.hpp: one thread per output element
// (or per beat), with the per-beat arithmetic shared with the host (rhythm_window.hpp,
// beat_score_detail.hpp), so both sides agree.
#include <cuda_runtime.h>

#include <cstdint>

#include "beat_score_detail.hpp"
#include "detail_cuda/common.cuh"
#include "rhythm_window.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/beat_windows.hpp"
#include "zeroflow/signal/rhythm.hpp"

namespace zeroflow::signal::detail {

namespace {

__global__ void embed_windows_kernel(const float* __restrict__ x, std::int64_t n,
                                     const std::int64_t* __restrict__ peaks, std::int64_t rows, std::int64_t before,
                                     std::int64_t after, std::int64_t width, normalization norm,
                                     float* __restrict__ out) {
  const std::int64_t total = rows * width;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const std::int64_t b = i / width, j = i - b * width;
    // Peaks may hold any value: modular arithmetic, as a wrapped sample lands far outside [0, n).
    const auto at = static_cast<std::int64_t>(static_cast<std::uint64_t>(peaks[b]) -
                                              static_cast<std::uint64_t>(before) + static_cast<std::uint64_t>(j));
    float v = 0.0f;
    if (j < before + after && at >= 0 && at < n) {
      v = __fdiv_rn(__fsub_rn(x[at], norm.center), norm.scale);
      if (!isfinite(v)) v = 0.0f;
    }
    out[i] = v;
  }
}

__global__ void rhythm_kernel(const std::int64_t* __restrict__ peaks, std::int64_t n, float seconds_per_sample,
                              float* __restrict__ before, float* __restrict__ after, float* __restrict__ local,
                              float* __restrict__ irregular) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < n; b += step) {
    const beat_rhythm r = rhythm_of(peaks, n, b, rhythm_neighbourhood, seconds_per_sample);
    before[b] = r.rr_before;
    after[b] = r.rr_after;
    local[b] = r.local_rr;
    irregular[b] = r.irregularity;
  }
}

__global__ void combine_kernel(const float* __restrict__ error, const float* __restrict__ irregularity, std::int64_t n,
                               normalization m, normalization r, float* __restrict__ score, float* __restrict__ zm,
                               float* __restrict__ zr) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const one_score s = combine_one(error[i], irregularity[i], m, r);
    score[i] = s.score;
    zm[i] = s.morphology;
    zr[i] = s.rhythm;
  }
}

}  // namespace

array embed_windows_cuda(const array& signal, const array& peaks, std::int64_t before, std::int64_t after,
                         std::int64_t row_width, normalization norm, stream_view stream) {
  const auto where = signal.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t rows = peaks.size();
  array out = empty({rows, row_width}, float32, where, stream);
  if (rows == 0) return out;
  embed_windows_kernel<<<gpu::grid_for(rows * row_width, 256, where.id), 256, 0, gpu::raw(stream)>>>(
      signal.data_as<const float>(), signal.size(), peaks.data_as<const std::int64_t>(), rows, before, after, row_width,
      norm, out.data_as<float>());
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

rhythm rhythm_features_cuda(const array& peaks, double sample_rate, stream_view stream) {
  const auto where = peaks.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t n = peaks.size();
  rhythm r{empty({n}, float32, where, stream), empty({n}, float32, where, stream), empty({n}, float32, where, stream),
           empty({n}, float32, where, stream)};
  if (n == 0) return r;
  rhythm_kernel<<<gpu::grid_for(n, 256, where.id), 256, 0, gpu::raw(stream)>>>(
      peaks.data_as<const std::int64_t>(), n, static_cast<float>(1.0 / sample_rate), r.rr_before.data_as<float>(),
      r.rr_after.data_as<float>(), r.local_rr.data_as<float>(), r.irregularity.data_as<float>());
  ZF_SIGNAL_LAUNCH_CHECK();
  return r;
}

beat_scores combine_scores_cuda(const array& morphology, const array& irregularity, normalization m, normalization r,
                                stream_view stream) {
  const auto where = morphology.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t n = morphology.size();
  beat_scores out{empty({n}, float32, where, stream), empty({n}, float32, where, stream),
                  empty({n}, float32, where, stream)};
  combine_kernel<<<gpu::grid_for(n, 256, where.id), 256, 0, gpu::raw(stream)>>>(
      morphology.data_as<const float>(), irregularity.data_as<const float>(), n, m, r, out.score.data_as<float>(),
      out.morphology.data_as<float>(), out.rhythm.data_as<float>());
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

}  // namespace zeroflow::signal::detail
