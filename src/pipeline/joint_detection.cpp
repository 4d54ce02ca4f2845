// Beats located in every ECG lead (joint_detection.hpp).
#include "joint_detection.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include "host_vector.hpp"
#include "zeroflow/classify/joint_detection.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::pipeline::detail {

namespace {

struct lead_detections {
  std::vector<std::int64_t> peaks;
  std::vector<float> clarity;
};

// A segmentation's beats and their clarity in its rows (only per-beat numbers reach the host).
lead_detections detections_of(const signal::segmentation& s, double sample_rate, stream_view stream) {
  lead_detections out;
  if (!s.peaks.valid() || s.peaks.size() == 0) return out;
  const array rows = s.beats.rows.is_contiguous() ? s.beats.rows : copy_to(s.beats.rows, s.beats.rows.where(), stream);
  out.clarity = classify::beat_clarity(rows, s.sizes.window_before, s.sizes.window_after, sample_rate, stream);
  out.peaks = to_host_vector<std::int64_t>(s.peaks, stream);
  return out;
}

}  // namespace

joined_beats join_lead_detections(signal::segmentation& seg, const array& signal, std::span<const other_lead> leads,
                                  const signal::segment_params& params, const classify::class_params& classes,
                                  stream_view stream) {
  std::vector<lead_detections> others;
  for (const auto& lead : leads)
    if (lead.ecg)
      others.push_back(
          detections_of(signal::segment_recording(lead.signal, params, stream), params.sample_rate, stream));
  if (others.empty()) return {};
  const lead_detections first = detections_of(seg, params.sample_rate, stream);
  std::vector<classify::lead_beats> other_beats;
  for (const auto& o : others) other_beats.push_back({o.peaks, o.clarity});
  const auto joined = classify::join_lead_beats({first.peaks, first.clarity}, other_beats, params.sample_rate,
                                                params.t_wave_seconds, classes);
  if (joined == first.peaks) return {};
  joined_beats out;
  std::vector<std::int64_t> kept;
  std::set_intersection(first.peaks.begin(), first.peaks.end(), joined.begin(), joined.end(), std::back_inserter(kept));
  out.dropped = static_cast<std::int64_t>(first.peaks.size() - kept.size());
  out.added = static_cast<std::int64_t>(joined.size() - kept.size());
  array host = empty({static_cast<std::int64_t>(joined.size())}, int64);
  std::copy(joined.begin(), joined.end(), host.span<std::int64_t>().begin());
  const array peaks = signal.where().host_accessible() ? host : copy_to(host, signal.where(), stream);
  signal::place_beats(seg, signal, peaks, params, stream);
  synchronize(stream);  // the host copy of the joined beats is read by the copy until here
  return out;
}

}  // namespace zeroflow::pipeline::detail
