// Beats located in every ECG lead (joint_detection.hpp): each lead's clarity, and the rule that
// joins the leads' detections.
#include "zeroflow/classify/joint_detection.hpp"

#include <algorithm>
#include <cmath>

#include "features.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::classify {

namespace {

void check_lead(const lead_beats& lead, const char* which) {
  ZF_EXPECTS(lead.clarity.size() == lead.peaks.size(), which, ": expected one clarity per beat (", lead.peaks.size(),
             "), got ", lead.clarity.size());
  for (std::size_t b = 1; b < lead.peaks.size(); ++b)
    ZF_EXPECTS(lead.peaks[b] > lead.peaks[b - 1], which, ": R peaks must increase, beat ", b, " at sample ",
               lead.peaks[b], " follows sample ", lead.peaks[b - 1]);
}

/// Whether `sorted` holds a sample within `tolerance` of `at`.
bool has_near(std::span<const std::int64_t> sorted, std::int64_t at, std::int64_t tolerance) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), at - tolerance);
  return it != sorted.end() && *it <= at + tolerance;
}

}  // namespace

std::vector<float> beat_clarity(const array& rows, std::int64_t window_before, std::int64_t window_after,
                                double sample_rate, stream_view stream) {
  ZF_EXPECTS(rows.type() == float32 && rows.ndim() == 2 && rows.is_contiguous(),
             "beat_clarity: the rows must be a C-contiguous 2-D float32 array");
  ZF_EXPECTS(sample_rate > 0 && std::isfinite(sample_rate), "beat_clarity: the sample rate must be positive, got ",
             sample_rate);
  const std::int64_t beats = rows.shape()[0];
  if (beats == 0) return {};
  const beat_rows shape{{}, rows.shape()[1], window_before, window_after};
  // The dominant beat is not needed for clarity; one row stands in for it.
  return detail::measurements_of(rows, shape, beats, sample_rate, 1, stream)->clarity();
}

std::vector<std::int64_t> join_lead_beats(const lead_beats& first, std::span<const lead_beats> others,
                                          double sample_rate, double t_wave_seconds, const class_params& params) {
  ZF_EXPECTS(sample_rate > 0 && std::isfinite(sample_rate), "join_lead_beats: the sample rate must be positive, got ",
             sample_rate);
  check_class_params(params);
  check_lead(first, "join_lead_beats: the first lead");
  for (const auto& lead : others) check_lead(lead, "join_lead_beats: another lead");
  const auto tolerance = static_cast<std::int64_t>(std::floor(params.quality.same_beat_seconds * sample_rate));

  std::vector<std::int64_t> out;
  for (std::size_t b = 0; b < first.peaks.size(); ++b) {
    const bool clear = first.clarity[b] >= params.quality.min_clarity;
    const bool confirmed = std::any_of(others.begin(), others.end(), [&](const lead_beats& lead) {
      return has_near(lead.peaks, first.peaks[b], tolerance);
    });
    if (clear || confirmed) out.push_back(first.peaks[b]);
  }
  // Beats only another lead finds, each lead's against the beats taken so far (ascending).
  const auto apart = std::max(tolerance, static_cast<std::int64_t>(std::floor(t_wave_seconds * sample_rate)));
  const auto k = params.timing.local_rhythm_beats;
  for (const auto& lead : others) {
    std::vector<std::int64_t> intervals(out.size() > 1 ? out.size() - 1 : 0);
    for (std::size_t i = 0; i + 1 < out.size(); ++i) intervals[i] = out[i + 1] - out[i];
    const auto before = static_cast<std::ptrdiff_t>(out.size());
    for (std::size_t b = 0; b < lead.peaks.size(); ++b) {
      const std::int64_t at = lead.peaks[b];
      if (!(lead.clarity[b] >= params.quality.min_clarity) ||
          has_near(std::span(out.data(), static_cast<std::size_t>(before)), at, apart))
        continue;
      // Inside the taken beats, only where they leave a beat out: an interval longer than
      // missed_beat_ratio times the local one (a lost beat doubles it).
      const auto next = std::upper_bound(out.begin(), out.begin() + before, at) - out.begin();
      if (next > 0 && next < before) {
        const auto gap = static_cast<std::size_t>(next - 1);
        const auto lo = gap > static_cast<std::size_t>(k) ? gap - static_cast<std::size_t>(k) : 0;
        const auto hi = std::min(intervals.size(), gap + static_cast<std::size_t>(k) + 1);
        std::vector<double> around(intervals.begin() + static_cast<std::ptrdiff_t>(lo),
                                   intervals.begin() + static_cast<std::ptrdiff_t>(hi));
        if (!(static_cast<double>(intervals[gap]) > params.quality.missed_beat_ratio * detail::upper_median(around)))
          continue;
      }
      out.push_back(at);
    }
    std::inplace_merge(out.begin(), out.begin() + before, out.end());
  }
  return out;
}

}  // namespace zeroflow::classify
