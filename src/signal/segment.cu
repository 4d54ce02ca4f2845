// segment_beats on a GPU (detail_cuda/segment.hpp): the host's sequence of stages, queued so that
// the host waits once, at the end, not once per stage.
//
//   side stream:  subsample ─ median/MAD selection ──────────────┐ (event)
//   stream:       fused band-pass + gate ─ positions ─ peak heights, sorted ─ (join) derive ─
//                 weak-peak filter ─ lengths ─ histogram ─ R-peaks ─ embedding ─ [scalars read back]
//
// Nothing waits for the host until the end: the positions go to a buffer of a capacity the host
// knows in advance (what a gate without ties can hold), every later buffer is sized from it (the
// rows also by the recording's length over the shortest beat), and the counts stay on the device
// in one tail_scalars block (detail_cuda/live_stages.hpp). So the host queues every stage while
// the band-pass runs and the GPU runs the small stages back to back. The block comes back in one
// copy at the end, the outputs are cut to size (views, no copies), and a gate that overflowed the
// capacity (exact ties: plateaus, repeating samples) is done again from its exact positions.
// The normalisation is derived on the device from the selection's median and MAD exactly as the
// host rounds it; the one case the device cannot finish — a zero or non-finite 1.4826·MAD, whose
// standard-deviation fallback wants the host's summation order — is redone on the host after the
// read-back and the rows are filled again with its scale.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>

#include "detail_cuda/bandpass_gate.hpp"
#include "detail_cuda/common.cuh"
#include "detail_cuda/live_stages.hpp"
#include "detail_cuda/robust_moments.hpp"
#include "detail_cuda/segment.hpp"
#include "detail_cuda/side_stream.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/memory/arena_resource.hpp"
#include "zeroflow/signal/beats.hpp"

namespace zeroflow::signal::detail {

namespace {

// The host's normalisation arithmetic (segment.cpp, normalization_of) on the device.
__global__ void derive_kernel(tail_scalars* s, double kernel_sum, bool normalize_rows) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  const robust_moments m = s->moments;
  const float center = m.finite == 0 ? 0.0f : __double2float_rn(m.median);
  const float scale = m.finite == 0 ? 1.0f : __double2float_rn(__dmul_rn(1.4826, m.mad));
  const bool usable = isfinite(scale) && scale > 0.0f;
  s->center = center;
  s->baseline = __double2float_rn(__dmul_rn(static_cast<double>(center), kernel_sum));
  s->row_center = normalize_rows ? center : 0.0f;
  s->row_scale = normalize_rows && usable ? scale : 1.0f;  // a degenerate scale is replaced after the read-back
  s->rows = 0;  // the embedding's counters, which embed_beats_live leaves to its caller
  s->bad = ~0ULL;
}

std::int64_t at_least_zero(std::int64_t v) { return std::max<std::int64_t>(v, 0); }

// Gate positions a recording can have when no two samples within a window are equal: two
// positions closer than ⌊window/2⌋ would put each window's maximum inside the other window, so
// the two maxima would be equal. (A filtered ECG has ~1/3 of this; ties can exceed it.)
std::int64_t position_capacity(std::int64_t gate_size, std::int64_t window) {
  return std::min(gate_size, gate_size / std::max<std::int64_t>(window / 2, 1) + 2);
}

// Positions counted on the host (their size): the count goes where the live stages read it.
array counted(array positions, tail_scalars* s, stream_view stream) {
  const std::int64_t count = positions.size();
  gpu::upload(&s->positions, &count, sizeof count, stream);
  const auto total = static_cast<unsigned long long>(count);
  gpu::upload(&s->positions_total, &total, sizeof total, stream);
  return positions;
}

// The segmentation's buffers on `stream` come from one arena chunk (one pool call instead of ~25
// allocations and releases, whose host time would rival the GPU work itself). Sized for the
// buffers that scale with the position capacity, the fused kernel's per-thread counts and the
// histogram; the big ones (signal-sized filtered signal and gate, the rows) and anything the
// estimate misses go to the pool as before.
std::shared_ptr<memory::arena_resource> segmentation_arena(device where, std::int64_t n, const segment_sizes& sizes,
                                                           stream_view stream) {
  const std::int64_t gate = std::max<std::int64_t>(n - sizes.nms_window + 1, 0);
  const auto per_position = static_cast<std::size_t>(position_capacity(gate, sizes.nms_window));
  const auto thread_counts = static_cast<std::size_t>(gate / 6);  // 2 bytes per 13 gate outputs
  const auto bins = static_cast<std::size_t>(2 * sizes.max_length + 1);
  const std::size_t chunk = 64 * per_position + thread_counts + 8 * bins + (std::size_t{1} << 20);
  const std::size_t largest = std::max({8 * per_position, thread_counts, 8 * bins}) + 4096;
  return std::make_shared<memory::arena_resource>(memory::current_resource(where), chunk, largest, stream);
}

// Rows a recording can give: kept beats are disjoint spans of at least min_length samples.
std::int64_t row_capacity(std::int64_t candidates, std::int64_t n, std::int64_t min_length) {
  return min_length > 0 ? std::min(candidates, n / min_length + 1) : candidates;
}

// What the stages after the positions leave (buffers sized by the positions' capacity).
struct after_positions {
  array kept;     ///< the positions the weak-peak filter kept, first
  array lengths;  ///< their beat lengths
  array peaks;    ///< their R-peaks
  embedding beats;
};

}  // namespace

