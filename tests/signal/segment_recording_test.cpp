// segment_recording: the robust method's fields against re-computations written here (the
// recording's median and MAD, R–R lengths and their histogram, every row of every beat, the
// rhythm), one row per detected beat, beats at the generator's R peaks, units that do not
// matter; the seed's method still exactly segment_beats.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "signal/robust_reference.hpp"
#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/qrs_detect.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
namespace synth = zeroflow::synth;
using namespace zeroflow::signal::testing;

namespace {

synth::ecg_recording make_ecg(double hours, double rate, double bpm, std::uint64_t seed) {
  synth::ecg_options o;
  o.hours = hours;
  o.sample_rate = rate;
  o.heart_rate_bpm = bpm;
  o.anomaly_rate = 0.05;
  o.apb_rate = 0.03;
  o.seed = seed;
  return synth::generate_ecg(o);
}

std::vector<float> flat(const zf::array& rows) { return to_vector<float>(rows.reshape({rows.size()})); }

/// Every field of a robust segmentation of `x` against its definition in segment.hpp.
void expect_robust_fields(const sig::segmentation& s, const std::vector<float>& x, const sig::segment_params& params,
                          const std::string& what) {
  const auto n = static_cast<std::int64_t>(x.size());
  // The normalisation: median and 1.4826·MAD of every (n >> 20)-th sample.
  const std::int64_t stride = std::max<std::int64_t>(1, n >> sig::statistics_sample_bits);
  std::vector<double> sample;
  for (std::int64_t i = 0; i < n; i += stride) sample.push_back(x[static_cast<std::size_t>(i)]);
  const auto z = ref_robust_zscore(sample);
  EXPECT_EQ(s.norm.center, static_cast<float>(z.center)) << what;
  EXPECT_NEAR(s.norm.scale, z.scale, 1e-6 * z.scale) << what;

  // Beats: detect_qrs with that centre; positions are the peaks.
  const auto peaks = to_vector<std::int64_t>(s.peaks);
  const auto detected = sig::detect_qrs(to_array(x), params, static_cast<float>(z.center), {});
  EXPECT_EQ(peaks, to_vector<std::int64_t>(detected.peaks)) << what;
  EXPECT_EQ(to_vector<std::int64_t>(s.positions), peaks) << what;
  EXPECT_EQ(to_vector<float>(s.filtered), to_vector<float>(detected.filtered)) << what;

  // R–R lengths and their histogram (the last bin collects lengths >= 2·max_length).
  std::vector<std::int64_t> lengths;
  for (std::size_t i = 1; i < peaks.size(); ++i) lengths.push_back(peaks[i] - peaks[i - 1]);
  EXPECT_EQ(to_vector<std::int64_t>(s.lengths), lengths) << what;
  const std::int64_t bins = 2 * s.sizes.max_length + 1;
  std::vector<std::int64_t> histogram(static_cast<std::size_t>(bins), 0);
  for (auto l : lengths) ++histogram[static_cast<std::size_t>(std::min(l, bins - 1))];
  EXPECT_EQ(to_vector<std::int64_t>(s.histogram), histogram) << what;

  // One row per peak: (x − center) / scale from window_before before the peak to window_after
  // after it, zero-padded to a power of two.
  const auto rate = params.sample_rate;
  const auto before = std::llround(params.window_before_seconds * rate);
  const auto after = std::llround(params.window_after_seconds * rate);
  const auto width =
      static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(std::max(before + after, 16LL))));
  EXPECT_EQ(s.sizes.row_width, width) << what;
  ASSERT_EQ(s.beats.rows.shape(), (zf::shape_t{static_cast<std::int64_t>(peaks.size()), width})) << what;
  const auto rows = flat(s.beats.rows);
  const auto want = ref_embed_windows(x, peaks, before, after, width, s.norm.center, s.norm.scale);
  int failures = 0;
  for (std::size_t i = 0; i < want.size() && failures < 5; ++i)
    if (!(want[i] == 0.0 ? rows[i] == 0.0F : std::fabs(rows[i] - want[i]) <= 2.5e-7 * std::fabs(want[i]))) {
      ++failures;
      ADD_FAILURE() << what << ": row element " << i << " = " << rows[i] << ", want " << want[i];
    }
  EXPECT_FALSE(s.gate.valid()) << what;
  EXPECT_FALSE(s.beats.kept.valid()) << what;
  EXPECT_FALSE(s.beats.kept_index.valid()) << what;

  // Rhythm of the same peaks.
  const auto rhythm = ref_rhythm(peaks, rate);
  const auto rr_before = to_vector<float>(s.rr.rr_before), rr_after = to_vector<float>(s.rr.rr_after);
  const auto local = to_vector<float>(s.rr.local_rr), irregularity = to_vector<float>(s.rr.irregularity);
  ASSERT_EQ(rr_before.size(), peaks.size()) << what;
  ASSERT_EQ(irregularity.size(), peaks.size()) << what;
  for (std::size_t b = 0; b < peaks.size(); ++b) {
    ASSERT_NEAR(rr_before[b], rhythm.rr_before[b], 3e-7 * rhythm.rr_before[b]) << what << ", beat " << b;
    ASSERT_NEAR(rr_after[b], rhythm.rr_after[b], 3e-7 * rhythm.rr_after[b]) << what << ", beat " << b;
    ASSERT_NEAR(local[b], rhythm.local_rr[b], 3e-7 * rhythm.local_rr[b]) << what << ", beat " << b;
    ASSERT_NEAR(irregularity[b], rhythm.irregularity[b], 2e-6) << what << ", beat " << b;
  }
}

}  // namespace

