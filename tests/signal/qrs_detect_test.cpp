// detect_qrs against the ground truth of synthetic ECG (zeroflow/synth/ecg.hpp): every true R
// peak matched one to one within ±50 ms and nothing else detected, at 40-180 bpm, several seeds
// and sample rates, with premature ventricular and atrial beats, under heavy noise; the same
// beats for a·x + b and −x, for a recording cut mid-beat, and in stretches of any length; a
// flat recording, a gap of NaN and a baseline step handled; the intermediates checked against
// their definitions (energy, local maxima, amplitude, slope).
#include "zeroflow/signal/qrs_detect.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "signal/robust_reference.hpp"
#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/ricker.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
namespace synth = zeroflow::synth;
using namespace zeroflow::signal::testing;

namespace {

struct ecg_case {
  double rate, bpm, pvc, apb;
  std::uint64_t seed;
};

std::string describe(const ecg_case& c) {
  return std::to_string(static_cast<int>(c.rate)) + " Hz, " + std::to_string(static_cast<int>(c.bpm)) + " bpm, seed " +
         std::to_string(c.seed);
}

synth::ecg_recording make_ecg(const ecg_case& c, double hours) {
  synth::ecg_options o;
  o.hours = hours;
  o.sample_rate = c.rate;
  o.heart_rate_bpm = c.bpm;
  o.anomaly_rate = c.pvc;
  o.apb_rate = c.apb;
  o.seed = c.seed;
  return synth::generate_ecg(o);
}

/// The recording's median, computed here (detect_qrs takes the baseline from its caller).
float median_of(const std::vector<float>& x) {
  return static_cast<float>(ref_median(std::vector<double>(x.begin(), x.end())));
}

std::vector<std::int64_t> detect(const std::vector<float>& x, const sig::segment_params& params, float center) {
  const auto d = sig::detect_qrs(to_array(x), params, center, {});
  return to_vector<std::int64_t>(d.peaks);
}

std::vector<std::int64_t> detect(const std::vector<float>& x, double rate) {
  sig::segment_params params;
  params.sample_rate = rate;
  return detect(x, params, median_of(x));
}

std::int64_t ms(double milliseconds, double rate) { return static_cast<std::int64_t>(milliseconds * 1e-3 * rate); }

void expect_ascending(const std::vector<std::int64_t>& peaks, const std::string& what) {
  for (std::size_t i = 1; i < peaks.size(); ++i)
    ASSERT_LT(peaks[i - 1], peaks[i]) << what << ": peaks " << i - 1 << " and " << i;
}

/// A candidate is the largest energy within ±refractory/2 (0.1 s) and the energy needs the
/// band-pass delay after it: an R peak this close to either end of the recording cannot be
/// detected, and need not be.
std::int64_t edge_margin(double rate) { return ms(110, rate); }

/// The true beats that are not within edge_margin of either end of `samples` samples.
std::vector<std::int64_t> whole_beats(const std::vector<std::int64_t>& truth, std::int64_t samples, double rate) {
  std::vector<std::int64_t> whole;
  for (auto p : truth)
    if (p >= edge_margin(rate) && p < samples - edge_margin(rate)) whole.push_back(p);
  return whole;
}

/// Se = +P = 100 %: every true beat has its detection within ±50 ms, one to one, and nothing else
/// is detected (a beat at the very edge may be found or not).
void expect_all_beats_exactly(const std::vector<std::int64_t>& peaks, const synth::ecg_recording& ecg,
                              const std::string& what) {
  expect_ascending(peaks, what);
  const auto m = match_peaks_one_to_one(peaks, ecg.r_peaks, ms(50, ecg.sample_rate));
  const auto n = static_cast<std::int64_t>(ecg.samples.size());
  const auto missed = whole_beats(m.missed, n, ecg.sample_rate);
  EXPECT_TRUE(missed.empty()) << what << ": " << missed.size() << " of " << ecg.r_peaks.size() << " beats missed, at "
                              << first_values(missed);
  EXPECT_TRUE(m.extra.empty()) << what << ": " << m.extra.size() << " extra detections, at " << first_values(m.extra);
}

}  // namespace

using SignalQrsDetect = poisoned_host;

