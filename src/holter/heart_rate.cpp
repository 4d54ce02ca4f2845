#include "zeroflow/holter/heart_rate.hpp"

#include <cmath>

namespace zeroflow::holter {

heart_rate_trend heart_rate(const beat_record& r, const event_params& params) {
  check_beat_record(r);
  check_holter_params({params, {}});
  const std::size_t n = r.peaks.size();
  const auto measurable = measurable_intervals(r);
  const double samples_per_minute = 60 * r.sample_rate_hz;
  const auto minutes = static_cast<std::size_t>(std::ceil(static_cast<double>(r.samples) / samples_per_minute));
  const auto minute_of = [&](std::int64_t sample) {
    return std::min(minutes - 1, static_cast<std::size_t>(static_cast<double>(sample) / samples_per_minute));
  };

  heart_rate_trend out;
  out.minutes.resize(minutes);
  out.averaged_bpm.assign(n, no_rate);
  std::vector<double> minute_seconds(minutes, 0.0);
  double all_seconds = 0;
  std::int64_t all_intervals = 0;
  // The averaged rate ending at beat b: its window's intervals summed as they slide (integers, so
  // the sum is exact whatever the order).
  const auto window = static_cast<std::size_t>(params.rate_intervals);
  std::int64_t window_samples = 0;
  std::size_t window_measurable = 0;
  for (std::size_t b = 1; b < n; ++b) {
    const std::int64_t rr = r.peaks[b] - r.peaks[b - 1];
    window_samples += rr;
    window_measurable += measurable[b];
    if (b > window) {
      window_samples -= r.peaks[b - window] - r.peaks[b - window - 1];
      window_measurable -= measurable[b - window];
    }
    if (!measurable[b]) continue;
    const double seconds = static_cast<double>(rr) / r.sample_rate_hz;
    auto& minute = out.minutes[minute_of(r.peaks[b])];
    ++minute.intervals;
    minute_seconds[minute_of(r.peaks[b])] += seconds;
    all_seconds += seconds;
    ++all_intervals;
    if (b < window || window_measurable < window) continue;
    const double bpm = 60.0 * static_cast<double>(window) * r.sample_rate_hz / static_cast<double>(window_samples);
    out.averaged_bpm[b] = bpm;
    if (!(bpm >= minute.lowest_bpm)) minute.lowest_bpm = bpm;
    if (!(bpm <= minute.highest_bpm)) minute.highest_bpm = bpm;
    const auto beat = static_cast<std::int64_t>(b);
    if (!(bpm >= out.lowest.bpm)) out.lowest = {bpm, beat, r.peaks[b]};
    if (!(bpm <= out.highest.bpm)) out.highest = {bpm, beat, r.peaks[b]};
  }
  for (std::size_t m = 0; m < minutes; ++m)
    if (out.minutes[m].intervals > 0)
      out.minutes[m].mean_bpm = 60.0 * static_cast<double>(out.minutes[m].intervals) / minute_seconds[m];
  if (all_intervals > 0) out.mean_bpm = 60.0 * static_cast<double>(all_intervals) / all_seconds;
  return out;
}

}  // namespace zeroflow::holter
