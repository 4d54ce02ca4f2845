#include "zeroflow/holter/holter.hpp"

namespace zeroflow::holter {

holter_analysis analyse(const beat_record& record, const holter_params& params) {
  check_beat_record(record);
  check_holter_params(params);
  holter_analysis out;
  out.params = params;
  out.duration_seconds = static_cast<double>(record.samples) / record.sample_rate_hz;
  out.beats = static_cast<std::int64_t>(record.peaks.size());
  out.heart_rate = heart_rate(record, params.events);
  out.events = find_events(record, out.heart_rate.averaged_bpm, params.events);
  out.hours = hourly_counts(record, params.events);
  out.totals = total_of(out.hours);
  for (const auto& e : record.af_episodes) {
    const double seconds = static_cast<double>(e.offset - e.onset) / record.sample_rate_hz;
    ++out.af.episodes;
    out.af.seconds += seconds;
    if (seconds > out.af.longest_seconds || out.af.longest_onset < 0)
      out.af.longest_seconds = seconds, out.af.longest_onset = e.onset;
  }
  if (out.duration_seconds > 0) out.af.percent = 100.0 * out.af.seconds / out.duration_seconds;
  out.hrv = time_domain(normal_intervals(record), record.sample_rate_hz, params.hrv);
  if (!record.family.empty()) out.families = beat_families(record.family, record.classes);
  return out;
}

}  // namespace zeroflow::holter