TEST_F(SignalQrsDetect, FindsEveryBeatOfCleanSyntheticEcg) {
  // Six minutes each: two of the detector's 300 s stretches. Premature ventricular beats up to
  // 90 bpm (see PrematureVentricularBeatsAtFastRates for faster rhythms), atrial ones up to
  // 120 bpm (they come at 55-80 % of the sinus RR, which stays above the 0.25 s in which two
  // beats are not physiological); sinus rhythm alone at 150 and 180 bpm.
  for (const ecg_case c :
       {ecg_case{250, 40, 0.05, 0.0, 1}, ecg_case{250, 60, 0.05, 0.03, 2}, ecg_case{360, 75, 0.08, 0.05, 3},
        ecg_case{500, 90, 0.05, 0.0, 4}, ecg_case{250, 120, 0.0, 0.05, 5}, ecg_case{360, 150, 0.0, 0.0, 6},
        ecg_case{250, 180, 0.0, 0.0, 7}, ecg_case{128, 70, 0.05, 0.0, 8}, ecg_case{1000, 55, 0.1, 0.0, 9}}) {
    const auto ecg = make_ecg(c, 0.1);
    ASSERT_GT(ecg.r_peaks.size(), 200U);
    if (c.pvc > 0) {
      ASSERT_GT(std::count(ecg.labels.begin(), ecg.labels.end(), 'V'), 3) << describe(c);
    }
    expect_all_beats_exactly(detect(ecg.samples, c.rate), ecg, describe(c));
  }
  // More seeds of an ordinary Holter rhythm with both kinds of premature beats.
  for (std::uint64_t seed = 100; seed < 108; ++seed) {
    const ecg_case c{250, 72, 0.06, 0.04, seed};
    const auto ecg = make_ecg(c, 0.1);
    expect_all_beats_exactly(detect(ecg.samples, c.rate), ecg, describe(c));
  }
}

TEST_F(SignalQrsDetect, PrematureVentricularBeatsAtFastRates) {
  // Once a bug: from 100 bpm on, PVCs were rejected as T waves (7 of 285 missed at 100 bpm, 114 of 423
  // at 140): a T wave must now also be much weaker than the beat, not only slower.
  // A PVC comes at 60-70 % of the sinus RR, i.e. within t_wave_seconds (0.36 s) of the beat before
  // it from ~100 bpm on, and its wide QRS is less than half as steep as a sinus QRS, so the T-wave
  // rule drops it although its energy is that of a QRS (4-5 against 5-7; T waves 0.1-0.2).
  // Up to 110 bpm every PVC is found. Faster, a PVC at 60 % of the sinus interval comes within
  // 0.25-0.3 s of the beat before it, where the rules take the weaker of two close peaks for a P
  // or T wave: at 120-140 bpm up to 3 % of the beats (PVCs at 8 %) are still missed.
  for (const double bpm : {100.0, 110.0, 120.0, 140.0}) {
    std::int64_t beats = 0, missed = 0;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const ecg_case c{250, bpm, 0.08, 0.0, seed};
      const auto ecg = make_ecg(c, 0.1);
      const auto peaks = detect(ecg.samples, c.rate);
      if (bpm <= 100) expect_all_beats_exactly(peaks, ecg, describe(c));
      const auto m = match_peaks_one_to_one(peaks, ecg.r_peaks, ms(50, ecg.sample_rate));
      EXPECT_TRUE(m.extra.empty()) << describe(c) << ": " << m.extra.size() << " extra detections";
      beats += static_cast<std::int64_t>(ecg.r_peaks.size());
      missed += static_cast<std::int64_t>(
          whole_beats(m.missed, static_cast<std::int64_t>(ecg.samples.size()), ecg.sample_rate).size());
    }
    const double allowed = bpm <= 110 ? 0.002 : 0.03;
    EXPECT_LE(static_cast<double>(missed), allowed * static_cast<double>(beats))
        << bpm << " bpm: " << missed << " of " << beats << " beats missed";
  }
}

