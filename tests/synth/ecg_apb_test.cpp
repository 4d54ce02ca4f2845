// Atrial premature beats of the synthetic ECG: how many, when they come, what they look like.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "synth/synth_test_helpers.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;
namespace synth = zeroflow::synth;
using synth::testing::correlation;
using synth::testing::count_label;
using synth::testing::median;
using synth::testing::noiseless;
using synth::testing::options_for;
using synth::testing::window;

namespace {

bool ectopic(char label) { return label == 'A' || label == 'V'; }

/// RR intervals (samples) before and after beat i, and the median RR between two normal beats
/// among the ten beats either side: the local sinus rhythm.
struct rhythm_around {
  double before, after, local;
};

rhythm_around rhythm_at(const synth::ecg_recording& r, std::size_t i) {
  std::vector<double> normal_rr;
  const std::size_t lo = i >= 10 ? i - 10 : 0, hi = std::min(r.labels.size() - 1, i + 10);
  for (std::size_t k = lo + 1; k <= hi; ++k)
    if (r.labels[k] == 'N' && r.labels[k - 1] == 'N') normal_rr.push_back(double(r.r_peaks[k] - r.r_peaks[k - 1]));
  return {double(r.r_peaks[i] - r.r_peaks[i - 1]), double(r.r_peaks[i + 1] - r.r_peaks[i]), median(normal_rr)};
}

}  // namespace

TEST(SynthApb, OffByDefaultSoOldSeedsKeepTheirRecording) {
  const synth::ecg_options defaults;
  EXPECT_EQ(defaults.apb_rate, 0.0);
  EXPECT_EQ(defaults.noise_bursts_per_hour, 0.0);
  EXPECT_EQ(defaults.baseline_jumps_per_hour, 0.0);
  const auto r = synth::generate_ecg(options_for(0.5, 42));
  EXPECT_EQ(count_label(r, 'A'), 0);
  EXPECT_TRUE(r.artefacts.empty());
  // Asking for none explicitly is the same recording, bit for bit.
  auto o = options_for(0.5, 42);
  o.apb_rate = 0.0;
  o.noise_bursts_per_hour = 0.0;
  o.baseline_jumps_per_hour = 0.0;
  const auto same = synth::generate_ecg(o);
  EXPECT_EQ(same.samples, r.samples);
  EXPECT_EQ(same.r_peaks, r.r_peaks);
  EXPECT_EQ(same.labels, r.labels);
}

TEST(SynthApb, FractionWithinStatisticalBoundsAndNeverTwoEctopicBeatsInARow) {
  for (double rate : {0.02, 0.1, 0.3}) {
    auto o = options_for(3.0, 23);
    o.apb_rate = rate;
    o.anomaly_rate = 0.03;
    const auto r = synth::generate_ecg(o);
    const double n = double(r.labels.size());
    const double a = double(count_label(r, 'A')), v = double(count_label(r, 'V'));
    EXPECT_NEAR(a, n * rate, 5 * std::sqrt(n * rate * (1 - rate)) + 1) << "rate " << rate;
    EXPECT_NEAR(v, n * 0.03, 5 * std::sqrt(n * 0.03 * 0.97) + 1) << "rate " << rate;
    for (std::size_t i = 1; i < r.labels.size(); ++i)
      ASSERT_FALSE(ectopic(r.labels[i]) && ectopic(r.labels[i - 1])) << "two ectopic beats in a row at " << i;
  }
}

