#include "zeroflow/holter/events.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "zeroflow/core/error.hpp"

namespace zeroflow::holter {

namespace {

constexpr std::array kind_order = {event_kind::pause,
                                   event_kind::bradycardia,
                                   event_kind::tachycardia,
                                   event_kind::ventricular_couplet,
                                   event_kind::ventricular_run,
                                   event_kind::ventricular_bigeminy,
                                   event_kind::ventricular_trigeminy,
                                   event_kind::supraventricular_couplet,
                                   event_kind::supraventricular_run,
                                   event_kind::supraventricular_bigeminy,
                                   event_kind::supraventricular_trigeminy,
                                   event_kind::atrial_fibrillation};

std::size_t rank_of(std::string_view kind) {
  return static_cast<std::size_t>(std::find(kind_order.begin(), kind_order.end(), kind) - kind_order.begin());
}

struct event_builder {
  const beat_record& r;
  std::vector<event>& out;

  /// The mean rate over beats first..last's own intervals (NaN for a single beat).
  double mean_rate(std::int64_t first, std::int64_t last) const {
    if (last <= first) return std::numeric_limits<double>::quiet_NaN();
    const auto samples =
        static_cast<double>(r.peaks[static_cast<std::size_t>(last)] - r.peaks[static_cast<std::size_t>(first)]);
    return 60.0 * static_cast<double>(last - first) * r.sample_rate_hz / samples;
  }

  void add(std::string_view kind, std::int64_t first, std::int64_t last, double rate_bpm) const {
    out.push_back({kind, first, last, r.peaks[static_cast<std::size_t>(first)], r.peaks[static_cast<std::size_t>(last)],
                   rate_bpm});
  }
};

void add_pauses(const event_builder& e, std::span<const std::uint8_t> measurable, double pause_seconds) {
  const auto min_samples = pause_seconds * e.r.sample_rate_hz;
  for (std::size_t b = 1; b < e.r.peaks.size(); ++b) {
    const auto rr = static_cast<double>(e.r.peaks[b] - e.r.peaks[b - 1]);
    if (measurable[b] && rr >= min_samples)
      e.add(event_kind::pause, static_cast<std::int64_t>(b - 1), static_cast<std::int64_t>(b),
            60.0 * e.r.sample_rate_hz / rr);
  }
}

/// Stretches of beats whose averaged rate is beyond the bound (`below`: under it), each from the
/// first interval of its first average to its last beat, with the most extreme rate.
void add_rate_stretches(const event_builder& e, std::span<const double> averaged_bpm, std::int64_t rate_intervals,
                        double bound_bpm, bool below, std::string_view kind) {
  const auto n = static_cast<std::int64_t>(averaged_bpm.size());
  const auto beyond = [&](double bpm) { return below ? bpm < bound_bpm : bpm > bound_bpm; };
  for (std::int64_t b = 0; b < n;) {
    if (!beyond(averaged_bpm[static_cast<std::size_t>(b)])) {
      ++b;
      continue;
    }
    double extreme = averaged_bpm[static_cast<std::size_t>(b)];
    std::int64_t last = b;
    while (last + 1 < n && beyond(averaged_bpm[static_cast<std::size_t>(last + 1)])) {
      ++last;
      const double bpm = averaged_bpm[static_cast<std::size_t>(last)];
      extreme = below ? std::min(extreme, bpm) : std::max(extreme, bpm);
    }
    const std::int64_t first = std::max<std::int64_t>(0, b - rate_intervals);
    // Stretches whose averages overlap are one event.
    if (!e.out.empty() && e.out.back().kind == kind && e.out.back().last_beat >= first) {
      auto& previous = e.out.back();
      previous.last_beat = last;
      previous.offset = e.r.peaks[static_cast<std::size_t>(last)];
      previous.rate_bpm = below ? std::min(previous.rate_bpm, extreme) : std::max(previous.rate_bpm, extreme);
    } else {
      e.add(kind, first, last, extreme);
    }
    b = last + 1;
  }
}

void add_runs(const event_builder& e, char beat_class, std::int64_t run_beats, std::string_view couplet,
              std::string_view run) {
  for (const auto& [first, last] : class_runs(e.r.classes, beat_class)) {
    const auto length = last - first + 1;
    if (length >= run_beats)
      e.add(run, first, last, e.mean_rate(first, last));
    else if (length >= 2)
      e.add(couplet, first, last, e.mean_rate(first, last));
  }
}

/// Bigeminy (period 2) or trigeminy (period 3): isolated beats of `beat_class` each `period` beats
/// after the one before, N beats between them and before the first.
void add_pattern(const event_builder& e, char beat_class, std::int64_t period, std::int64_t cycles,
                 std::string_view kind) {
  const auto& c = e.r.classes;
  const auto n = static_cast<std::int64_t>(c.size());
  const auto at = [&](std::int64_t b) { return c[static_cast<std::size_t>(b)]; };
  // An ectopic beat that ends a cycle: period − 1 N beats before it, and not followed by its class.
  const auto ends_cycle = [&](std::int64_t b) {
    if (b < period - 1 || b >= n || at(b) != beat_class) return false;
    for (std::int64_t k = 1; k < period; ++k)
      if (at(b - k) != 'N') return false;
    return b + 1 >= n || at(b + 1) != beat_class;
  };
  for (std::int64_t b = 0; b < n;) {
    if (!ends_cycle(b)) {
      ++b;
      continue;
    }
    std::int64_t last = b, count = 1;
    while (ends_cycle(last + period)) last += period, ++count;
    if (count >= cycles) {
      const std::int64_t first = b - (period - 1);
      e.add(kind, first, last, e.mean_rate(first, last));
    }
    b = last + 1;
  }
}

}  // namespace

std::vector<std::size_t> notable_events(std::span<const event> events, std::size_t per_kind) {
  // How much each event stands out within its kind: larger first.
  const auto weight = [](const event& e) {
    if (e.kind == event_kind::bradycardia) return -e.rate_bpm;
    if (e.kind == event_kind::tachycardia) return e.rate_bpm;
    return static_cast<double>(e.offset - e.onset);
  };
  std::vector<std::size_t> order(events.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto ra = rank_of(events[a].kind), rb = rank_of(events[b].kind);
    return ra != rb ? ra < rb : weight(events[a]) > weight(events[b]);
  });
  std::vector<std::size_t> chosen;
  std::size_t taken = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    taken = i > 0 && events[order[i]].kind == events[order[i - 1]].kind ? taken + 1 : 0;
    if (taken < per_kind) chosen.push_back(order[i]);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

std::vector<std::pair<std::int64_t, std::int64_t>> class_runs(std::span<const char> classes, char beat_class) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  const auto n = static_cast<std::int64_t>(classes.size());
  for (std::int64_t b = 0; b < n;) {
    if (classes[static_cast<std::size_t>(b)] != beat_class) {
      ++b;
      continue;
    }
    std::int64_t last = b;
    while (last + 1 < n && classes[static_cast<std::size_t>(last + 1)] == beat_class) ++last;
    out.emplace_back(b, last);
    b = last + 1;
  }
  return out;
}

