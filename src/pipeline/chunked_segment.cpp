#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/pipeline/chunked.hpp"
#include "zeroflow/signal/beat_windows.hpp"
#include "zeroflow/signal/beats.hpp"
#include "zeroflow/signal/decimate.hpp"
#include "zeroflow/signal/display.hpp"
#include "zeroflow/signal/normalize.hpp"
#include "zeroflow/signal/qrs_detect.hpp"
#include "zeroflow/signal/rhythm.hpp"

namespace zeroflow::pipeline {

namespace {

/// Device bytes per sample of a chunk, a generous bound over both passes: the samples, band-pass,
/// energy, gate and gate positions of detection (about 21), or the samples and the rows of beats
/// at most a refractory period apart (under 40 at any rate).
constexpr std::int64_t bytes_per_chunk_sample = 48;
/// Chunks are never cut finer than this (the margins would dominate).
constexpr std::int64_t smallest_chunk = 4096;

/// The elements of a small 1-D array as a host vector.
template <class T>
std::vector<T> host_values(const array& a, stream_view stream) {
  if (!a.valid() || a.size() == 0) return {};
  const array host = a.where().host_accessible() && a.is_contiguous() ? a : copy_to(a, cpu_device, stream);
  synchronize(stream);
  const auto s = host.span<const T>();
  return {s.begin(), s.end()};
}

/// Samples [lo, hi) of the host recording, copied onto `where` (from its current resource: a
/// budget on that device counts them, on the host too).
array upload(const array& signal, std::int64_t lo, std::int64_t hi, device where, stream_view stream) {
  return copy_to(signal.slice(0, lo, hi), where, stream);
}

/// Calls work(c0, c1) for consecutive ranges covering [0, n), `size` samples each but the last.
/// A range whose work runs out of memory is tried again at half the size, down to `unit`; work
/// must only publish its results once nothing more can fail. Returns the size that last worked.
template <class Work>
std::int64_t for_each_chunk(std::int64_t n, std::int64_t size, std::int64_t unit, std::int64_t& chunks, Work&& work) {
  for (std::int64_t c0 = 0; c0 < n;) {
    const std::int64_t c1 = std::min(n, c0 + size);
    try {
      work(c0, c1);
    } catch (const out_of_memory& e) {
      if (size <= unit)
        ZF_THROW(out_of_memory, "the device memory budget (`max_device_memory`) leaves too little room for a chunk of ",
                 unit, " samples of the recording (", e.what(), "); give a larger budget");
      size = std::max(unit, size / 2 / unit * unit);
      continue;
    }
    ++chunks;
    c0 = c1;
  }
  return size;
}

}  // namespace

std::int64_t chunk_margin(const signal::segment_sizes& sizes) {
  // A candidate at p reads band-pass outputs up to the NMS window around it and its background's
  // blocks (qrs_background), each of which reads ricker_width samples before it, and the raw
  // samples within slope_half_window + 1: twice that leaves room to spare.
  const std::int64_t window = 2 * (sizes.refractory / 2) + 1;
  const std::int64_t background = (signal::detail::qrs_background_blocks + 1) * (sizes.refractory / 2 + 1);
  return 2 * (sizes.ricker_width + std::max(window, background) + sizes.slope_half_window) + 16;
}

chunked_segmentation segment_in_chunks(const array& signal, const signal::segment_params& params, device where,
                                       const chunk_options& options, stream_view stream) {
  ZF_EXPECTS(params.method == signal::segmentation_method::robust,
             "segmentation in chunks (a device memory budget) needs the robust segmentation; leave out "
             "`segmentation`=gate-to-gate or `max_device_memory`");
  ZF_EXPECTS(signal.valid() && signal.ndim() == 1 && signal.type() == float32,
             "segment_in_chunks: the signal must be a 1-D float32 array");
  ZF_EXPECTS(signal.where().host_accessible(), "segment_in_chunks: the recording must be in host memory");
  const memory::resource_ptr store = options.host_store ? options.host_store : memory::current_resource(cpu_device);
  chunked_segmentation out;
  signal::segmentation& s = out.seg;
  s.sizes = signal::sizes_for(params);
  const std::int64_t n = signal.size();
  const std::int64_t margin = chunk_margin(s.sizes);

  // Own ranges start on overview buckets, so each chunk reduces whole buckets of the overview.
  out.overview_bucket = signal::overview_bucket(n, signal::display_sizes{}.overview_budget);
  const std::int64_t bucket = out.overview_bucket;
  const std::int64_t unit = (smallest_chunk + bucket - 1) / bucket * bucket;
  std::int64_t size = options.chunk_samples > 0  ? options.chunk_samples
                      : options.budget_bytes > 0 ? options.budget_bytes / bytes_per_chunk_sample
                                                 : n;
  size = std::max(unit, size / bucket * bucket);
  if (options.progress && size < n)
    options.progress("segmenting in chunks of " + std::to_string(size) + " samples (" +
                     std::to_string((n + size - 1) / size) + " chunks)");

  // Pass 1: candidates of the detector, and the overview.
  std::vector<std::int64_t> position;
  std::vector<float> amplitude, slope, background;
  size = for_each_chunk(n, size, unit, out.chunks, [&](std::int64_t c0, std::int64_t c1) {
    const std::int64_t lo = std::max<std::int64_t>(0, c0 - margin), hi = std::min(n, c1 + margin);
    const array x = upload(signal, lo, hi, where, stream);
    const signal::qrs_detection d = signal::detect_qrs(x, params, 0.0F, stream);
    const auto at = host_values<std::int64_t>(d.candidates, stream);
    const auto a = host_values<float>(d.amplitude, stream);
    const auto sl = host_values<float>(d.slope, stream);
    const auto bg = host_values<float>(d.background, stream);
    const auto minmax =
        host_values<float>(signal::minmax_decimate(x.slice(0, c0 - lo, c1 - lo), bucket, stream), stream);
    for (std::size_t i = 0; i < at.size(); ++i) {
      const std::int64_t g = at[i] + lo;
      if (g < c0 || g >= c1) continue;  // another chunk's own candidate, seen there with full context
      position.push_back(g);
      amplitude.push_back(a[i]);
      slope.push_back(sl[i]);
      background.push_back(bg[i]);
    }
    for (std::size_t b = 0; b + 1 < minmax.size(); b += 2) {
      out.overview_min.push_back(minmax[b]);
      out.overview_max.push_back(minmax[b + 1]);
    }
  });
  out.chunk_samples = size;

  // The decision rules over every candidate at once (they are few: a handful per second).
  const auto count = static_cast<std::int64_t>(position.size());
  signal::qrs_detection all;
  all.candidates = empty({count}, int64, stream, store);
  all.amplitude = empty({count}, float32, stream, store);
  all.slope = empty({count}, float32, stream, store);
  all.background = empty({count}, float32, stream, store);
  std::copy(position.begin(), position.end(), all.candidates.data_as<std::int64_t>());
  std::copy(amplitude.begin(), amplitude.end(), all.amplitude.data_as<float>());
  std::copy(slope.begin(), slope.end(), all.slope.data_as<float>());
  std::copy(background.begin(), background.end(), all.background.data_as<float>());
  const array peaks_host = signal::detail::qrs_select_host(all, n, s.sizes, stream);
  const auto peaks = host_values<std::int64_t>(peaks_host, stream);

  // The recording's median and MAD from the strided subsample segment_recording takes.
  const std::int64_t stride = std::max<std::int64_t>(1, n >> signal::statistics_sample_bits);
  const signal::normalization robust = [&] {
    const array sample = copy_to(signal.slice(0, 0, n, stride), where, stream);
    return signal::robust_zscore(sample, stream);
  }();
  s.norm = params.normalize_rows ? robust : signal::normalization{0.0F, 1.0F};

  // Pass 2: each chunk's beats embedded from its samples and a beat window on either side.
  const std::int64_t width = s.sizes.row_width, before = s.sizes.window_before, after = s.sizes.window_after;
  const auto beats = static_cast<std::int64_t>(peaks.size());
  array rows = empty({beats, width}, float32, stream, store);
  std::int64_t pass2 = 0;
  for_each_chunk(n, size, unit, pass2, [&](std::int64_t c0, std::int64_t c1) {
    const auto b0 = std::lower_bound(peaks.begin(), peaks.end(), c0) - peaks.begin();
    const auto b1 = std::lower_bound(peaks.begin(), peaks.end(), c1) - peaks.begin();
    if (b0 == b1) return;
    const std::int64_t lo = std::max<std::int64_t>(0, c0 - before), hi = std::min(n, c1 + after);
    array local = empty({b1 - b0}, int64, cpu_device, stream);
    for (auto b = b0; b < b1; ++b) local.data_as<std::int64_t>()[b - b0] = peaks[static_cast<std::size_t>(b)] - lo;
    const array x = upload(signal, lo, hi, where, stream);
    const array embedded =
        signal::embed_windows(x, copy_to(local, where, stream), before, after, width, s.norm, stream);
    const array host = where.host_accessible() ? embedded : copy_to(embedded, cpu_device, stream);
    synchronize(stream);
    std::memcpy(rows.data_as<float>() + b0 * width, host.data(), host.nbytes());
  });

  // Beat-sized results on the run's device, as segment_recording leaves them.
  s.peaks = copy_to(peaks_host, where, stream);
  s.positions = s.peaks;
  s.lengths = signal::beat_lengths(s.peaks, stream);
  s.histogram = signal::length_histogram(s.lengths, 2 * s.sizes.max_length + 1, stream);
  s.beats.rows = rows;
  s.rr = signal::rhythm_features(s.peaks, params.sample_rate, stream);
  return out;
}

}  // namespace zeroflow::pipeline