TEST(SynthApb, EarlyAndWithoutCompensatoryPause) {
  // Without heart-rate variability the pattern is exact: coupling 55-80 % of the RR, and the
  // next beat about one RR after the APB (the sinus node restarts from it), so before + after
  // stays well short of the two RRs of a compensatory pause.
  auto o = options_for(1.0, 31);
  o.hrv = 0.0;
  o.apb_rate = 0.1;
  const auto flat = synth::generate_ecg(o);
  const double rr0 = 60.0 / o.heart_rate_bpm * o.sample_rate;
  int checked = 0;
  for (std::size_t i = 1; i + 1 < flat.labels.size(); ++i) {
    if (flat.labels[i] != 'A') continue;
    const double before = double(flat.r_peaks[i] - flat.r_peaks[i - 1]);
    const double after = double(flat.r_peaks[i + 1] - flat.r_peaks[i]);
    EXPECT_GE(before, 0.55 * rr0 - 1) << i;
    EXPECT_LE(before, 0.80 * rr0 + 1) << i;
    EXPECT_GE(after, 0.98 * rr0) << i;
    EXPECT_LE(after, 1.10 * rr0) << i;
    EXPECT_LT(before + after, 1.9 * rr0) << i;
    ++checked;
  }
  EXPECT_GT(checked, 300);

  // With variability, against the local sinus RR; PVCs of the same recording keep their full
  // compensatory pause, which is what tells the two apart by rhythm.
  o.hrv = 0.05;
  o.anomaly_rate = 0.05;
  const auto r = synth::generate_ecg(o);
  double apb_sum = 0, pvc_sum = 0, coupling_min = 1e9, coupling_max = 0;
  int apbs = 0, pvcs = 0, late_apbs = 0;
  for (std::size_t i = 12; i + 12 < r.labels.size(); ++i) {
    if (!ectopic(r.labels[i]) || ectopic(r.labels[i - 1]) || ectopic(r.labels[i + 1])) continue;
    const auto [before, after, local] = rhythm_at(r, i);
    if (r.labels[i] == 'A') {
      coupling_min = std::min(coupling_min, before / local);
      coupling_max = std::max(coupling_max, before / local);
      late_apbs += before > 0.9 * local;
      EXPECT_NEAR(after / local, 1.04, 0.3) << i;
      apb_sum += (before + after) / local;
      ++apbs;
    } else {
      pvc_sum += (before + after) / local;
      ++pvcs;
    }
  }
  ASSERT_GT(apbs, 300);
  ASSERT_GT(pvcs, 100);
  // Heart-rate variability widens the 55-80 % coupling a little against the local median RR.
  EXPECT_GT(coupling_min, 0.45);
  EXPECT_LT(coupling_max, 1.0);
  EXPECT_LT(late_apbs, apbs / 100 + 1);
  EXPECT_LT(coupling_max - coupling_min, 0.5);  // randomised, but within the documented span
  EXPECT_GT(coupling_max - coupling_min, 0.15);
  EXPECT_NEAR(apb_sum / apbs, 0.675 + 1.04, 0.06);  // mean coupling + mean reset interval
  EXPECT_NEAR(pvc_sum / pvcs, 2.0, 0.05);
}

TEST(SynthApb, QrsLooksLikeTheNeighbouringNormalBeats) {
  auto o = noiseless(options_for(1.0, 37));
  o.apb_rate = 0.08;
  o.anomaly_rate = 0.05;
  const auto r = synth::generate_ecg(o);
  const auto half = std::llround(0.05 * r.sample_rate);  // QRS: R peak +- 50 ms
  const auto qrs = [&](std::size_t i) { return window(r.samples, r.r_peaks[i] - half, r.r_peaks[i] + half + 1); };
  double pvc_correlation_sum = 0;
  int apbs = 0, pvcs = 0;
  for (std::size_t i = 1; i + 1 < r.labels.size(); ++i) {
    if (!ectopic(r.labels[i]) || r.labels[i - 1] != 'N' || r.labels[i + 1] != 'N') continue;
    const auto beat = qrs(i), left = qrs(i - 1), right = qrs(i + 1);
    if (beat.size() != left.size() || beat.size() != right.size()) continue;  // at an edge
    std::vector<double> neighbours(beat.size());
    for (std::size_t k = 0; k < beat.size(); ++k) neighbours[k] = 0.5 * (left[k] + right[k]);
    const double c = correlation(beat, neighbours);
    if (r.labels[i] == 'A') {
      EXPECT_GT(c, 0.95) << "APB " << i;
      const double peak_ratio = beat[std::size_t(half)] / neighbours[std::size_t(half)];
      EXPECT_NEAR(peak_ratio, 1.0, 0.2) << "APB " << i;
      ++apbs;
    } else {
      pvc_correlation_sum += c;
      ++pvcs;
    }
  }
  ASSERT_GT(apbs, 200);
  ASSERT_GT(pvcs, 100);
  // The measure does tell shapes apart: a PVC's wide QRS does not pass it.
  EXPECT_LT(pvc_correlation_sum / pvcs, 0.9);
}

