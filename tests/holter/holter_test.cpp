// The Holter analysis (holter/*.hpp) on beat sequences whose answer is known by construction:
// a steady rhythm with a pause, runs and patterns of ectopic beats, brady- and tachycardia, AF,
// unreadable stretches; HRV against the Task Force's formulas written out here once more.
#include "zeroflow/holter/holter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "zeroflow/core/error.hpp"
#include "zeroflow/holter/holter_params.hpp"

namespace zh = zeroflow::holter;
namespace zc = zeroflow::classify;

namespace {

constexpr double rate = 250;

/// A recording built beat by beat: R–R intervals in seconds, each beat's class.
struct builder {
  std::vector<std::int64_t> peaks{50};
  std::string classes = "N";
  std::vector<zc::episode> af, unreadable;

  builder& beats(int count, double rr_seconds, char c = 'N') {
    for (int i = 0; i < count; ++i) {
      peaks.push_back(peaks.back() + static_cast<std::int64_t>(std::lround(rr_seconds * rate)));
      classes += c;
    }
    return *this;
  }
  /// The classes of the last beats, as a pattern ("NV" repeated ...): sets existing beats.
  builder& pattern(const std::string& text) {
    for (std::size_t i = 0; i < text.size(); ++i) classes[classes.size() - text.size() + i] = text[i];
    return *this;
  }
  [[nodiscard]] std::int64_t last() const { return static_cast<std::int64_t>(peaks.size()) - 1; }
  [[nodiscard]] zh::beat_record record() const {
    return {peaks, {classes.data(), classes.size()}, rate, peaks.back() + 100, af, unreadable};
  }
};

std::vector<zh::event> of_kind(const std::vector<zh::event>& events, std::string_view kind) {
  std::vector<zh::event> out;
  for (const auto& e : events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

}  // namespace

TEST(Holter, SteadyRhythmHasItsRateAndNoEvents) {
  builder b;
  b.beats(600, 0.8);  // 75 bpm for 8 minutes
  const auto a = zh::analyse(b.record());
  EXPECT_NEAR(a.heart_rate.mean_bpm, 75.0, 1e-9);
  EXPECT_NEAR(a.heart_rate.lowest.bpm, 75.0, 1e-9);
  EXPECT_NEAR(a.heart_rate.highest.bpm, 75.0, 1e-9);
  EXPECT_EQ(a.heart_rate.minutes.size(), 9u);        // 8 minutes and 0.6 s
  EXPECT_EQ(a.heart_rate.minutes[0].intervals, 74);  // beats at 0.2 s, 1.0 s, ...: 75 in the first minute
  for (std::size_t m = 0; m < 8; ++m) EXPECT_NEAR(a.heart_rate.minutes[m].mean_bpm, 75.0, 1e-9) << m;
  EXPECT_TRUE(a.events.empty());
  EXPECT_EQ(a.totals.beats, 601);
  EXPECT_EQ(a.totals.normal, 601);
  EXPECT_EQ(a.hrv.intervals, 600);
  EXPECT_NEAR(a.hrv.sdnn_ms, 0.0, 1e-9);
  EXPECT_NEAR(a.hrv.rmssd_ms, 0.0, 1e-9);
  EXPECT_EQ(a.hrv.nn50, 0);
}

TEST(Holter, PausesFromTheirThresholdOnAndNotAcrossUnreadableBeats) {
  builder b;
  b.beats(20, 0.8).beats(1, 2.0).beats(20, 0.8).beats(1, 1.96).beats(20, 0.8).beats(1, 3.2).beats(20, 0.8);
  const auto pause_end = b.last() - 20;
  // The 3.2 s interval ends in an unreadable stretch: beats missed in noise fake a pause.
  b.unreadable.push_back({"noise", pause_end, pause_end + 3, b.peaks[static_cast<std::size_t>(pause_end)],
                          b.peaks[static_cast<std::size_t>(pause_end + 3)]});
  const auto pauses = of_kind(zh::analyse(b.record()).events, zh::event_kind::pause);
  ASSERT_EQ(pauses.size(), 1u);
  EXPECT_EQ(pauses[0].first_beat, 20);
  EXPECT_EQ(pauses[0].last_beat, 21);
  EXPECT_NEAR(pauses[0].rate_bpm, 30.0, 1e-9);
  zh::holter_params p;
  p.events.pause_seconds = 1.9;
  EXPECT_EQ(of_kind(zh::analyse(b.record(), p).events, zh::event_kind::pause).size(), 2u);
}

TEST(Holter, VentricularCoupletsRunsAndIsolatedBeatsAreCountedApart) {
  builder b;
  b.beats(30, 0.8);
  b.beats(1, 0.5, 'V').beats(1, 1.1);                  // isolated
  b.beats(20, 0.8).beats(2, 0.45, 'V').beats(1, 1.1);  // couplet
  b.beats(20, 0.8).beats(5, 0.4, 'V').beats(1, 1.2);   // a run of 5 at 150 bpm
  b.beats(20, 0.8);
  const auto a = zh::analyse(b.record());
  const auto couplets = of_kind(a.events, zh::event_kind::ventricular_couplet);
  const auto runs = of_kind(a.events, zh::event_kind::ventricular_run);
  ASSERT_EQ(couplets.size(), 1u);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].last_beat - runs[0].first_beat + 1, 5);
  EXPECT_NEAR(runs[0].rate_bpm, 150.0, 1e-9);
  EXPECT_EQ(a.totals.ventricular.beats, 8);
  EXPECT_EQ(a.totals.ventricular.isolated, 1);
  EXPECT_EQ(a.totals.ventricular.in_couplets, 2);
  EXPECT_EQ(a.totals.ventricular.in_runs, 5);
  // A run of 5 is a couplet-length sequence no more once runs need 6 beats.
  zh::holter_params p;
  p.events.run_beats = 6;
  const auto longer = zh::analyse(b.record(), p);
  EXPECT_TRUE(of_kind(longer.events, zh::event_kind::ventricular_run).empty());
  EXPECT_EQ(of_kind(longer.events, zh::event_kind::ventricular_couplet).size(), 2u);
  EXPECT_EQ(longer.totals.ventricular.in_couplets, 7);
}