using SignalSegmentRecording = poisoned_host;

TEST_F(SignalSegmentRecording, EveryDetectedBeatHasARowAndARhythm) {
  struct variant {
    double hours, rate, bpm;
    std::uint64_t seed;
  };
  for (const variant v : {variant{0.1, 250, 70, 1}, variant{0.05, 360, 88, 2}, variant{0.05, 500, 50, 3},
                          variant{2.4, 250, 75, 4}}) {  // the last: 2.16 M samples, statistics of every 2nd
    const auto ecg = make_ecg(v.hours, v.rate, v.bpm, v.seed);
    sig::segment_params params;
    params.sample_rate = v.rate;
    ASSERT_EQ(params.method, sig::segmentation_method::robust);  // the default
    const auto s = sig::segment_recording(to_array(ecg.samples), params, {});
    const std::string what = std::to_string(v.rate) + " Hz, " + std::to_string(v.hours) + " h";
    expect_robust_fields(s, ecg.samples, params, what);
    // The rows belong to the true beats: all found, nothing else (edge beats aside).
    const auto peaks = to_vector<std::int64_t>(s.peaks);
    const auto m = match_peaks_one_to_one(peaks, ecg.r_peaks, static_cast<std::int64_t>(0.05 * v.rate));
    EXPECT_TRUE(m.extra.empty()) << what << ": " << first_values(m.extra);
    EXPECT_LE(m.missed.size(), 2U) << what << ": " << first_values(m.missed);
    for (auto p : m.missed)
      EXPECT_TRUE(p < 0.11 * v.rate || p >= static_cast<double>(ecg.samples.size()) - 0.11 * v.rate)
          << what << ": " << p;
  }
}

TEST_F(SignalSegmentRecording, RawRowsAndOtherWindows) {
  const auto ecg = make_ecg(0.03, 360, 80, 5);
  sig::segment_params params;
  params.sample_rate = 360;
  params.normalize_rows = false;
  params.window_before_seconds = 0.3;
  params.window_after_seconds = 0.5;
  const auto s = sig::segment_recording(to_array(ecg.samples), params, {});
  EXPECT_EQ(s.norm.center, 0.0F);
  EXPECT_EQ(s.norm.scale, 1.0F);
  EXPECT_EQ(s.sizes.row_width, 512);  // 108 + 180 samples
  const auto peaks = to_vector<std::int64_t>(s.peaks);
  ASSERT_EQ(s.beats.rows.shape(), (zf::shape_t{static_cast<std::int64_t>(peaks.size()), 512}));
  const auto rows = flat(s.beats.rows);
  const auto want = ref_embed_windows(ecg.samples, peaks, 108, 180, 512, 0.0, 1.0);
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(rows[i], static_cast<float>(want[i])) << i;
}

