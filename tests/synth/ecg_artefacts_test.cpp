// Noise bursts and baseline jumps of the synthetic ECG: present where annotated, absent elsewhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "synth/synth_test_helpers.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace synth = zeroflow::synth;
using synth::artefact_interval;
using synth::artefact_kind;
using synth::testing::median;
using synth::testing::noiseless;
using synth::testing::options_for;
using synth::testing::window;

namespace {

std::vector<artefact_interval> of_kind(const synth::ecg_recording& r, artefact_kind kind) {
  std::vector<artefact_interval> out;
  for (const auto& a : r.artefacts)
    if (a.kind == kind) out.push_back(a);
  return out;
}

/// Whether [first, last) meets any annotated interval.
bool touches_artefact(const synth::ecg_recording& r, std::int64_t first, std::int64_t last) {
  for (const auto& a : r.artefacts)
    if (a.start < last && first < a.end) return true;
  return false;
}

/// Mean squared first difference of x over [first, last): the high-frequency power that muscle
/// noise adds and a clean ECG has little of.
double difference_power(const std::vector<float>& x, std::int64_t first, std::int64_t last) {
  double sum = 0;
  for (std::int64_t k = std::max<std::int64_t>(first, 1); k < last; ++k) {
    const double d = double(x[std::size_t(k)]) - double(x[std::size_t(k - 1)]);
    sum += d * d;
  }
  return sum / double(last - std::max<std::int64_t>(first, 1));
}

}  // namespace

TEST(SynthArtefacts, AnnotationsAreOrderedInsideTheSignalAndAboutAsFrequentAsAsked) {
  auto o = options_for(10.0, 3);
  o.noise_bursts_per_hour = 30;
  o.baseline_jumps_per_hour = 20;
  const auto r = synth::generate_ecg(o);
  const auto n = static_cast<std::int64_t>(r.samples.size());
  for (std::size_t i = 0; i < r.artefacts.size(); ++i) {
    const auto& a = r.artefacts[i];
    ASSERT_GE(a.start, 0);
    ASSERT_LT(a.start, a.end);
    ASSERT_LE(a.end, n);
    if (i > 0) {
      ASSERT_LE(r.artefacts[i - 1].start, a.start);
    }
    const double seconds = double(a.end - a.start) / r.sample_rate;
    if (a.end == n) continue;  // cut short by the end of the recording
    if (a.kind == artefact_kind::noise_burst) {
      EXPECT_GE(seconds, 0.3 - 0.01) << i;
      EXPECT_LE(seconds, 3.0 + 0.01) << i;
    } else {
      EXPECT_GE(seconds, 5 * 0.8 - 0.01) << i;  // five time constants of 0.8-2.5 s
      EXPECT_LE(seconds, 5 * 2.5 + 0.01) << i;
    }
  }
  // Poisson counts: mean = variance = rate * hours.
  const double bursts = double(of_kind(r, artefact_kind::noise_burst).size());
  const double jumps = double(of_kind(r, artefact_kind::baseline_jump).size());
  EXPECT_NEAR(bursts, 300, 5 * std::sqrt(300.0));
  EXPECT_NEAR(jumps, 200, 5 * std::sqrt(200.0));
}

TEST(SynthArtefacts, ArtefactsNeverMoveOrRelabelBeats) {
  auto o = options_for(0.5, 8);
  o.apb_rate = 0.05;
  const auto clean = synth::generate_ecg(o);
  o.noise_bursts_per_hour = 120;
  o.baseline_jumps_per_hour = 120;
  const auto disturbed = synth::generate_ecg(o);
  ASSERT_FALSE(disturbed.artefacts.empty());
  EXPECT_EQ(disturbed.r_peaks, clean.r_peaks);
  EXPECT_EQ(disturbed.labels, clean.labels);  // beats under a burst keep their labels
  // Some labelled beats do lie under a burst.
  int covered = 0;
  for (auto p : disturbed.r_peaks) covered += touches_artefact(disturbed, p, p + 1);
  EXPECT_GT(covered, 10);
}