TEST(Holter, BigeminyAndTrigeminyNeedTheirCyclesInARow) {
  builder b;
  b.beats(20, 0.8);
  b.beats(8, 0.8).pattern("NVNVNVNV");  // 4 cycles of bigeminy
  b.beats(20, 0.8);
  b.beats(6, 0.8).pattern("NNVNNV");  // 2 cycles of trigeminy: too few
  b.beats(20, 0.8);
  b.beats(9, 0.8).pattern("NNSNNSNNS");  // 3 cycles of supraventricular trigeminy
  b.beats(20, 0.8);
  const auto events = zh::analyse(b.record()).events;
  const auto bigeminy = of_kind(events, zh::event_kind::ventricular_bigeminy);
  ASSERT_EQ(bigeminy.size(), 1u);
  EXPECT_EQ(bigeminy[0].first_beat, 21);
  EXPECT_EQ(bigeminy[0].last_beat, 28);
  EXPECT_TRUE(of_kind(events, zh::event_kind::ventricular_trigeminy).empty());
  const auto trigeminy = of_kind(events, zh::event_kind::supraventricular_trigeminy);
  ASSERT_EQ(trigeminy.size(), 1u);
  EXPECT_EQ(trigeminy[0].last_beat - trigeminy[0].first_beat + 1, 9);
  // A couplet inside the pattern ends it.
  builder c;
  c.beats(10, 0.8).beats(10, 0.8).pattern("NVNVNVVNVN");
  EXPECT_TRUE(of_kind(zh::analyse(c.record()).events, zh::event_kind::ventricular_bigeminy).empty());
}

