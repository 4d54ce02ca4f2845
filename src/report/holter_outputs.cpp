// summary.json's "holter" object and events.csv, from holter::analyse.
#include "zeroflow/report/holter_outputs.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "zeroflow/io/atomic_file.hpp"

namespace zeroflow::report {

namespace {

using nlohmann::json;

/// A measured value, or null where it is NaN (no interval measured).
json measured(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json ectopic_json(const holter::ectopic_counts& c) {
  return {{"beats", c.beats}, {"isolated", c.isolated}, {"in_couplets", c.in_couplets}, {"in_runs", c.in_runs}};
}

json counts_json(const holter::hour_counts& h) {
  return {{"seconds", h.seconds},
          {"beats", h.beats},
          {"N", h.normal},
          {"S", h.supraventricular.beats},
          {"V", h.ventricular.beats},
          {"Q", h.unclassified},
          {"ventricular", ectopic_json(h.ventricular)},
          {"supraventricular", ectopic_json(h.supraventricular)},
          {"af_seconds", h.af_seconds},
          {"unreadable_seconds", h.unreadable_seconds}};
}

json extreme_json(const holter::rate_extreme& e, double rate) {
  if (e.beat < 0) return nullptr;
  return {{"bpm", e.bpm}, {"beat", e.beat}, {"sample", e.sample}, {"seconds", static_cast<double>(e.sample) / rate}};
}

json event_json(const holter::event& e, double rate) {
  return {{"kind", std::string(e.kind)},
          {"onset", e.onset},
          {"offset", e.offset},
          {"onset_seconds", static_cast<double>(e.onset) / rate},
          {"duration_seconds", static_cast<double>(e.offset - e.onset) / rate},
          {"first_beat", e.first_beat},
          {"last_beat", e.last_beat},
          {"beats", e.last_beat - e.first_beat + 1},
          {"rate_bpm", measured(e.rate_bpm)}};
}

/// Events by kind, and the ones a report names: the longest pause, the longest and the fastest
/// ventricular run.
json events_json(const std::vector<holter::event>& events, double rate) {
  std::map<std::string, std::int64_t> by_kind;
  const holter::event *longest_pause = nullptr, *longest_run = nullptr, *fastest_run = nullptr;
  const auto longer = [](const holter::event* best, const holter::event& e) {
    return best == nullptr || e.offset - e.onset > best->offset - best->onset;
  };
  for (const auto& e : events) {
    ++by_kind[std::string(e.kind)];
    if (e.kind == holter::event_kind::pause && longer(longest_pause, e)) longest_pause = &e;
    if (e.kind == holter::event_kind::ventricular_run) {
      if (longest_run == nullptr || e.last_beat - e.first_beat > longest_run->last_beat - longest_run->first_beat)
        longest_run = &e;
      if (fastest_run == nullptr || e.rate_bpm > fastest_run->rate_bpm) fastest_run = &e;
    }
  }
  const auto named = [&](const holter::event* e) { return e == nullptr ? json(nullptr) : event_json(*e, rate); };
  return {{"counts", by_kind},
          {"longest_pause", named(longest_pause)},
          {"longest_ventricular_run", named(longest_run)},
          {"fastest_ventricular_run", named(fastest_run)}};
}

/// The morphology families, by id (0: the dominant shape).
json families_json(const std::vector<holter::beat_family>& families) {
  json out = json::array();
  for (const auto& f : families)
    out.push_back({{"id", f.id},
                   {"beats", f.beats},
                   {"class", std::string(1, f.beat_class)},
                   {"counts", {{"N", f.classes[0]}, {"S", f.classes[1]}, {"V", f.classes[2]}, {"Q", f.classes[3]}}},
                   {"examples", f.examples}});
  return out;
}

}  // namespace

json holter_json(const holter::holter_analysis& a, double rate) {
  const auto& e = a.params.events;
  const auto& h = a.params.hrv;
  json minutes_lowest = json::array(), minutes_mean = json::array(), minutes_highest = json::array();
  for (const auto& m : a.heart_rate.minutes) {
    minutes_lowest.push_back(measured(m.lowest_bpm));
    minutes_mean.push_back(measured(m.mean_bpm));
    minutes_highest.push_back(measured(m.highest_bpm));
  }
  json hours = json::array();
  for (std::size_t i = 0; i < a.hours.size(); ++i) {
    json hour = counts_json(a.hours[i]);
    hour["hour"] = i;
    hours.push_back(std::move(hour));
  }
  const auto& v = a.hrv;
  return {
      {"parameters",
       {{"pause_seconds", e.pause_seconds},
        {"bradycardia_bpm", e.bradycardia_bpm},
        {"tachycardia_bpm", e.tachycardia_bpm},
        {"run_beats", e.run_beats},
        {"rate_intervals", e.rate_intervals},
        {"pattern_cycles", e.pattern_cycles},
        {"segment_seconds", h.segment_seconds},
        {"min_segment_coverage", h.min_segment_coverage},
        {"successive_difference_ms", h.successive_difference_ms}}},
      {"duration_seconds", a.duration_seconds},
      {"beats", a.beats},
      {"heart_rate",
       {{"mean_bpm", measured(a.heart_rate.mean_bpm)},
        {"lowest", extreme_json(a.heart_rate.lowest, rate)},
        {"highest", extreme_json(a.heart_rate.highest, rate)},
        {"per_minute",
         {{"lowest_bpm", minutes_lowest}, {"mean_bpm", minutes_mean}, {"highest_bpm", minutes_highest}}}}},
      {"counts", counts_json(a.totals)},
      {"per_hour", hours},
      {"af_burden",
       {{"episodes", a.af.episodes},
        {"seconds", a.af.seconds},
        {"percent", a.af.percent},
        {"longest_seconds", a.af.longest_seconds},
        {"longest_onset_seconds",
         a.af.longest_onset < 0 ? json(nullptr) : json(static_cast<double>(a.af.longest_onset) / rate)}}},
      {"events", events_json(a.events, rate)},
      {"families", families_json(a.families)},
      {"hrv",
       {{"nn_intervals", v.intervals},
        {"successive_pairs", v.differences},
        {"mean_nn_ms", measured(v.mean_nn_ms)},
        {"sdnn_ms", measured(v.sdnn_ms)},
        {"sdann_ms", measured(v.sdann_ms)},
        {"sdnn_index_ms", measured(v.sdnn_index_ms)},
        {"segments", v.segments},
        {"rmssd_ms", measured(v.rmssd_ms)},
        {"nn50", v.nn50},
        {"pnn50_percent", measured(v.pnn50_percent)}}},
  };
}

json events_json_list(const holter::holter_analysis& a, double rate) {
  json out = json::array();
  for (const auto& e : a.events) out.push_back(event_json(e, rate));
  return out;
}

void write_events_csv(const holter::holter_analysis& a, double rate, const std::filesystem::path& path) {
  io::write_atomically(path, [&](std::ostream& out) {
    out << "kind,onset,offset,onset_seconds,offset_seconds,duration_seconds,first_beat,last_beat,beats,rate_bpm\n";
    for (const auto& e : a.events) {
      char line[320];
      std::snprintf(line, sizeof line, "%.*s,%lld,%lld,%.3f,%.3f,%.3f,%lld,%lld,%lld,", static_cast<int>(e.kind.size()),
                    e.kind.data(), static_cast<long long>(e.onset), static_cast<long long>(e.offset),
                    static_cast<double>(e.onset) / rate, static_cast<double>(e.offset) / rate,
                    static_cast<double>(e.offset - e.onset) / rate, static_cast<long long>(e.first_beat),
                    static_cast<long long>(e.last_beat), static_cast<long long>(e.last_beat - e.first_beat + 1));
      out << line;
      if (std::isfinite(e.rate_bpm)) {
        std::snprintf(line, sizeof line, "%.2f", e.rate_bpm);
        out << line;
      }
      out << '\n';
    }
  });
}

}  // namespace zeroflow::report
