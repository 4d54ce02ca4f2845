// The parts of the class rule that look beyond one beat: the recording's dominant bound, the
// families of unlike QRS shapes, and supraventricular runs measured against the rhythm before them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "classify/features.hpp"
#include "zeroflow/classify/param_names.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zc = zeroflow::classify;
namespace zd = zeroflow::classify::detail;

namespace {

constexpr double rate = 250;

/// A QRS-like segment: a bump of the given width and sign, with a little noise.
std::vector<float> segment(double width, double sign, std::mt19937& rng, std::int64_t length = 63) {
  std::normal_distribution<double> noise(0.0, 0.02);
  std::vector<float> s(static_cast<std::size_t>(length));
  for (std::int64_t i = 0; i < length; ++i) {
    const double t = static_cast<double>(i - 25) / rate;
    s[static_cast<std::size_t>(i)] = static_cast<float>(sign * std::exp(-0.5 * t * t / (width * width)) + noise(rng));
  }
  return s;
}

}  // namespace

TEST(DominantBound, FollowsHowAlikeTheRecordingsBeatsAre) {
  const zc::class_params p;
  std::mt19937 rng(3);
  std::normal_distribution<double> tight(0.995, 0.002), loose(0.93, 0.03);
  std::vector<float> alike, noisy;
  for (int i = 0; i < 2000; ++i) {
    alike.push_back(static_cast<float>(std::min(1.0, tight(rng))));
    noisy.push_back(static_cast<float>(std::min(1.0, loose(rng))));
  }
  // Tight normal beats: the bound rises to the ceiling, so a beat at 0.9 is unlike.
  EXPECT_DOUBLE_EQ(zd::dominant_bound(alike, p), p.shape.dominant_max_correlation);
  // Noisy normal beats: never below the floor.
  EXPECT_DOUBLE_EQ(zd::dominant_bound(noisy, p), p.shape.dominant_min_correlation);
  // In between: the median less ten robust deviations.
  std::normal_distribution<double> middle(0.97, 0.003);
  std::vector<float> between;
  for (int i = 0; i < 2000; ++i) between.push_back(static_cast<float>(middle(rng)));
  EXPECT_NEAR(zd::dominant_bound(between, p), 0.97 - 10 * 0.003, 0.005);
}

TEST(ShapeFamilies, GroupsLikeShapesInBeatOrder) {
  std::mt19937 rng(5);
  std::vector<float> segments;
  const std::vector<int> kind = {0, 1, 0, 2, 1, 0, 2, 2, 1, 0};  // wide positive, narrow negative, wide negative
  for (int k : kind) {
    const auto s = k == 0 ? segment(0.04, 1, rng) : k == 1 ? segment(0.01, -1, rng) : segment(0.04, -1, rng);
    segments.insert(segments.end(), s.begin(), s.end());
  }
  const auto family = zd::shape_families(segments, 63, 0.8, 64);
  ASSERT_EQ(family.size(), kind.size());
  // Families are numbered as they first appear; like shapes share one.
  EXPECT_EQ(family, (std::vector<std::int32_t>{0, 1, 0, 2, 1, 0, 2, 2, 1, 0}));
  // With room for one family only, everything joins it.
  const auto one = zd::shape_families(segments, 63, 0.8, 1);
  for (auto f : one) EXPECT_EQ(f, 0);
}

TEST(SupraventricularRuns, ARunIsMeasuredAgainstTheRhythmBeforeIt) {
  zc::class_params p;
  // 40 beats at 0.8 s, a regular run of 30 at 0.5 s, 40 more at 0.8 s; then irregular fast
  // beats (as in undetected AF): no run goes on, only a beat early on its own (< 0.75 × 0.8 s) is S.
  std::vector<double> rr;
  for (int i = 0; i < 40; ++i) rr.push_back(0.8);
  for (int i = 0; i < 30; ++i) rr.push_back(0.5);
  for (int i = 0; i < 40; ++i) rr.push_back(0.8);
  const std::vector<double> irregular = {0.5, 0.62, 0.45, 0.66, 0.5, 0.7, 0.48};
  rr.insert(rr.end(), irregular.begin(), irregular.end());
  for (int i = 0; i < 10; ++i) rr.push_back(0.8);
  const std::size_t n = rr.size();
  std::vector<std::int64_t> peaks(n);
  std::int64_t t = 100;
  for (std::size_t b = 0; b < n; ++b) peaks[b] = t += static_cast<std::int64_t>(std::llround(rr[b] * rate));
  const std::vector<std::uint8_t> dominant(n, 1), in_af(n, 0);
  // The local median inside a long run is the run's own rhythm: it sees nothing early there.
  const std::vector<double> fallback(n, 0.5);
  const auto run = zd::supraventricular_runs(rr, peaks, rate, dominant, in_af, fallback, p);
  for (std::size_t b = 0; b < n; ++b) {
    const bool in_regular_run = b >= 40 && b < 70;
    const bool early_on_its_own = b >= 110 && b < 117 && rr[b] < p.runs.onset_ratio * 0.8;
    EXPECT_EQ(run[b] != 0, in_regular_run || early_on_its_own) << "beat " << b;
  }
  // Inside AF there are no runs.
  const std::vector<std::uint8_t> all_af(n, 1);
  for (auto v : zd::supraventricular_runs(rr, peaks, rate, dominant, all_af, fallback, p)) EXPECT_EQ(v, 0);
}