TEST(Holter, BradycardiaAndTachycardiaFromAveragedRates) {
  builder b;
  b.beats(30, 0.8).beats(12, 1.6).beats(30, 0.8).beats(16, 0.4).beats(30, 0.8);  // 37.5 bpm, 150 bpm
  const auto a = zh::analyse(b.record());
  const auto brady = of_kind(a.events, zh::event_kind::bradycardia);
  const auto tachy = of_kind(a.events, zh::event_kind::tachycardia);
  ASSERT_EQ(brady.size(), 1u);
  ASSERT_EQ(tachy.size(), 1u);
  EXPECT_NEAR(brady[0].rate_bpm, 37.5, 1e-9);
  EXPECT_NEAR(tachy[0].rate_bpm, 150.0, 1e-9);
  EXPECT_NEAR(a.heart_rate.lowest.bpm, 37.5, 1e-9);
  EXPECT_NEAR(a.heart_rate.highest.bpm, 150.0, 1e-9);
  EXPECT_EQ(a.heart_rate.highest.beat, 30 + 12 + 30 + 8);  // the first average wholly at 150 bpm
  // The stretch starts with the first slow interval and ends at its last slow beat.
  EXPECT_EQ(brady[0].first_beat, 30);
  EXPECT_EQ(brady[0].last_beat, 30 + 12);  // one fast interval brings the average to 40
  // One early beat does not make a tachycardia: the rate is averaged over 8 intervals.
  builder c;
  c.beats(30, 0.8).beats(1, 0.3).beats(1, 1.3).beats(30, 0.8);
  EXPECT_TRUE(of_kind(zh::analyse(c.record()).events, zh::event_kind::tachycardia).empty());
}

TEST(Holter, AfBurdenAndHoursSplitAtTheHour) {
  builder b;
  b.beats(4400, 1.0);                            // 73 minutes at 60 bpm
  const std::int64_t first = 3000, last = 4000;  // AF from 3000 s to 4000 s: 600 s in each hour
  b.af.push_back({"AFIB", first, last, b.peaks[first], b.peaks[last]});
  const auto a = zh::analyse(b.record());
  ASSERT_EQ(a.hours.size(), 2u);
  EXPECT_NEAR(a.hours[0].af_seconds + a.hours[1].af_seconds, 1000.0, 1e-6);
  EXPECT_NEAR(a.hours[0].af_seconds, 3600 - (3000 + 0.2), 1e-6);
  EXPECT_EQ(a.af.episodes, 1);
  EXPECT_NEAR(a.af.seconds, 1000.0, 1e-9);
  EXPECT_NEAR(a.af.percent, 100.0 * 1000.0 / a.duration_seconds, 1e-9);
  EXPECT_EQ(a.af.longest_onset, b.peaks[first]);
  EXPECT_EQ(a.hours[0].beats + a.hours[1].beats, 4401);
  EXPECT_NEAR(a.hours[0].seconds, 3600.0, 1e-9);
  EXPECT_NEAR(a.totals.seconds, a.duration_seconds, 1e-9);
  const auto af = of_kind(a.events, zh::event_kind::atrial_fibrillation);
  ASSERT_EQ(af.size(), 1u);
  EXPECT_NEAR(af[0].rate_bpm, 60.0, 1e-9);
  // N–N intervals leave AF's beats out: 2999 before it, 399 after.
  EXPECT_EQ(a.hrv.intervals, 2999 + 399);
}

