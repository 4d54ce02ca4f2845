// CUDA half of qrs_detect.hpp: the energy and the candidates' features are per-element kernels;
// the decision runs qrs_decide in one GPU thread per stretch (the same code as the host, so the
// same beats), qrs_off_rhythm and qrs_recentred one thread per beat, the rhythm paths one thread
// per anchor (qrs_follow_rhythm), and the accepted candidates
// are compacted with CUB. The beat count is read back once, to size the result.
#include <cuda_runtime.h>

#include <cstdint>
#include <cub/device/device_select.cuh>

#include "detail_cuda/common.cuh"
#include "qrs_decide.hpp"
#include "qrs_measures.hpp"
#include "qrs_paths.hpp"
#include "qrs_rhythm.hpp"
#include "qrs_rules.hpp"
#include "qrs_select.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/qrs_detect.hpp"

namespace zeroflow::signal::detail {

namespace {

__global__ void qrs_energy_kernel(const float* __restrict__ x, const float* __restrict__ y, std::int64_t n,
                                  std::int64_t width, std::int64_t delay, double mean_tap, float* __restrict__ e) {
  const std::int64_t runs = qrs_energy_runs(n);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < runs; r += step)
    qrs_energy_run(x, y, n, width, delay, mean_tap, e, r);
}

__global__ void qrs_candidates_kernel(const float* __restrict__ x, std::int64_t n, const float* __restrict__ e,
                                      const std::int64_t* __restrict__ gate, std::int64_t count, std::int64_t offset,
                                      std::int64_t half_window, std::int64_t block, std::int64_t* __restrict__ position,
                                      float* __restrict__ amplitude, float* __restrict__ slope,
                                      float* __restrict__ background) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    const std::int64_t at = gate[i] + offset;
    position[i] = at;
    amplitude[i] = e[at];
    slope[i] = qrs_slope(x, n, at, half_window);
    background[i] = qrs_background(e, n, at, block);
  }
}

__global__ void qrs_decide_kernel(qrs_candidate_view c, std::int64_t stretches, qrs_rules rules,
                                  std::uint8_t* __restrict__ beat) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < stretches; k += step)
    qrs_decide_stretch(c, k, rules, beat);
}

__global__ void qrs_join_kernel(qrs_candidate_view c, std::int64_t stretches, qrs_time_rules time, std::uint8_t* beat) {
  for (std::int64_t k = 1; k < stretches; ++k) qrs_join_stretches(c, k, time, beat);
}

__global__ void iota_kernel(std::int64_t n, std::int64_t* __restrict__ out) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) out[i] = i;
}

/// flag[b] = 1 when beats b and b + 1 (of *beats) are both clear of noise.
__global__ void clear_interval_kernel(qrs_candidate_view c, const std::int64_t* __restrict__ beat_of,
                                      const std::int64_t* __restrict__ beats, qrs_rhythm_rules rhythm,
                                      std::uint8_t* __restrict__ flag) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t m = *beats;
  for (std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < c.n; b += step)
    flag[b] = b + 1 < m && qrs_is_clear_beat(c, beat_of[b], rhythm) && qrs_is_clear_beat(c, beat_of[b + 1], rhythm);
}

/// The accepted beats as device_beats compacts them, their counts still on the device.
struct device_accepted {
  const std::int64_t* beat_of;
  const std::int64_t* beats;
  const std::int64_t* clear;
  const std::int64_t* clear_count;

  /// The view the rules read, the counts read in the kernel.
  __device__ qrs_accepted_view view() const { return {beat_of, *beats, clear, *clear_count}; }
};

/// Unmarks the beats that qrs_off_rhythm finds extra and moves those that qrs_recentred finds
/// displaced; each thread reads only beat_of and clear, never the marks, and clears marks on beats
/// or sets them on candidates between beats, so the threads' order does not matter.
__global__ void keep_time_kernel(qrs_candidate_view c, device_accepted on_device, qrs_rules rules,
                                 std::uint8_t* __restrict__ beat) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const qrs_accepted_view accepted = on_device.view();
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < c.n && k < accepted.beats;
       k += step) {
    if (qrs_off_rhythm(c, accepted, k, rules)) {
      beat[accepted.beat_of[k]] = 0;
    } else if (const std::int64_t to = qrs_recentred(c, accepted, k, rules); to >= 0) {
      beat[accepted.beat_of[k]] = 0;
      beat[to] = 1;
    }
  }
}

/// flag[k] = 1 when accepted beat k anchors rhythm paths (qrs_is_anchor).
__global__ void anchor_kernel(qrs_candidate_view c, device_accepted on_device, qrs_rules rules,
                              std::uint8_t* __restrict__ flag) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const qrs_accepted_view accepted = on_device.view();
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < c.n; k += step)
    flag[k] = k < accepted.beats && qrs_is_anchor(c, accepted, k, rules);
}