TEST(ClassParams, EveryPartIsCheckedAndNamed) {
  EXPECT_NO_THROW(zc::check_class_params({}));
  const auto refused = [](auto change, const char* name) {
    zc::class_params p;
    change(p);
    try {
      zc::check_class_params(p);
      ADD_FAILURE() << name << " was accepted";
    } catch (const zeroflow::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  };
  refused([](zc::class_params& p) { p.shape.dominant_max_correlation = 0.5; }, "shape.dominant_max_correlation");
  refused([](zc::class_params& p) { p.shape.family_ventricular_share = 1.5; }, "shape.family_ventricular_share");
  refused([](zc::class_params& p) { p.shape.family_min_voters = 0; }, "shape.family_min_voters");
  refused([](zc::class_params& p) { p.shape.max_families = 0; }, "shape.max_families");
  refused([](zc::class_params& p) { p.shape.other_lead_min_deviation = -1; }, "shape.other_lead_min_deviation");
  refused([](zc::class_params& p) { p.shape.unconfirmed_v_min_clarity = -1; }, "shape.unconfirmed_v_min_clarity");
  refused([](zc::class_params& p) { p.shape.smallest_qrs_fraction = std::nan(""); }, "shape.smallest_qrs_fraction");
  refused([](zc::class_params& p) { p.timing.ventricular_pause_ratio = 0.9; }, "timing.ventricular_pause_ratio");
  refused([](zc::class_params& p) { p.timing.premature_with_p_ratio = 0.8; }, "timing.premature_with_p_ratio");
  refused([](zc::class_params& p) { p.timing.local_rhythm_beats = 0; }, "timing.local_rhythm_beats");
  refused([](zc::class_params& p) { p.runs.onset_ratio = 0; }, "runs.onset_ratio");
  refused([](zc::class_params& p) { p.runs.reference_seconds = 0; }, "runs.reference_seconds");
  refused([](zc::class_params& p) { p.af.irregular_share = 1; }, "irregular_share");
  refused([](zc::class_params& p) { p.af.distinct_pair_share_min = std::nan(""); }, "distinct_pair_share_min");
  refused([](zc::class_params& p) { p.quality.min_clarity = -1; }, "quality.min_clarity");
  refused([](zc::class_params& p) { p.quality.quiet_slope_ratio = 0.6; }, "quality.quiet_slope_ratio");
}

// The echo of a row (clarity_row.hpp) and the stretches it makes (features.hpp): a second QRS-like
// bump 0.25 s after the R peak, every beat, is a stretch; a slow T wave is not; the parts that reach
// the next beat's QRS are not looked at; beats without signal, or unreadable and steep all along,
// break a stretch, while unreadable beats quiet after their second QRS join it. On a GPU the same bits.
TEST(FastRhythm, ASecondQrsInEveryRowMakesAStretch) {
  const std::int64_t before = 62, after = 112, width = before + after;  // 0.25 s and 0.45 s at 250 Hz
  const auto bump = [](std::vector<float>& row, std::int64_t at, double sigma, double height) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      const double t = (static_cast<double>(i) - static_cast<double>(at)) / rate;
      row[i] += static_cast<float>(height * std::exp(-0.5 * t * t / (sigma * sigma)));
    }
  };
  const std::int64_t beats = 20;
  std::vector<float> rows(static_cast<std::size_t>(beats * width), 0.0F);
  std::vector<std::int64_t> peaks;
  for (std::int64_t b = 0; b < beats; ++b) {
    std::vector<float> row(static_cast<std::size_t>(width), 0.0F);
    bump(row, before, 0.012, 1.0);  // the QRS
    if (b < 12)
      bump(row, before + 62, 0.012, 0.9);  // another QRS 0.25 s later: every other beat of 240 bpm
    else
      bump(row, before + 62, 0.06, 0.5);  // a T wave: slow
    std::copy(row.begin(), row.end(), rows.begin() + b * width);
    peaks.push_back(1000 + 125 * b);  // the beats found: 0.5 s apart
  }
  const zc::beat_rows view{rows, width, before, after};
  const auto w = zd::echo_window_of(view, rate);
  const auto echo = zd::echo(view, beats, w);
  ASSERT_EQ(echo.size(), static_cast<std::size_t>(beats * zd::echo_parts));
  EXPECT_GT(echo[2], 0.5F);                        // the part from 0.25 s to 0.30 s of beat 0
  EXPECT_LT(echo[12 * zd::echo_parts + 2], 0.1F);  // a T wave's slope is a fraction of the QRS's
  std::vector<double> rr_after(static_cast<std::size_t>(beats), 0.5);
  const std::vector<std::uint8_t> with_signal(static_cast<std::size_t>(beats), 0);
  std::vector<std::uint8_t> unreadable(static_cast<std::size_t>(beats), 0);
  const zc::quality_params p;
  const auto found = zd::fast_rhythm_stretches(echo, rr_after, peaks, with_signal, unreadable, p);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].first_beat, 0);
  EXPECT_EQ(found[0].last_beat, 11);
  EXPECT_EQ(found[0].onset, peaks[0]);
  // The next beat 0.28 s on: the second QRS is that beat, not looked at.
  EXPECT_TRUE(zd::fast_rhythm_stretches(echo, std::vector<double>(static_cast<std::size_t>(beats), 0.28), peaks,
                                        with_signal, unreadable, p)
                  .empty());
  // A beat without signal in the middle leaves two runs of six: too short.
  std::vector<std::uint8_t> lead_off = with_signal;
  lead_off[6] = 1;
  EXPECT_TRUE(zd::fast_rhythm_stretches(echo, rr_after, peaks, lead_off, unreadable, p).empty());
  // A beat unreadable by its clarity whose row is quiet after the second QRS is crowded by the
  // faster rhythm's complexes, not noise: it stays in the stretch and becomes readable.
  unreadable[6] = 1;
  ASSERT_EQ(zd::fast_rhythm_stretches(echo, rr_after, peaks, with_signal, unreadable, p).size(), 1U);
  EXPECT_EQ(unreadable[6], 0);
  // One steep everywhere after its QRS (noise: a 20 Hz oscillation as steep as the QRS) breaks the run.
  std::vector<float> noisy_rows = rows;
  for (std::int64_t i = before + 25; i < width; ++i)
    noisy_rows[static_cast<std::size_t>(6 * width + i)] +=
        static_cast<float>(0.5 * std::sin(2 * std::numbers::pi * 20.0 * static_cast<double>(i) / rate));
  const auto noisy_echo = zd::echo(zc::beat_rows{noisy_rows, width, before, after}, beats, w);
  unreadable[6] = 1;
  EXPECT_TRUE(zd::fast_rhythm_stretches(noisy_echo, rr_after, peaks, with_signal, unreadable, p).empty());
  EXPECT_EQ(unreadable[6], 1);
  if (!zeroflow::cuda_available()) return;
  zeroflow::array host_rows = zeroflow::empty({beats, width}, zeroflow::float32, zeroflow::cpu_device);
  std::copy(rows.begin(), rows.end(), host_rows.data_as<float>());
  const auto gpu = zd::cuda_measurements(zeroflow::copy_to(host_rows, zeroflow::cuda_device(0)), view, rate, 2048, {});
  EXPECT_EQ(gpu->echo(), echo);
}