TEST(Holter, HrvFollowsTheTaskForceDefinitions) {
  std::mt19937 rng(7);
  std::normal_distribution<double> rr(0.85, 0.05);
  builder b;
  for (int i = 0; i < 1500; ++i) b.beats(1, rr(rng));
  b.beats(1, 0.5, 'V').beats(1, 1.2);  // two intervals out, and the adjacency broken there
  for (int i = 0; i < 1500; ++i) b.beats(1, rr(rng));
  const auto record = b.record();
  const auto nn = zh::normal_intervals(record);
  ASSERT_EQ(nn.milliseconds.size(), 3000u);
  EXPECT_EQ(nn.follows_previous[1500], 0);
  const auto h = zh::time_domain(nn, rate);
  double mean = 0;
  for (double v : nn.milliseconds) mean += v;
  mean /= 3000;
  double ss = 0, sd2 = 0;
  std::int64_t over = 0, pairs = 0;
  for (std::size_t i = 0; i < 3000; ++i) {
    ss += (nn.milliseconds[i] - mean) * (nn.milliseconds[i] - mean);
    if (i == 0 || i == 1500) continue;
    const double d = nn.milliseconds[i] - nn.milliseconds[i - 1];
    sd2 += d * d;
    ++pairs;
    over += std::abs(d) > 50 ? 1 : 0;
  }
  EXPECT_NEAR(h.mean_nn_ms, mean, 1e-9);
  EXPECT_NEAR(h.sdnn_ms, std::sqrt(ss / 2999), 1e-9);
  EXPECT_EQ(h.differences, pairs);
  EXPECT_NEAR(h.rmssd_ms, std::sqrt(sd2 / static_cast<double>(pairs)), 1e-9);
  EXPECT_EQ(h.nn50, over);
  EXPECT_NEAR(h.pnn50_percent, 100.0 * static_cast<double>(over) / 3000, 1e-9);
  EXPECT_GE(h.segments, 7);  // about 42 minutes of 5-minute segments, the last partly covered
  EXPECT_TRUE(std::isfinite(h.sdann_ms));
  EXPECT_TRUE(std::isfinite(h.sdnn_index_ms));
}

TEST(Holter, QBeatsAndUnreadableStretchesLeaveRatesUnmeasured) {
  builder b;
  b.beats(20, 0.8).beats(1, 0.1, 'Q').beats(1, 0.7).beats(20, 0.8);
  const auto a = zh::analyse(b.record());
  EXPECT_NEAR(a.heart_rate.highest.bpm, 75.0, 1e-9);  // the 0.1 s interval is not a rate of 600 bpm
  EXPECT_TRUE(a.events.empty());
  EXPECT_EQ(a.totals.unclassified, 1);
}

TEST(Holter, RefusesRecordsAndParametersOutOfRange) {
  builder b;
  b.beats(10, 0.8);
  auto r = b.record();
  std::string bad = b.classes;
  bad[3] = 'X';
  r.classes = {bad.data(), bad.size()};
  EXPECT_THROW((void)zh::analyse(r), zeroflow::invalid_argument);
  r = b.record();
  r.samples = b.peaks.back();  // the last peak outside
  EXPECT_THROW((void)zh::analyse(r), zeroflow::invalid_argument);
  r = b.record();
  const std::vector<zc::episode> backwards = {{"AFIB", 5, 3, 0, 0}};
  r.af_episodes = backwards;
  EXPECT_THROW((void)zh::analyse(r), zeroflow::invalid_argument);
  zh::holter_params p;
  p.events.bradycardia_bpm = 130;
  EXPECT_THROW((void)zh::analyse(b.record(), p), zeroflow::invalid_argument);
  p = {};
  p.events.run_beats = 2;
  EXPECT_THROW((void)zh::analyse(b.record(), p), zeroflow::invalid_argument);
  p = {};
  p.hrv.min_segment_coverage = 1.5;
  EXPECT_THROW((void)zh::analyse(b.record(), p), zeroflow::invalid_argument);
  // No beats at all: a recording of noise gives empty figures, not an error.
  const zh::beat_record empty{{}, {}, rate, 1000, {}, {}};
  const auto a = zh::analyse(empty);
  EXPECT_TRUE(a.events.empty());
  EXPECT_TRUE(std::isnan(a.heart_rate.mean_bpm));
  EXPECT_EQ(a.hrv.intervals, 0);
}