TEST_F(SignalQrsDetect, HeavyNoiseStillFindsNinetyNinePercent) {
  for (const ecg_case c :
       {ecg_case{250, 70, 0.05, 0.03, 11}, ecg_case{360, 100, 0.05, 0.0, 12}, ecg_case{500, 50, 0.05, 0.05, 13}}) {
    synth::ecg_options o;
    o.hours = 0.1;
    o.sample_rate = c.rate;
    o.heart_rate_bpm = c.bpm;
    o.anomaly_rate = c.pvc;
    o.apb_rate = c.apb;
    o.seed = c.seed;
    o.noise_mv = 0.1;              // white noise of a tenth of the R wave
    o.baseline_wander_mv = 0.6;    // strong respiration and movement
    o.mains_mv = 0.1;              // unfiltered mains hum
    o.noise_bursts_per_hour = 60;  // muscle artefacts as large as the QRS
    o.baseline_jumps_per_hour = 30;
    const auto ecg = synth::generate_ecg(o);
    const auto peaks = detect(ecg.samples, c.rate);
    expect_ascending(peaks, describe(c));
    const auto m = match_peaks_one_to_one(peaks, ecg.r_peaks, ms(50, c.rate));
    const double se = static_cast<double>(m.matched) / static_cast<double>(ecg.r_peaks.size());
    const double ppv = static_cast<double>(m.matched) / static_cast<double>(peaks.size());
    EXPECT_GE(se, 0.99) << describe(c) << ": missed " << first_values(m.missed);
    EXPECT_GE(ppv, 0.99) << describe(c) << ": extra " << first_values(m.extra);
    std::cout << "[ info ] heavy noise, " << describe(c) << ": " << ecg.r_peaks.size() << " beats, Se " << se << ", +P "
              << ppv << "\n";
  }
}

TEST_F(SignalQrsDetect, UnitsAndPolarityDoNotMatter) {
  const ecg_case c{250, 80, 0.05, 0.03, 21};
  const auto ecg = make_ecg(c, 0.05);
  sig::segment_params params;
  const float center = median_of(ecg.samples);
  const auto reference = detect(ecg.samples, params, center);
  expect_all_beats_exactly(reference, ecg, "mV");
  for (const auto& [gain, offset] : {std::pair{200.0, 1024.0}, std::pair{0.01, -3.0}, std::pair{1000.0, -5.0e4},
                                     std::pair{-1.0, 0.0}, std::pair{-350.0, 2048.0}}) {
    std::vector<float> scaled(ecg.samples.size());
    for (std::size_t i = 0; i < scaled.size(); ++i)
      scaled[i] = static_cast<float>(gain * static_cast<double>(ecg.samples[i]) + offset);
    const auto peaks = detect(scaled, params, static_cast<float>(gain * center + offset));
    EXPECT_EQ(peaks, reference) << gain << "·x + " << offset;
    // Taking the median of the scaled recording itself changes nothing either.
    EXPECT_EQ(detect(scaled, params, median_of(scaled)), reference) << gain << "·x + " << offset;
  }
}

TEST_F(SignalQrsDetect, RecordingCutMidBeat) {
  const ecg_case c{360, 75, 0.05, 0.0, 31};
  const auto ecg = make_ecg(c, 0.05);
  const auto& r = ecg.r_peaks;
  // Cut 8 ms after the R peak of beat 10 (inside the QRS, on the way down to S) and 15 ms
  // before the R peak of a late beat (on the way up): the partial complexes at either end may
  // be found or not, every whole beat must be.
  for (const auto& [first_cut, last_cut] : {std::pair{r[10] + ms(8, c.rate), r[r.size() - 10] - ms(15, c.rate)},
                                            std::pair{r[3] - ms(40, c.rate), r[r.size() - 4] + ms(60, c.rate)},
                                            std::pair{r[5] + ms(150, c.rate), r[r.size() - 6] + ms(400, c.rate)}}) {
    const std::vector<float> cut(ecg.samples.begin() + first_cut, ecg.samples.begin() + last_cut);
    const auto peaks = detect(cut, c.rate);
    expect_ascending(peaks, "cut");
    std::vector<std::int64_t> truth;  // the true beats in the cut recording's samples, partial ones too
    for (auto p : r) truth.push_back(p - first_cut);
    const auto m = match_peaks_one_to_one(peaks, truth, ms(50, c.rate));
    EXPECT_TRUE(m.extra.empty()) << "cut at " << first_cut << ": extra " << first_values(m.extra);
    const auto n = static_cast<std::int64_t>(cut.size());
    for (auto missed : m.missed)
      EXPECT_TRUE(missed < edge_margin(c.rate) || missed >= n - edge_margin(c.rate))
          << "cut at " << first_cut << ": whole beat at " << missed << " of " << n << " missed";
  }
}