// Unreadable stretches (features.hpp): the median clarity of ±stretch_beats beats under the bound;
// a few readable beats between two unreadable stretches are unreadable too, while a longer run of
// readable beats stays readable.
TEST(UnreadableBeats, AFewClearBeatsInsideNoiseDoNotSplitIt) {
  const zc::quality_params p;  // stretch_beats 4, min_clarity 10
  const auto as_text = [](const std::vector<std::uint8_t>& v) {
    std::string s;
    for (const auto m : v) s += m ? 'u' : '.';
    return s;
  };
  const auto clear_at = [](std::initializer_list<int> beats) {
    std::vector<float> clarity(40, 5.0F);  // noise
    for (const int b : beats) clarity[static_cast<std::size_t>(b)] = 40.0F;
    return clarity;
  };
  // Five clear beats of nine around beats 18 to 20 only: the median alone reads those three.
  EXPECT_EQ(as_text(zd::unreadable_beats(clear_at({16, 19, 20, 21, 22}), p)), std::string(40, 'u'));
  // Thirteen clear beats in a row: all thirteen are read.
  EXPECT_EQ(as_text(zd::unreadable_beats(clear_at({14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26}), p)),
            std::string(14, 'u') + std::string(13, '.') + std::string(13, 'u'));
}

// Stretches without a beat for longer than quality.beatless_seconds (beat_classes.hpp): from the
// recording's start, between two beats and to its end, each from the sample after a beat to the
// one before the next; a pause shorter than the bound is none.
TEST(BeatlessStretches, LongGapsWithoutABeatAreStretchesWithoutEcg) {
  const double rate = 100;
  const std::int64_t samples = 10'000;  // 100 s
  zc::quality_params p;
  p.beatless_seconds = 30;
  // A beat every second from 35 s to 50 s, an 8 s pause, then beats to 60 s; nothing after.
  std::vector<std::int64_t> peaks;
  for (std::int64_t t = 35; t <= 50; ++t) peaks.push_back(t * 100);
  for (std::int64_t t = 58; t <= 60; ++t) peaks.push_back(t * 100);
  const auto found = zc::beatless_stretches(peaks, samples, rate, p);
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0].first, 0);
  EXPECT_EQ(found[0].last, 3499);
  EXPECT_EQ(found[1].first, 6001);
  EXPECT_EQ(found[1].last, samples - 1);
  // The gap to the end is exactly 40 s: with the bound at 40 s it is no stretch, nor is the start's.
  p.beatless_seconds = 40;
  EXPECT_TRUE(zc::beatless_stretches(peaks, samples, rate, p).empty());
  // Between two beats 31 s apart.
  p.beatless_seconds = 30;
  const std::vector<std::int64_t> apart{100, 3200, 5000, 7000, 9000};
  const auto between = zc::beatless_stretches(apart, samples, rate, p);
  ASSERT_EQ(between.size(), 1U);
  EXPECT_EQ(between[0].first, 101);
  EXPECT_EQ(between[0].last, 3199);
  p.beatless_seconds = 0.5;
  EXPECT_THROW((void)zc::beatless_stretches(apart, samples, rate, p), zeroflow::invalid_argument);
  EXPECT_THROW((void)zc::beatless_stretches(apart, samples, 0, zc::quality_params{}), zeroflow::invalid_argument);
}