TEST(Holter, NotableEventsAreTheLongestAndMostExtremeOfEachKind) {
  std::vector<zh::event> events;
  const auto add = [&](std::string_view kind, std::int64_t onset, std::int64_t offset, double rate) {
    events.push_back({kind, 0, 1, onset, offset, rate});
  };
  add(zh::event_kind::pause, 0, 500, 30);               // 0
  add(zh::event_kind::pause, 1000, 1900, 17);           // 1: the longest
  add(zh::event_kind::pause, 3000, 3600, 25);           // 2
  add(zh::event_kind::bradycardia, 4000, 9000, 38);     // 3
  add(zh::event_kind::bradycardia, 9500, 9900, 31);     // 4: the slowest
  add(zh::event_kind::tachycardia, 10000, 10500, 125);  // 5
  add(zh::event_kind::tachycardia, 11000, 11100, 180);  // 6: the fastest
  EXPECT_EQ(zh::notable_events(events, 1), (std::vector<std::size_t>{1, 4, 6}));
  EXPECT_EQ(zh::notable_events(events, 2), (std::vector<std::size_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(zh::notable_events(events, 0), std::vector<std::size_t>{});
}

TEST(Holter, FamiliesCountTheirClassesAndShowMembersFromEverywhere) {
  const std::vector<std::int32_t> family = {0, 0, 2, 0, 2, 0, 2, 2, 0, 5};
  const std::string classes = "NNVNVSVQNQ";
  const auto f = zh::beat_families(family, {classes.data(), classes.size()}, 2);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].id, 0);
  EXPECT_EQ(f[0].beats, 5);
  EXPECT_EQ(f[0].beat_class, 'N');
  EXPECT_EQ(f[0].classes, (std::array<std::int64_t, 4>{4, 1, 0, 0}));
  EXPECT_EQ(f[0].examples, (std::vector<std::int64_t>{0, 3}));  // members 0, 1, 3, 5, 8: the first and the middle one
  EXPECT_EQ(f[1].id, 2);
  EXPECT_EQ(f[1].beat_class, 'V');
  EXPECT_EQ(f[1].classes, (std::array<std::int64_t, 4>{0, 0, 3, 1}));
  EXPECT_EQ(f[2].beat_class, 'Q');
  EXPECT_EQ(f[2].examples, (std::vector<std::int64_t>{9}));
  const std::vector<std::int32_t> negative = {0, -1};
  EXPECT_THROW((void)zh::beat_families(negative, {classes.data(), 2}), zeroflow::invalid_argument);
  EXPECT_THROW((void)zh::beat_families(family, {classes.data(), 3}), zeroflow::invalid_argument);
}

TEST(Holter, RatesAndLengthsBeyondAnEcgAreRefused) {
  builder b;
  b.beats(10, 0.8);
  auto r = b.record();
  r.sample_rate_hz = 1e308;  // a minute of it is no sample at all
  EXPECT_THROW((void)zh::analyse(r), zeroflow::invalid_argument);
  r.sample_rate_hz = 1e-300;  // its samples would last longer than the universe
  EXPECT_THROW((void)zh::analyse(r), zeroflow::invalid_argument);
  r = b.record();
  r.samples = static_cast<std::int64_t>(32 * 86400 * rate);  // 32 days
  EXPECT_THROW((void)zh::analyse(r), zeroflow::invalid_argument);
  r.samples = static_cast<std::int64_t>(30 * 86400 * rate);  // a month-long patch is analysed
  EXPECT_EQ(zh::analyse(r).heart_rate.minutes.size(), 30U * 1440U);
}

TEST(HolterParams, EveryFieldByItsNameOnce) {
  // Python's zeroflow.holter.analyse takes the analysis's parameters by these names: each one
  // reaches its own field, reals and counts where the struct has them.
  zh::holter_params p;
  auto fields = zh::param_fields(p);
  std::set<std::string> names;
  for (const auto& f : fields) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_NE(f.real == nullptr, f.count == nullptr) << f.name;
  }
  EXPECT_EQ(names.size(), 9U);
  zc::find_param(fields, "pause_seconds")->real[0] = 3.5;
  zc::find_param(fields, "run_beats")->count[0] = 5;
  zc::find_param(fields, "successive_difference_ms")->real[0] = 20;
  EXPECT_EQ(p.events.pause_seconds, 3.5);
  EXPECT_EQ(p.events.run_beats, 5);
  EXPECT_EQ(p.hrv.successive_difference_ms, 20);
  EXPECT_EQ(zc::find_param(fields, "pause"), nullptr);
}