TEST_F(SignalQrsDetect, StretchLengthDoesNotChangeTheBeats) {
  // Many short stretches (every join a chance to drop or double a beat) and one stretch for the
  // whole recording find the same true beats.
  const ecg_case c{250, 100, 0.08, 0.05, 41};
  const auto ecg = make_ecg(c, 0.1);
  const float center = median_of(ecg.samples);
  for (const auto& [stretch, overlap] :
       {std::pair{1e6, 30.0}, std::pair{20.0, 10.0}, std::pair{9.0, 8.0}, std::pair{31.3, 30.0}}) {
    sig::segment_params params;
    params.stretch_seconds = stretch;
    params.overlap_seconds = overlap;
    expect_all_beats_exactly(detect(ecg.samples, params, center), ecg,
                             "stretch " + std::to_string(stretch) + " s, overlap " + std::to_string(overlap) + " s");
  }
}

TEST_F(SignalQrsDetect, SilentRecordingHasNoBeats) {
  for (const float level : {0.0F, 1.0e-30F}) {
    const std::vector<float> x(250 * 120, level);
    const auto d = sig::detect_qrs(to_array(x), {}, level, {});
    EXPECT_EQ(d.peaks.size(), 0) << "level " << level << ": " << first_values(to_vector<std::int64_t>(d.peaks));
    EXPECT_EQ(d.energy.size(), static_cast<std::int64_t>(x.size()));
  }
}

TEST_F(SignalQrsDetect, FlatRecordingsHaveNoBeats) {
  // Once a bug: the band-passed level and center·Σh differed by one float ulp, and the constant energy's
  // single candidate cleared the threshold its own amplitude set.
  for (const float level : {5.0F, -1.0e4F, 3.0e9F}) {
    const std::vector<float> x(250 * 120, level);
    const auto d = sig::detect_qrs(to_array(x), {}, level, {});
    EXPECT_EQ(d.peaks.size(), 0) << "level " << level << ": " << first_values(to_vector<std::int64_t>(d.peaks));
  }
}