/// One thread per anchor: the rhythm path to the next anchor (qrs_follow_rhythm). Each path reads
/// only beat_of, clear and anchors, never the marks, and writes marks and scratch strictly between
/// its anchors, so the threads' order does not matter.
__global__ void follow_rhythm_kernel(qrs_candidate_view c, device_accepted on_device,
                                     const std::int64_t* __restrict__ anchors,
                                     const std::int64_t* __restrict__ anchor_count, qrs_rules rules,
                                     qrs_path_scratch scratch, std::uint8_t* __restrict__ beat) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const qrs_accepted_view accepted = on_device.view();
  const std::int64_t m = *anchor_count;
  for (std::int64_t a = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; a < c.n && a + 1 < m;
       a += step)
    qrs_follow_rhythm(c, accepted, anchors, a, rules, scratch, beat);
}

/// out[0..*count) = the indices i < n with flag[i] set, ascending; count on the device.
void flagged_indices(const array& iota, const std::uint8_t* flag, array& out, array& count, array& temp,
                     std::size_t bytes, stream_view stream) {
  ZF_CUDA_TRY(cub::DeviceSelect::Flagged(temp.data(), bytes, iota.data_as<const std::int64_t>(), flag,
                                         out.data_as<std::int64_t>(), count.data_as<std::int64_t>(), iota.size(),
                                         gpu::raw(stream)));
}

/// The accepted beats' candidate indices and their clear intervals, compacted with CUB; the
/// counts stay on the device (the GPU half of accepted_beats in qrs_detect.cpp).
struct device_beats {
  array iota, beat_of, clear, counts, flag, temp;
  std::size_t bytes = 0;

  device_beats(const qrs_candidate_view& c, const qrs_rhythm_rules& rhythm, const array& beat, stream_view stream) {
    const auto where = beat.where();
    const std::int64_t n = c.n;
    iota = empty({n}, int64, where, stream);
    iota_kernel<<<gpu::grid_for(n, 256, where.id), 256, 0, gpu::raw(stream)>>>(n, iota.data_as<std::int64_t>());
    ZF_SIGNAL_LAUNCH_CHECK();
    beat_of = empty({n}, int64, where, stream);
    clear = empty({n}, int64, where, stream);
    counts = empty({3}, int64, where, stream);
    flag = empty({n}, uint8, where, stream);
    ZF_CUDA_TRY(cub::DeviceSelect::Flagged(nullptr, bytes, iota.data_as<const std::int64_t>(),
                                           beat.data_as<const std::uint8_t>(), beat_of.data_as<std::int64_t>(),
                                           counts.data_as<std::int64_t>(), n, gpu::raw(stream)));
    temp = gpu::scratch(bytes, where, stream);
    array beats_count = beats();
    flagged_indices(iota, beat.data_as<const std::uint8_t>(), beat_of, beats_count, temp, bytes, stream);
    clear_interval_kernel<<<gpu::grid_for(n, 256, where.id), 256, 0, gpu::raw(stream)>>>(
        c, beat_of.data_as<const std::int64_t>(), beats_count.data_as<const std::int64_t>(), rhythm,
        flag.data_as<std::uint8_t>());
    ZF_SIGNAL_LAUNCH_CHECK();
    array clear_total = clear_count();
    flagged_indices(iota, flag.data_as<const std::uint8_t>(), clear, clear_total, temp, bytes, stream);
  }
  [[nodiscard]] array beats() const { return counts.slice(0, 0, 1); }
  [[nodiscard]] array clear_count() const { return counts.slice(0, 1, 2); }
  /// A third count for a further selection over the beats (the anchors).
  [[nodiscard]] array spare_count() const { return counts.slice(0, 2, 3); }
  /// What the kernels read of them.
  [[nodiscard]] device_accepted on_device() const {
    return {beat_of.data_as<const std::int64_t>(), beats().data_as<const std::int64_t>(),
            clear.data_as<const std::int64_t>(), clear_count().data_as<const std::int64_t>()};
  }
};

/// The candidates of `d`, on its device.
qrs_candidate_view candidates_of(const qrs_detection& d) {
  return {d.candidates.data_as<const std::int64_t>(), d.amplitude.data_as<const float>(),
          d.slope.data_as<const float>(), d.background.data_as<const float>(), d.candidates.size()};
}

/// The GPU half of keep_time (qrs_detect.cpp): one thread per beat.
void keep_time(const qrs_candidate_view& c, const qrs_rules& rules, array& beat, stream_view stream) {
  const auto where = beat.where();
  const device_beats accepted(c, rules.rhythm, beat, stream);
  keep_time_kernel<<<gpu::grid_for(c.n, 256, where.id), 256, 0, gpu::raw(stream)>>>(c, accepted.on_device(), rules,
                                                                                    beat.data_as<std::uint8_t>());
  ZF_SIGNAL_LAUNCH_CHECK();
}