TEST(SynthArtefacts, NoiseBurstsAreWhereAnnotatedAndAsLargeAsAQrs) {
  auto o = noiseless(options_for(2.0, 12));
  o.anomaly_rate = 0.05;
  o.apb_rate = 0.05;
  o.noise_bursts_per_hour = 30;
  const auto r = synth::generate_ecg(o);
  const auto bursts = of_kind(r, artefact_kind::noise_burst);
  ASSERT_GT(bursts.size(), 30u);

  // From the samples alone: the high-frequency power inside every burst (its ramps left out)
  // stands far above that of the clean ECG around it.
  std::vector<std::uint8_t> inside(r.samples.size(), 0);
  for (const auto& b : bursts) std::fill(inside.begin() + b.start, inside.begin() + b.end, 1);
  double outside_sum = 0;
  std::int64_t outside_count = 0;
  for (std::size_t k = 1; k < r.samples.size(); ++k) {
    if (inside[k] || inside[k - 1]) continue;
    const double d = double(r.samples[k]) - double(r.samples[k - 1]);
    outside_sum += d * d;
    ++outside_count;
  }
  const double outside_power = outside_sum / double(outside_count);
  const auto ramp = std::llround(0.1 * r.sample_rate);
  for (const auto& b : bursts) {
    const std::int64_t cut = std::min<std::int64_t>(ramp, (b.end - b.start) / 4);
    EXPECT_GT(difference_power(r.samples, b.start + cut, b.end - cut), 4 * outside_power) << b.start;
  }

  // Against the same recording without bursts: the difference is the burst, zero outside the
  // annotations, with an RMS of 15-40 % of the R wave (0.9-1.5 mV) inside.
  auto clean_options = o;
  clean_options.noise_bursts_per_hour = 0;
  const auto clean = synth::generate_ecg(clean_options);
  ASSERT_EQ(clean.samples.size(), r.samples.size());
  for (std::size_t k = 0; k < r.samples.size(); ++k) {
    if (!inside[k]) ASSERT_EQ(r.samples[k], clean.samples[k]) << k;
  }
  double largest_peak = 0;
  for (const auto& b : bursts) {
    double sum = 0, mean = 0, peak = 0;
    for (std::int64_t k = b.start; k < b.end; ++k) {
      const double d = double(r.samples[std::size_t(k)]) - double(clean.samples[std::size_t(k)]);
      sum += d * d, mean += d, peak = std::max(peak, std::fabs(d));
    }
    const double count = double(b.end - b.start);
    const double rms = std::sqrt(sum / count);
    EXPECT_GT(rms, 0.1 * 0.9) << b.start;  // the sin^2 ramps lower it a little
    EXPECT_LT(rms, 0.4 * 1.5) << b.start;
    EXPECT_LT(std::fabs(mean / count), 0.5 * rms) << b.start;  // band-limited: no offset
    largest_peak = std::max(largest_peak, peak);
  }
  EXPECT_GT(largest_peak, 0.8);  // peaks of the size of a QRS
  EXPECT_LT(largest_peak, 4.0);
}

TEST(SynthArtefacts, BaselineJumpsStepWhereAnnotatedAndDecay) {
  auto o = noiseless(options_for(2.0, 14));
  o.baseline_jumps_per_hour = 20;
  const auto r = synth::generate_ecg(o);
  const auto jumps = of_kind(r, artefact_kind::baseline_jump);
  ASSERT_GT(jumps.size(), 15u);
  const auto second = std::llround(r.sample_rate);

  // From the samples alone: the baseline (median over one second, longer than a beat) changes
  // by at least a quarter of the smallest step across each jump, and barely anywhere else.
  int checked = 0;
  for (const auto& j : jumps) {
    bool alone = true;  // no other jump still decaying or starting around this one
    for (const auto& other : jumps)
      if (other.start != j.start && other.start < j.start + second && j.start - second < other.end) alone = false;
    if (!alone || j.start < second || j.start + second > std::int64_t(r.samples.size())) continue;
    const double change =
        median(window(r.samples, j.start, j.start + second)) - median(window(r.samples, j.start - second, j.start));
    EXPECT_GT(std::fabs(change), 0.2) << j.start;
    ++checked;
  }
  EXPECT_GT(checked, 10);
  int quiet = 0;
  for (std::int64_t t = 2 * second; t + 2 * second < std::int64_t(r.samples.size()); t += 7 * second) {
    if (touches_artefact(r, t - 2 * second, t + 2 * second)) continue;
    const double change = median(window(r.samples, t, t + second)) - median(window(r.samples, t - second, t));
    EXPECT_LT(std::fabs(change), 0.1) << t;
    ++quiet;
  }
  EXPECT_GT(quiet, 300);

  // Against the same recording without jumps: nothing before the step, a step of 0.5-2 mV at the
  // annotated start that decays without changing sign, under 1 % of it at the annotated end.
  auto clean_options = o;
  clean_options.baseline_jumps_per_hour = 0;
  const auto clean = synth::generate_ecg(clean_options);
  const auto diff = [&](std::int64_t k) {
    return double(r.samples[std::size_t(k)]) - double(clean.samples[std::size_t(k)]);
  };
  for (const auto& j : jumps) {
    // (An earlier jump may still add its last percent, decaying past its annotation.)
    if (j.start > 0 && !touches_artefact(r, j.start - 1, j.start)) {
      EXPECT_LE(std::fabs(diff(j.start - 1)), 0.01 * 2.0 + 1e-6) << j.start;
    }
    bool alone = true;
    for (const auto& other : jumps)
      if (other.start != j.start && other.start < j.end && j.start < other.end) alone = false;
    if (!alone) continue;
    const double step = diff(j.start);
    EXPECT_GE(std::fabs(step), 0.5 * std::exp(-1.0 / (0.8 * r.sample_rate)) - 1e-4) << j.start;
    EXPECT_LE(std::fabs(step), 2.0 + 1e-4) << j.start;
    for (std::int64_t k = j.start + 1; k < j.end; ++k)
      ASSERT_LE(std::fabs(diff(k)), std::fabs(diff(k - 1)) + 1e-5) << k;
    if (j.end < std::int64_t(r.samples.size())) {
      EXPECT_LT(std::fabs(diff(j.end)), 0.01 * std::fabs(step)) << j.start;
      EXPECT_GT(std::fabs(diff(j.end - 1)), 0.005 * std::fabs(step)) << j.start;  // annotated until it has decayed
    }
  }
}