TEST_F(SignalQrsDetect, GapOfNaNs) {
  const ecg_case c{250, 70, 0.05, 0.0, 51};
  const auto ecg = make_ecg(c, 0.1);
  for (const auto& [gap_start, gap_seconds] :
       {std::pair{0.3, 20.0}, std::pair{0.5, 2.0}, std::pair{0.0, 15.0}, std::pair{0.9, 400.0}}) {
    auto x = ecg.samples;
    const auto n = static_cast<std::int64_t>(x.size());
    const auto from = static_cast<std::int64_t>(gap_start * static_cast<double>(n));
    const auto to = std::min(n, from + static_cast<std::int64_t>(gap_seconds * c.rate));
    std::fill(x.begin() + from, x.begin() + to, std::numeric_limits<float>::quiet_NaN());
    const auto peaks = detect(x, c.rate);
    const std::string what = "gap [" + std::to_string(from) + ", " + std::to_string(to) + ")";
    expect_ascending(peaks, what);
    for (auto p : peaks) EXPECT_FALSE(p >= from && p < to) << what << ": beat detected inside the gap at " << p;
    // Beats further than 0.5 s from the gap are all found, once.
    const auto margin = ms(500, c.rate);
    std::vector<std::int64_t> outside;
    for (auto p : ecg.r_peaks)
      if (p < from - margin || p >= to + margin) outside.push_back(p);
    std::vector<std::int64_t> detected_outside;
    for (auto p : peaks)
      if (p < from - margin || p >= to + margin) detected_outside.push_back(p);
    const auto m = match_peaks_one_to_one(detected_outside, outside, ms(50, c.rate));
    EXPECT_TRUE(m.missed.empty()) << what << ": missed " << first_values(m.missed);
    EXPECT_TRUE(m.extra.empty()) << what << ": extra " << first_values(m.extra);
  }
  // A recording that is all gap.
  const std::vector<float> gap(250 * 60, std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(sig::detect_qrs(to_array(gap), {}, 0.0F, {}).peaks.size(), 0);
}

TEST_F(SignalQrsDetect, SinusPausesStayEmpty) {
  // Pauses of 2-6 s (sinus arrest) cut into mid-diastole and filled with the baseline and its
  // noise. Once a bug: every candidate of a long pause halved the levels again, until the noise
  // itself passed for a beat. (bench/pause_stress.py adds blocked P waves on real records.)
  const ecg_case c{360, 60, 0.0, 0.0, 81};
  const auto ecg = make_ecg(c, 0.1);
  std::vector<float> x;
  std::vector<std::int64_t> truth;
  std::vector<std::pair<std::int64_t, std::int64_t>> pauses;
  std::uint64_t noise_state = 7;
  const auto noise = [&] {  // uniform in ±0.02 mV, the generator's noise level
    noise_state = noise_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return 0.04F * (static_cast<float>(noise_state >> 40) / static_cast<float>(1ULL << 24) - 0.5F);
  };
  const std::vector<double> lengths{2.0, 3.0, 4.0, 6.0};
  std::size_t from = 0, next_pause = 20;
  std::int64_t shift = 0;
  for (std::size_t k = 0; k + 1 < ecg.r_peaks.size(); ++k) {
    truth.push_back(ecg.r_peaks[k] + shift);
    if (k != next_pause) continue;
    next_pause += 25;
    const auto rr = ecg.r_peaks[k + 1] - ecg.r_peaks[k];
    const auto at = static_cast<std::size_t>(ecg.r_peaks[k] + rr * 6 / 10);
    x.insert(x.end(), ecg.samples.begin() + static_cast<std::ptrdiff_t>(from),
             ecg.samples.begin() + static_cast<std::ptrdiff_t>(at));
    const auto length = static_cast<std::int64_t>(lengths[pauses.size() % lengths.size()] * c.rate);
    const auto start = static_cast<std::int64_t>(x.size());
    for (std::int64_t i = 0; i < length; ++i) x.push_back(ecg.samples[at] + noise());
    pauses.emplace_back(start, start + length);
    shift += length;
    from = at;
  }
  truth.push_back(ecg.r_peaks.back() + shift);
  x.insert(x.end(), ecg.samples.begin() + static_cast<std::ptrdiff_t>(from), ecg.samples.end());
  ASSERT_GE(pauses.size(), 4U);
  const auto peaks = detect(x, c.rate);
  expect_ascending(peaks, "pauses");
  for (auto p : peaks)
    for (const auto& [a, b] : pauses)
      EXPECT_FALSE(p > a + ms(150, c.rate) && p < b - ms(150, c.rate))
          << "beat detected at " << p << " inside the pause [" << a << ", " << b << ")";
  const auto m = match_peaks_one_to_one(peaks, truth, ms(50, c.rate));
  EXPECT_TRUE(whole_beats(m.missed, static_cast<std::int64_t>(x.size()), c.rate).empty())
      << "missed " << first_values(m.missed);
  EXPECT_TRUE(m.extra.empty()) << "extra " << first_values(m.extra);
}

TEST_F(SignalQrsDetect, AWeakerSignalIsFollowedWithinSeconds) {
  // A lead that loses half or two thirds of its amplitude at once (an electrode coming loose, a
  // gain change): the levels come down in the gap without a beat, so the detector follows within
  // seconds; before the drop and 8 s after it, every beat is found and nothing else. (Beyond
  // gap_floor, a sixteenth of the energy, the levels stop coming down: a pause must not let the
  // noise through, so a lead that all but disappears is not followed.)
  const ecg_case c{360, 70, 0.0, 0.0, 91};
  const auto ecg = make_ecg(c, 0.1);
  for (const float factor : {0.5F, 0.3F}) {
    auto x = ecg.samples;
    const auto at = static_cast<std::int64_t>(x.size() / 2);
    for (auto i = static_cast<std::size_t>(at); i < x.size(); ++i) x[i] *= factor;
    const auto peaks = detect(x, c.rate);
    const auto m = match_peaks_one_to_one(peaks, ecg.r_peaks, ms(50, c.rate));
    const auto settled = [&](std::int64_t p) { return p < at || p > at + ms(8000, c.rate); };
    for (auto e : m.extra) EXPECT_FALSE(settled(e)) << "× " << factor << ": extra beat at " << e;
    for (auto e : whole_beats(m.missed, static_cast<std::int64_t>(x.size()), c.rate))
      EXPECT_FALSE(settled(e)) << "× " << factor << ": beat at " << e << " missed";
  }
}

TEST_F(SignalQrsDetect, BaselineStepGivesAtMostOneSpuriousBeat) {
  // Steps the size of electrode motion (the generator's baseline jumps are 0.5-2 mV). The step
  // itself may pass for one beat; a true beat within 0.25 s of it then loses to it (two beats that
  // close are not physiological). Everything further than 1 s from the step is exact.
  const ecg_case c{360, 65, 0.05, 0.0, 61};
  const auto ecg = make_ecg(c, 0.05);
  for (const float step : {2.0F, -3.0F, 1.0F, -1.5F}) {
    for (const double where : {0.37, 0.71, 0.5}) {
      auto x = ecg.samples;
      const auto at = static_cast<std::int64_t>(where * static_cast<double>(x.size()));
      for (auto i = static_cast<std::size_t>(at); i < x.size(); ++i) x[i] += step;
      const auto peaks = detect(x, c.rate);
      const std::string what = "step of " + std::to_string(step) + " mV at " + std::to_string(at);
      expect_ascending(peaks, what);
      const auto m = match_peaks_one_to_one(peaks, ecg.r_peaks, ms(50, c.rate));
      const auto near = [&](std::int64_t p) { return std::abs(p - at) <= ms(1000, c.rate); };
      EXPECT_LE(m.extra.size(), 1U) << what << ": extra " << first_values(m.extra);
      EXPECT_LE(m.missed.size(), 1U) << what << ": missed " << first_values(m.missed);
      for (auto e : m.extra) EXPECT_TRUE(near(e)) << what << ": extra beat at " << e << ", far from the step";
      for (auto e : whole_beats(m.missed, static_cast<std::int64_t>(x.size()), c.rate))
        EXPECT_TRUE(near(e)) << what << ": beat at " << e << " missed, far from the step";
    }
  }
}

TEST_F(SignalQrsDetect, BaselineFarFromTheMedianKeepsBeatsInPlace) {
  // Once a bug: the Ricker taps do not sum to 0 (Σh ≈ 0.1), so a baseline 10 mV from the recording's
  // median moved the energy maximum of a wide QRS by 56 ms; the energy now uses the zero-mean kernel.
  const ecg_case c{360, 65, 0.05, 0.0, 61};
  const auto ecg = make_ecg(c, 0.05);
  for (const float step : {10.0F, -10.0F}) {
    auto x = ecg.samples;
    const auto at = static_cast<std::int64_t>(0.37 * static_cast<double>(x.size()));
    for (auto i = static_cast<std::size_t>(at); i < x.size(); ++i) x[i] += step;
    const auto peaks = detect(x, c.rate);
    const auto m = match_peaks_one_to_one(peaks, ecg.r_peaks, ms(50, c.rate));
    const auto far = [&](std::int64_t p) { return std::abs(p - at) > ms(1000, c.rate); };
    for (auto e : m.extra) EXPECT_FALSE(far(e)) << "step " << step << ": extra beat at " << e;
    for (auto e : whole_beats(m.missed, static_cast<std::int64_t>(x.size()), c.rate))
      EXPECT_FALSE(far(e)) << "step " << step << ": beat at " << e << " missed";
  }
}

// The energy's window sum slides from one output to the next: a gap (NaN) or an infinity in
// the raw signal must silence exactly the outputs whose window holds it, also across the runs
// the work is cut into, and a window wider than a run must still sum every sample in it.
TEST_F(SignalQrsDetect, EnergyWindowsSlideOverGapsAndRuns) {
  std::mt19937_64 rng(907);
  std::normal_distribution<float> normal(0.2F, 1.0F);
  for (const std::int64_t width : {1, 30, 1500, 5000}) {
    const std::int64_t n = 12000;
    const std::int64_t delay = (width - 1) / 2;
    std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
    for (auto& v : x) v = normal(rng);
    for (auto& v : y) v = 3.0F * normal(rng);
    const std::vector<std::int64_t> bad_at{100, 1023, 1024, 4000, 9000};
    x[100] = std::numeric_limits<float>::quiet_NaN();
    x[1023] = std::numeric_limits<float>::infinity();
    x[1024] = -std::numeric_limits<float>::infinity();
    x[4000] = std::numeric_limits<float>::quiet_NaN();
    x[9000] = std::numeric_limits<float>::quiet_NaN();
    const double mean_tap = 0.05;
    const auto energy =
        to_vector<float>(sig::detail::qrs_energy_host(to_array(x), to_array(y), width, delay, mean_tap, {}));
    ASSERT_EQ(static_cast<std::int64_t>(energy.size()), n);
    std::int64_t silenced = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t at = i + delay;
      const auto e = energy[static_cast<std::size_t>(i)];
      if (at < width - 1 || at >= n) {
        ASSERT_EQ(e, 0.0F) << "width " << width << ", output " << i;
        continue;
      }
      const bool gap =
          std::any_of(bad_at.begin(), bad_at.end(), [&](std::int64_t b) { return b <= at && b > at - width; });
      if (gap) {
        ASSERT_EQ(e, 0.0F) << "width " << width << ", output " << i;
        ++silenced;
        continue;
      }
      double window = 0;  // the direct sum, in double
      for (std::int64_t k = at - width + 1; k <= at; ++k) window += x[static_cast<std::size_t>(k)];
      const double v = static_cast<double>(y[static_cast<std::size_t>(at)]) - mean_tap * window;
      ASSERT_NEAR(std::sqrt(static_cast<double>(e)), std::fabs(v), 1e-6 * (1 + std::fabs(v)))
          << "width " << width << ", output " << i;
    }
    EXPECT_GT(silenced, 0) << width;
  }
}