/// The GPU half of follow_rhythm (qrs_detect.cpp): the anchors compacted with CUB, then one thread
/// per anchor.
void follow_rhythm(const qrs_candidate_view& c, const qrs_rules& rules, array& beat, stream_view stream) {
  const auto where = beat.where();
  const std::int64_t n = c.n;
  device_beats accepted(c, rules.rhythm, beat, stream);
  anchor_kernel<<<gpu::grid_for(n, 256, where.id), 256, 0, gpu::raw(stream)>>>(c, accepted.on_device(), rules,
                                                                               accepted.flag.data_as<std::uint8_t>());
  ZF_SIGNAL_LAUNCH_CHECK();
  array anchors = empty({n}, int64, where, stream);
  array anchor_count = accepted.spare_count();
  flagged_indices(accepted.iota, accepted.flag.data_as<const std::uint8_t>(), anchors, anchor_count, accepted.temp,
                  accepted.bytes, stream);
  array cost = empty({n}, float32, where, stream);
  array back = empty({n}, int64, where, stream);
  follow_rhythm_kernel<<<gpu::grid_for(n, 128, where.id), 128, 0, gpu::raw(stream)>>>(
      c, accepted.on_device(), anchors.data_as<const std::int64_t>(), anchor_count.data_as<const std::int64_t>(), rules,
      {cost.data_as<float>(), back.data_as<std::int64_t>()}, beat.data_as<std::uint8_t>());
  ZF_SIGNAL_LAUNCH_CHECK();
}

}  // namespace

array qrs_energy_cuda(const array& signal, const array& filtered, std::int64_t width, std::int64_t delay,
                      double mean_tap, stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(filtered.where().id);
  const std::int64_t n = filtered.size();
  array out = empty({n}, float32, filtered.where(), stream);
  qrs_energy_kernel<<<gpu::grid_for(qrs_energy_runs(n), 128, filtered.where().id), 128, 0, gpu::raw(stream)>>>(
      signal.data_as<const float>(), filtered.data_as<const float>(), n, width, delay, mean_tap, out.data_as<float>());
  ZF_SIGNAL_LAUNCH_CHECK();
  return out;
}

void qrs_candidates_cuda(const array& signal, const array& energy, const array& gate_positions, std::int64_t offset,
                         std::int64_t slope_half_window, std::int64_t background_block, qrs_detection& out,
                         stream_view stream) {
  ::zeroflow::detail::cuda_device_guard guard(signal.where().id);
  const auto where = signal.where();
  const std::int64_t count = gate_positions.size();
  out.candidates = empty({count}, int64, where, stream);
  out.amplitude = empty({count}, float32, where, stream);
  out.slope = empty({count}, float32, where, stream);
  out.background = empty({count}, float32, where, stream);
  if (count == 0) return;
  qrs_candidates_kernel<<<gpu::grid_for(count, 256, where.id), 256, 0, gpu::raw(stream)>>>(
      signal.data_as<const float>(), signal.size(), energy.data_as<const float>(),
      gate_positions.data_as<const std::int64_t>(), count, offset, slope_half_window, background_block,
      out.candidates.data_as<std::int64_t>(), out.amplitude.data_as<float>(), out.slope.data_as<float>(),
      out.background.data_as<float>());
  ZF_SIGNAL_LAUNCH_CHECK();
}

array qrs_select_cuda(const qrs_detection& d, std::int64_t samples, const qrs_rules& rules, stream_view stream) {
  const auto where = d.candidates.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const std::int64_t n = d.candidates.size();
  if (n == 0) return empty({0}, int64, where, stream);
  array beat = empty({n}, uint8, where, stream);
  // The number of stretches follows from the last candidate's position, which is on the device:
  // one thread per possible stretch of the recording (threads past the last find no candidates).
  const std::int64_t stretches = samples / rules.time.stretch_samples + 1;
  const qrs_candidate_view c = candidates_of(d);
  qrs_decide_kernel<<<gpu::tiles_for(stretches, 64), 64, 0, gpu::raw(stream)>>>(c, stretches, rules,
                                                                                beat.data_as<std::uint8_t>());
  ZF_SIGNAL_LAUNCH_CHECK();
  qrs_join_kernel<<<1, 1, 0, gpu::raw(stream)>>>(c, stretches, rules.time, beat.data_as<std::uint8_t>());
  ZF_SIGNAL_LAUNCH_CHECK();
  keep_time(c, rules, beat, stream);
  follow_rhythm(c, rules, beat, stream);
  array selected = empty({n}, int64, where, stream);
  array count = empty({1}, int64, where, stream);
  std::size_t bytes = 0;
  ZF_CUDA_TRY(cub::DeviceSelect::Flagged(nullptr, bytes, d.candidates.data_as<const std::int64_t>(),
                                         beat.data_as<const std::uint8_t>(), selected.data_as<std::int64_t>(),
                                         count.data_as<std::int64_t>(), n, gpu::raw(stream)));
  array temp = gpu::scratch(bytes, where, stream);
  ZF_CUDA_TRY(cub::DeviceSelect::Flagged(temp.data(), bytes, d.candidates.data_as<const std::int64_t>(),
                                         beat.data_as<const std::uint8_t>(), selected.data_as<std::int64_t>(),
                                         count.data_as<std::int64_t>(), n, gpu::raw(stream)));
  const auto beats = gpu::read_back(count.data_as<const std::int64_t>(), stream);
  return selected.slice(0, 0, beats);
}

}  // namespace zeroflow::signal::detail