TEST_F(SignalSegmentRecording, UnitsDoNotMatter) {
  const auto ecg = make_ecg(0.05, 250, 85, 6);
  sig::segment_params params;
  const auto mv = sig::segment_recording(to_array(ecg.samples), params, {});
  std::vector<float> adc(ecg.samples.size());
  for (std::size_t i = 0; i < adc.size(); ++i) adc[i] = static_cast<float>(200.0 * ecg.samples[i] + 1024.0);
  const auto raw = sig::segment_recording(to_array(adc), params, {});
  ASSERT_EQ(to_vector<std::int64_t>(raw.peaks), to_vector<std::int64_t>(mv.peaks));
  const auto a = flat(mv.beats.rows), b = flat(raw.beats.rows);
  ASSERT_EQ(a.size(), b.size());
  // Rows are robust z-scores: the same up to float rounding of the scaled samples.
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-4 * (1 + std::fabs(a[i]))) << i;
}

TEST_F(SignalSegmentRecording, SeedMethodIsStillSegmentBeats) {
  const auto ecg = make_ecg(0.1, 250, 70, 7);
  sig::segment_params params;
  params.method = sig::segmentation_method::gate_to_gate;
  const auto x = to_array(ecg.samples);
  const auto a = sig::segment_recording(x, params, {});
  const auto b = sig::segment_beats(x, params, {});
  EXPECT_EQ(a.sizes.row_width, b.sizes.row_width);
  EXPECT_EQ(a.sizes.row_width, 256);  // the seed's max_length
  EXPECT_EQ(to_vector<float>(a.filtered), to_vector<float>(b.filtered));
  EXPECT_EQ(to_vector<std::uint8_t>(a.gate), to_vector<std::uint8_t>(b.gate));
  EXPECT_EQ(to_vector<std::int64_t>(a.positions), to_vector<std::int64_t>(b.positions));
  EXPECT_EQ(to_vector<std::int64_t>(a.lengths), to_vector<std::int64_t>(b.lengths));
  EXPECT_EQ(to_vector<std::int64_t>(a.histogram), to_vector<std::int64_t>(b.histogram));
  EXPECT_EQ(to_vector<std::int64_t>(a.peaks), to_vector<std::int64_t>(b.peaks));
  EXPECT_EQ(a.norm.center, b.norm.center);
  EXPECT_EQ(a.norm.scale, b.norm.scale);
  EXPECT_EQ(to_vector<std::uint8_t>(a.beats.kept), to_vector<std::uint8_t>(b.beats.kept));
  EXPECT_EQ(to_vector<std::int64_t>(a.beats.kept_index), to_vector<std::int64_t>(b.beats.kept_index));
  ASSERT_EQ(a.beats.rows.shape(), b.beats.rows.shape());
  EXPECT_EQ(flat(a.beats.rows), flat(b.beats.rows));
  EXPECT_FALSE(a.rr.rr_before.valid());
  EXPECT_FALSE(a.rr.irregularity.valid());
  // segment_beats ignores the method: asked for the robust one it still runs the seed's.
  params.method = sig::segmentation_method::robust;
  EXPECT_EQ(to_vector<std::int64_t>(sig::segment_beats(x, params, {}).positions), to_vector<std::int64_t>(b.positions));
}

TEST_F(SignalSegmentRecording, StridedInputAndRefusedArguments) {
  const auto ecg = make_ecg(0.02, 250, 70, 8);
  std::vector<float> two;
  for (float v : ecg.samples) two.push_back(v), two.push_back(3.0F);
  const auto strided =
      sig::segment_recording(to_array(two).slice(0, 0, static_cast<std::int64_t>(two.size()), 2), {}, {});
  const auto contiguous = sig::segment_recording(to_array(ecg.samples), {}, {});
  EXPECT_EQ(to_vector<std::int64_t>(strided.peaks), to_vector<std::int64_t>(contiguous.peaks));
  EXPECT_EQ(flat(strided.beats.rows), flat(contiguous.beats.rows));

  EXPECT_THROW((void)sig::segment_recording(to_array(std::vector<float>(10, 1.0F)), {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::segment_recording(to_array(std::vector<double>(5000, 1.0)), {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::segment_recording(to_array(ecg.samples).reshape({2, 9000}), {}, {}), zf::invalid_argument);
  sig::segment_params bad;
  bad.window_after_seconds = 0;
  EXPECT_THROW((void)sig::segment_recording(to_array(ecg.samples), bad, {}), zf::invalid_argument);
  bad = {};
  bad.sample_rate = -1;
  EXPECT_THROW((void)sig::segment_recording(to_array(ecg.samples), bad, {}), zf::invalid_argument);
}