TEST_F(SignalQrsDetect, IntermediatesFollowTheirDefinitions) {
  const ecg_case c{250, 90, 0.05, 0.05, 71};
  const auto ecg = make_ecg(c, 0.02);
  const auto& x = ecg.samples;
  const auto n = static_cast<std::int64_t>(x.size());
  sig::segment_params params;
  const float center = median_of(x);
  const auto d = sig::detect_qrs(to_array(x), params, center, {});
  const auto sizes = sig::sizes_for(params);
  const auto filtered = to_vector<float>(d.filtered);
  const auto energy = to_vector<float>(d.energy);
  ASSERT_EQ(static_cast<std::int64_t>(filtered.size()), n);
  ASSERT_EQ(static_cast<std::int64_t>(energy.size()), n);
  // Filtered: the direct circular convolution with the Ricker kernel (ricker.hpp), in double.
  const auto kernel = to_vector<float>(sig::ricker_kernel(sizes.ricker_width, zf::cpu_device, {}));
  double kernel_sum = 0;
  for (float k : kernel) kernel_sum += k;
  for (std::int64_t i = 0; i < n; i += 7) {
    double y = 0;
    for (std::size_t k = 0; k < kernel.size(); ++k)
      y += static_cast<double>(kernel[k]) * x[static_cast<std::size_t>((i - static_cast<std::int64_t>(k) + n) % n)];
    ASSERT_NEAR(filtered[static_cast<std::size_t>(i)], y, 1e-6 * (1 + std::fabs(y))) << i;
  }
  // Energy: the squared response to the zero-mean kernel, y[at] − (Σh / width) · Σ x[at − k], moved
  // back by the delay; 0 where the circular wrap or the end leaves it undefined.
  const std::int64_t delay = (sizes.ricker_width - 1) / 2;
  const double mean_tap = kernel_sum / static_cast<double>(sizes.ricker_width);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t at = i + delay;
    if (at < sizes.ricker_width - 1 || at >= n) {
      ASSERT_EQ(energy[static_cast<std::size_t>(i)], 0.0F) << i;
      continue;
    }
    double window = 0;
    for (std::int64_t k = 0; k < sizes.ricker_width; ++k) window += x[static_cast<std::size_t>(at - k)];
    const double v = static_cast<double>(filtered[static_cast<std::size_t>(at)]) - mean_tap * window;
    if (energy[static_cast<std::size_t>(i)] == 0.0F) {  // within rounding of the two terms
      ASSERT_LE(std::fabs(v), 2e-5 * (std::fabs(filtered[static_cast<std::size_t>(at)]) + std::fabs(mean_tap * window)))
          << i;
      continue;
    }
    // The float energy against double: its rounding, and that of the band-passed level.
    const double scale = std::fabs(filtered[static_cast<std::size_t>(at)]) + std::fabs(mean_tap * window);
    ASSERT_NEAR(std::sqrt(energy[static_cast<std::size_t>(i)]), std::fabs(v), 1e-5 * scale + 1e-6 * std::fabs(v)) << i;
  }
  // Candidates: ascending local maxima of the energy, each the largest within ±refractory/2;
  // amplitude the energy there, slope max |x[i+1] − x[i−1]| / 2 within ±slope_half_window.
  const auto candidates = to_vector<std::int64_t>(d.candidates);
  const auto amplitude = to_vector<float>(d.amplitude);
  const auto slope = to_vector<float>(d.slope);
  ASSERT_EQ(amplitude.size(), candidates.size());
  ASSERT_EQ(slope.size(), candidates.size());
  ASSERT_GT(candidates.size(), ecg.r_peaks.size());
  const std::int64_t half = sizes.refractory / 2, h = sizes.slope_half_window;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const std::int64_t at = candidates[k];
    ASSERT_TRUE(at >= 0 && at < n) << k;
    if (k) {
      ASSERT_GT(at, candidates[k - 1]) << k;
    }
    ASSERT_EQ(amplitude[k], energy[static_cast<std::size_t>(at)]) << k;
    // The seed's gate tests the element (window + 1) / 2 into its window: [at − half − 1, at + half − 1].
    for (std::int64_t j = std::max<std::int64_t>(0, at - half - 1); j <= std::min(n - 1, at + half - 1); ++j)
      ASSERT_GE(energy[static_cast<std::size_t>(at)], energy[static_cast<std::size_t>(j)]) << "candidate " << at;
    double steepest = 0;
    for (std::int64_t i = std::max<std::int64_t>(1, at - h); i <= std::min(n - 2, at + h); ++i)
      steepest = std::max(steepest, 0.5 * std::fabs(static_cast<double>(x[static_cast<std::size_t>(i + 1)]) -
                                                    x[static_cast<std::size_t>(i - 1)]));
    ASSERT_NEAR(slope[k], steepest, 2.5e-7 * steepest) << "candidate " << at;
  }
  // Beats are some of the candidates, at least refractory apart.
  const auto peaks = to_vector<std::int64_t>(d.peaks);
  for (std::size_t i = 0; i < peaks.size(); ++i) {
    EXPECT_TRUE(std::binary_search(candidates.begin(), candidates.end(), peaks[i])) << peaks[i];
    if (i) {
      EXPECT_GE(peaks[i] - peaks[i - 1], sizes.refractory) << peaks[i];
    }
  }
  expect_all_beats_exactly(peaks, ecg, "intermediates");
}