TEST(SynthApb, SameSeedSameRecordingWithEverythingOn) {
  const auto make = [](std::uint64_t seed) {
    auto o = options_for(0.2, seed);
    o.apb_rate = 0.05;
    o.noise_bursts_per_hour = 60;
    o.baseline_jumps_per_hour = 60;
    return synth::generate_ecg(o);
  };
  const auto a = make(5), b = make(5), c = make(6);
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(a.r_peaks, b.r_peaks);
  EXPECT_EQ(a.labels, b.labels);
  ASSERT_EQ(a.artefacts.size(), b.artefacts.size());
  for (std::size_t i = 0; i < a.artefacts.size(); ++i) {
    EXPECT_EQ(a.artefacts[i].start, b.artefacts[i].start);
    EXPECT_EQ(a.artefacts[i].end, b.artefacts[i].end);
    EXPECT_EQ(a.artefacts[i].kind, b.artefacts[i].kind);
  }
  EXPECT_GT(count_label(a, 'A'), 0);
  EXPECT_NE(a.r_peaks, c.r_peaks);
  EXPECT_NE(a.samples, c.samples);
}

TEST(SynthApb, SampleRateChangesResolutionNotBeats) {
  auto o = options_for(0.2, 41);
  o.apb_rate = 0.1;
  o.noise_bursts_per_hour = 30;
  o.baseline_jumps_per_hour = 30;
  o.sample_rate = 360.0;
  const auto a = synth::generate_ecg(o);
  o.sample_rate = 500.0;
  const auto b = synth::generate_ecg(o);
  ASSERT_EQ(a.labels, b.labels);
  EXPECT_GT(count_label(a, 'A'), 0);
  for (std::size_t i = 0; i < a.r_peaks.size(); ++i)
    EXPECT_NEAR(double(a.r_peaks[i]) / 360.0, double(b.r_peaks[i]) / 500.0, 0.5 / 360 + 0.5 / 500) << i;
  ASSERT_EQ(a.artefacts.size(), b.artefacts.size());
  for (std::size_t i = 0; i < a.artefacts.size(); ++i) {
    EXPECT_NEAR(double(a.artefacts[i].start) / 360.0, double(b.artefacts[i].start) / 500.0, 1.0 / 360) << i;
    EXPECT_EQ(a.artefacts[i].kind, b.artefacts[i].kind) << i;
  }
}

TEST(SynthApb, RejectsOptionsOutOfRange) {
  const auto bad = [](auto change) {
    auto o = options_for(0.01, 1);
    change(o);
    EXPECT_THROW(synth::generate_ecg(o), zf::invalid_argument);
  };
  bad([](synth::ecg_options& o) { o.apb_rate = -0.01; });
  bad([](synth::ecg_options& o) { o.apb_rate = 0.5; });
  bad([](synth::ecg_options& o) { o.apb_rate = NAN; });
  bad([](synth::ecg_options& o) { o.anomaly_rate = 0.3, o.apb_rate = 0.25; });
  bad([](synth::ecg_options& o) { o.noise_bursts_per_hour = -1; });
  bad([](synth::ecg_options& o) { o.noise_bursts_per_hour = 361; });
  bad([](synth::ecg_options& o) { o.noise_bursts_per_hour = NAN; });
  bad([](synth::ecg_options& o) { o.baseline_jumps_per_hour = -1; });
  bad([](synth::ecg_options& o) { o.baseline_jumps_per_hour = INFINITY; });
  // The edges of the ranges are accepted.
  auto o = options_for(0.01, 1);
  o.anomaly_rate = 0.2, o.apb_rate = 0.29;
  o.noise_bursts_per_hour = 360, o.baseline_jumps_per_hour = 360;
  EXPECT_NO_THROW(synth::generate_ecg(o));
  // The message says what to change, in the words of the options and flags.
  o.apb_rate = 0.3;
  try {
    synth::generate_ecg(o);
    ADD_FAILURE() << "no error";
  } catch (const zf::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(anomaly_rate + apb_rate)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("less than 0.5"), std::string::npos) << e.what();
  }
}
