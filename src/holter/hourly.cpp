#include "zeroflow/holter/hourly.hpp"

#include <algorithm>
#include <cmath>

#include "zeroflow/holter/events.hpp"

namespace zeroflow::holter {

namespace {

/// Adds each stretch's time (first to last R peak) to the hours it overlaps.
void add_time(std::span<const classify::episode> stretches, double samples_per_hour, double sample_rate_hz,
              std::vector<hour_counts>& hours, double hour_counts::*field) {
  for (const auto& s : stretches) {
    const auto onset = static_cast<double>(s.onset), offset = static_cast<double>(s.offset);
    for (auto h = static_cast<std::size_t>(onset / samples_per_hour); h < hours.size(); ++h) {
      const double start = static_cast<double>(h) * samples_per_hour;
      if (start >= offset) break;
      const double overlap = std::min(offset, start + samples_per_hour) - std::max(onset, start);
      hours[h].*field += overlap / sample_rate_hz;
    }
  }
}

/// Splits each run of `beat_class` into isolated, couplet and run beats, in their hours.
void add_ectopic(const beat_record& r, char beat_class, std::int64_t run_beats, double samples_per_hour,
                 std::vector<hour_counts>& hours, ectopic_counts hour_counts::*field) {
  for (const auto& [first, last] : class_runs(r.classes, beat_class)) {
    const auto length = last - first + 1;
    for (auto b = first; b <= last; ++b) {
      auto& c = hours[static_cast<std::size_t>(static_cast<double>(r.peaks[static_cast<std::size_t>(b)]) /
                                               samples_per_hour)].*
                field;
      ++c.beats;
      if (length == 1)
        ++c.isolated;
      else if (length < run_beats)
        ++c.in_couplets;
      else
        ++c.in_runs;
    }
  }
}

}  // namespace

std::vector<hour_counts> hourly_counts(const beat_record& r, const event_params& params) {
  check_beat_record(r);
  check_holter_params({params, {}});
  const double samples_per_hour = 3600 * r.sample_rate_hz;
  const auto n_hours = static_cast<std::size_t>(std::ceil(static_cast<double>(r.samples) / samples_per_hour));
  std::vector<hour_counts> hours(n_hours);
  for (std::size_t h = 0; h < n_hours; ++h) {
    const double start = static_cast<double>(h) * samples_per_hour;
    hours[h].seconds = (std::min(static_cast<double>(r.samples), start + samples_per_hour) - start) / r.sample_rate_hz;
  }
  for (std::size_t b = 0; b < r.peaks.size(); ++b) {
    auto& hour = hours[static_cast<std::size_t>(static_cast<double>(r.peaks[b]) / samples_per_hour)];
    ++hour.beats;
    if (r.classes[b] == 'N') ++hour.normal;
    if (r.classes[b] == 'Q') ++hour.unclassified;
  }
  add_ectopic(r, 'V', params.run_beats, samples_per_hour, hours, &hour_counts::ventricular);
  add_ectopic(r, 'S', params.run_beats, samples_per_hour, hours, &hour_counts::supraventricular);
  add_time(r.af_episodes, samples_per_hour, r.sample_rate_hz, hours, &hour_counts::af_seconds);
  add_time(r.unreadable, samples_per_hour, r.sample_rate_hz, hours, &hour_counts::unreadable_seconds);
  return hours;
}

hour_counts total_of(const std::vector<hour_counts>& hours) {
  hour_counts t;
  const auto add = [](ectopic_counts& to, const ectopic_counts& from) {
    to.beats += from.beats, to.isolated += from.isolated, to.in_couplets += from.in_couplets,
        to.in_runs += from.in_runs;
  };
  for (const auto& h : hours) {
    t.seconds += h.seconds, t.beats += h.beats, t.normal += h.normal, t.unclassified += h.unclassified;
    add(t.ventricular, h.ventricular);
    add(t.supraventricular, h.supraventricular);
    t.af_seconds += h.af_seconds, t.unreadable_seconds += h.unreadable_seconds;
  }
  return t;
}

}  // namespace zeroflow::holter