// The parameters by name (param_names.hpp): every field once, NAME=VALUE pairs set and checked,
// the changed ones given back in the same form.
TEST(ClassParamNames, PairsSetTheNamedFieldsAndComeBackAsChanged) {
  zc::class_params p;
  const auto fields = zc::param_fields(p);
  std::vector<std::string> names;
  for (const auto& f : fields) {
    EXPECT_NE(f.real == nullptr, f.count == nullptr) << f.name;
    names.push_back(f.name);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  EXPECT_EQ(zc::changed_class_params(p), "");
  zc::set_class_params(p, "timing.one_cue_min_clarity=12.5,af.window_beats=24,,quality.beatless_seconds=45");
  EXPECT_EQ(p.timing.one_cue_min_clarity, 12.5);
  EXPECT_EQ(p.af.window_beats, 24);
  EXPECT_EQ(p.quality.beatless_seconds, 45);
  const std::string changed = zc::changed_class_params(p);
  zc::class_params again;
  zc::set_class_params(again, changed);
  EXPECT_EQ(zc::changed_class_params(again), changed);
  EXPECT_EQ(again.af.window_beats, 24);
  zc::set_class_params(again, "af.distinct_pair_share_min=0.5");
  EXPECT_EQ(again.af.distinct_pair_share_min, 0.5);
  const auto refused = [](const char* pairs, const char* says) {
    zc::class_params q;
    try {
      zc::set_class_params(q, pairs);
      ADD_FAILURE() << pairs << " was taken";
    } catch (const zeroflow::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("timing.nothing=1", "no class parameter is named 'timing.nothing'");
  refused("af.window_beats=2.5", "not a whole number");
  refused("timing.premature_ratio=abc", "not a number");
  refused("timing.premature_ratio", "is not NAME=VALUE");
  refused("timing.premature_ratio=3", "timing.premature_ratio");
}