segmentation segment_beats_cuda(const array& x, const segment_params& params, segment_sizes sizes, double kernel_sum,
                                std::int64_t stride, stream_view stream) {
  const device where = x.where();
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  const memory::scoped_resource arena(segmentation_arena(where, x.size(), sizes, stream));
  segmentation s;
  s.sizes = sizes;
  array scalars = zeros({static_cast<std::int64_t>(sizeof(tail_scalars))}, uint8, where, stream);
  auto* sc = static_cast<tail_scalars*>(scalars.data());

  // The median/MAD selection is a chain of small latency-bound kernels and the band-pass is
  // bound by arithmetic and bandwidth: the selection (and the gather of its strided subsample,
  // 4 MB at most) runs on a high-priority side stream beside it. The band-pass is queued first,
  // so that the GPU starts on it while the host is still queueing the selection's launches.
  const stream_view side = side_stream_after(where, stream);
  filtered_gate fused = bandpass_gate_cuda(x, sizes.ricker_width, sizes.nms_window, stream);
  s.filtered = fused.filtered;
  s.gate = fused.gate;
  const array sample = stride == 1 ? x : copy_to(x.slice(0, 0, x.size(), stride), where, side);
  robust_moments_cuda(sample, &sc->moments, side);

  // The positions go to a buffer sized for a gate without ties, and every later buffer is sized
  // from it, so that the host queues the whole segmentation while the band-pass still runs; a
  // gate with more positions (a recording rich in exact ties) is done again with exact sizes.
  const std::int64_t capacity = position_capacity(s.gate.size(), sizes.nms_window);
  const array first_positions = fused.block_ones.valid() ? fused_gate_positions_live(fused, capacity, &sc->positions,
                                                                                     &sc->positions_total, stream)
                                                         : counted(gate_positions(s.gate, stream), sc, stream);
  const std::int64_t offset = (sizes.nms_window + 1) / 2;
  const auto queue_after = [&](const array& positions) {
    // The weak-peak filter's sort needs no statistics: it runs while the side stream may still work.
    const bool filter = params.min_peak_ratio > 0 && positions.size() > 0;
    const peak_heights heights =
        filter ? sorted_peak_heights(s.filtered, positions, &sc->positions, offset, &sc->out_of_range, stream)
               : peak_heights{};
    wait_for_stream(stream, side);
    derive_kernel<<<1, 32, 0, gpu::raw(stream)>>>(sc, kernel_sum, params.normalize_rows);
    ZF_SIGNAL_LAUNCH_CHECK();
    after_positions t;
    t.kept = drop_weak_peaks_live(positions, heights, params.min_peak_ratio, sc, stream);
    t.lengths = beat_lengths_live(t.kept, &sc->kept, stream);
    s.histogram = length_histogram_live(t.lengths, &sc->kept, 2 * sizes.max_length + 1, stream);
    t.peaks = locate_peaks_live(x, t.kept, &sc->kept, sizes.nms_window, sizes.ricker_width, &sc->center, stream);
    t.beats = embed_beats_live(x, t.kept, t.lengths, &sc->kept, sizes.min_length, sizes.max_length, sizes.row_width,
                               row_capacity(t.lengths.size(), x.size(), sizes.min_length), sc, stream);
    return t;
  };
  after_positions t = queue_after(first_positions);

  // The one host synchronisation: every count and the normalisation, in one copy.
  tail_scalars host = gpu::read_back(sc, stream);
  if (host.positions_total > static_cast<unsigned long long>(first_positions.size())) {
    t = queue_after(counted(fused_gate_positions(fused, stream), sc, stream));  // exactly, once more
    host = gpu::read_back(sc, stream);
  }
  fused = {};
  ZF_EXPECTS(host.out_of_range == 0, "drop_weak_peaks: a position plus ", offset, " is outside the ", s.filtered.size(),
             "-sample signal");
  if (host.bad != ~0ULL) {
    const auto c = static_cast<std::int64_t>(host.bad);
    const std::int64_t start = gpu::read_back(t.kept.data_as<const std::int64_t>() + c, stream);
    const std::int64_t len = gpu::read_back(t.lengths.data_as<const std::int64_t>() + c, stream);
    ZF_THROW(invalid_argument, "embed_beats: candidate ", c, " spans [", start, ", ", start + len, "), outside the ",
             x.size(), "-sample signal");
  }
  const normalization robust = normalization_of(host.moments, sample, stream);
  s.norm = params.normalize_rows ? robust : normalization{0.0F, 1.0F};

  const std::int64_t count = host.kept, candidates = at_least_zero(count - 1);
  const auto rows = static_cast<std::int64_t>(host.rows);
  s.positions = t.kept.slice(0, 0, count);
  s.lengths = t.lengths.slice(0, 0, candidates);
  s.peaks = t.peaks.slice(0, 0, count);
  s.beats.kept = t.beats.kept.slice(0, 0, candidates);
  s.beats.kept_index = t.beats.kept_index.slice(0, 0, rows);
  s.beats.rows = t.beats.rows.slice(0, 0, rows);
  if (s.norm.scale != host.row_scale) {  // the host's fallback scale: fill the rows again
    gpu::upload(&sc->row_scale, &s.norm.scale, sizeof(float), stream);
    embed_rows_cuda(x, s.positions, s.lengths, s.beats.kept_index, rows, &sc->row_center, &sc->row_scale, s.beats.rows,
                    stream);
  }
  return s;
}

}  // namespace zeroflow::signal::detail