std::vector<event> find_events(const beat_record& r, std::span<const double> averaged_bpm, const event_params& p) {
  check_beat_record(r);
  check_holter_params({p, {}});
  ZF_EXPECTS(averaged_bpm.size() == r.peaks.size(), "expected ", r.peaks.size(), " averaged rates (one per beat), got ",
             averaged_bpm.size());
  std::vector<event> out;
  const event_builder e{r, out};
  add_pauses(e, measurable_intervals(r), p.pause_seconds);
  add_rate_stretches(e, averaged_bpm, p.rate_intervals, p.bradycardia_bpm, true, event_kind::bradycardia);
  add_rate_stretches(e, averaged_bpm, p.rate_intervals, p.tachycardia_bpm, false, event_kind::tachycardia);
  add_runs(e, 'V', p.run_beats, event_kind::ventricular_couplet, event_kind::ventricular_run);
  add_pattern(e, 'V', 2, p.pattern_cycles, event_kind::ventricular_bigeminy);
  add_pattern(e, 'V', 3, p.pattern_cycles, event_kind::ventricular_trigeminy);
  add_runs(e, 'S', p.run_beats, event_kind::supraventricular_couplet, event_kind::supraventricular_run);
  add_pattern(e, 'S', 2, p.pattern_cycles, event_kind::supraventricular_bigeminy);
  add_pattern(e, 'S', 3, p.pattern_cycles, event_kind::supraventricular_trigeminy);
  for (const auto& a : r.af_episodes)
    e.add(event_kind::atrial_fibrillation, a.first_beat, a.last_beat, e.mean_rate(a.first_beat, a.last_beat));
  std::stable_sort(out.begin(), out.end(), [](const event& a, const event& b) {
    return a.onset != b.onset ? a.onset < b.onset : rank_of(a.kind) < rank_of(b.kind);
  });
  return out;
}

}  // namespace zeroflow::holter