TEST_F(SignalQrsDetect, StridedInputAndRefusedArguments) {
  const auto ecg = make_ecg({250, 70, 0.05, 0.0, 81}, 0.02);
  std::vector<float> two_leads;
  for (float v : ecg.samples) two_leads.push_back(v), two_leads.push_back(-7.0F * v);
  const float center = median_of(ecg.samples);
  const auto lead0 = to_array(two_leads).slice(0, 0, static_cast<std::int64_t>(two_leads.size()), 2);
  EXPECT_EQ(to_vector<std::int64_t>(sig::detect_qrs(lead0, {}, center, {}).peaks), detect(ecg.samples, {}, center));

  const auto x = to_array(ecg.samples);
  EXPECT_THROW((void)sig::detect_qrs(to_array(std::vector<float>(20, 1.0F)), {}, 0.0F, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::detect_qrs(to_array(std::vector<double>(5000, 1.0)), {}, 0.0F, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::detect_qrs(x.reshape({2, x.size() / 2}), {}, 0.0F, {}), zf::invalid_argument);
  sig::segment_params bad;
  bad.sample_rate = 0;
  EXPECT_THROW((void)sig::detect_qrs(x, bad, 0.0F, {}), zf::invalid_argument);
  bad = {};
  bad.overlap_seconds = 4;  // shorter than learn_seconds
  EXPECT_THROW((void)sig::detect_qrs(x, bad, 0.0F, {}), zf::invalid_argument);
  bad = {};
  bad.refractory_seconds = -0.2;
  EXPECT_THROW((void)sig::detect_qrs(x, bad, 0.0F, {}), zf::invalid_argument);
}
