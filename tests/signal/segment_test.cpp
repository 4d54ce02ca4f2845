#include "zeroflow/signal/segment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/peak_filter.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {
struct pulse_train {
  std::vector<float> samples;
  std::vector<std::int64_t> peaks;
};

// Narrow Gaussian pulses (σ = 10 ms, amplitude 0.8-1.2) every 0.58-0.70 s on an offset with white
// noise. The spacing stays below the 0.72 s NMS window, so every window holds a pulse and each
// pulse is the maximum of the ±0.36 s around it: exactly one gate per pulse.
pulse_train make_pulse_train(double rate, double seconds, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> gap(0.58, 0.70), amplitude(0.8, 1.2);
  std::normal_distribution<double> noise(0, 0.02);
  pulse_train t;
  t.samples.resize(static_cast<std::size_t>(std::llround(seconds * rate)));
  for (auto& v : t.samples) v = static_cast<float>(0.3 + noise(rng));
  const double sigma = 0.010 * rate;
  for (double at = 0.6; at < seconds - 0.6; at += gap(rng)) {
    const auto q = static_cast<std::int64_t>(std::llround(at * rate));
    const double a = amplitude(rng);
    t.peaks.push_back(q);
    for (auto i = q - static_cast<std::int64_t>(5 * sigma); i <= q + static_cast<std::int64_t>(5 * sigma); ++i)
      t.samples[static_cast<std::size_t>(i)] +=
          static_cast<float>(a * std::exp(-0.5 * (i - q) * (i - q) / (sigma * sigma)));
  }
  return t;
}
}  // namespace

using SignalSegment = poisoned_host;

TEST_F(SignalSegment, OnePeakPerPulseAtEveryRate) {
  for (double rate : {250.0, 360.0, 500.0}) {
    const auto train = make_pulse_train(rate, 120, static_cast<std::uint64_t>(rate));
    sig::segment_params params;
    params.sample_rate = rate;
    const auto s = sig::segment_beats(to_array(train.samples), params, {});
    const auto peaks = to_vector<std::int64_t>(s.peaks);
    ASSERT_EQ(peaks.size(), train.peaks.size()) << rate << " Hz";
    const auto tolerance = static_cast<std::int64_t>(std::ceil(0.008 * rate));  // a pulse's top is this flat
    for (std::size_t i = 0; i < peaks.size(); ++i)
      EXPECT_LE(std::abs(peaks[i] - train.peaks[i]), tolerance) << rate << " Hz, pulse " << i;

    // Every candidate is a whole pulse period, so all of them are kept, in order.
    const auto lengths = to_vector<std::int64_t>(s.lengths);
    ASSERT_EQ(lengths.size(), peaks.size() - 1);
    for (std::size_t i = 0; i < lengths.size(); ++i)
      EXPECT_LE(std::abs(lengths[i] - (train.peaks[i + 1] - train.peaks[i])), 2 * tolerance);
    EXPECT_EQ(s.beats.rows.shape(), (zf::shape_t{static_cast<std::int64_t>(lengths.size()), s.sizes.row_width}));
    const auto kept = to_vector<std::uint8_t>(s.beats.kept);
    EXPECT_EQ(kept, std::vector<std::uint8_t>(lengths.size(), 1));
    std::int64_t counted = 0;
    for (auto c : to_vector<std::int64_t>(s.histogram)) counted += c;
    EXPECT_EQ(counted, static_cast<std::int64_t>(lengths.size()));
    // The noise floor is the baseline: center ≈ 0.3, scale ≈ 0.02·(a little more for the pulses).
    EXPECT_NEAR(s.norm.center, 0.3f, 0.01f);
    EXPECT_NEAR(s.norm.scale, 0.02f, 0.01f);
  }
}

TEST_F(SignalSegment, IsTheCompositionOfTheStages) {
  const auto train = make_pulse_train(250, 60, 5);
  const zf::array x = to_array(train.samples);
  const auto s = sig::segment_beats(x, {}, {});
  const auto sizes = sig::sizes_for({});
  EXPECT_EQ(s.sizes.row_width, sizes.row_width);
  const auto norm = sig::robust_zscore(x, {});
  EXPECT_EQ(s.norm.center, norm.center);
  EXPECT_EQ(s.norm.scale, norm.scale);
  const auto filtered = sig::bandpass(x, 30, {});
  EXPECT_EQ(to_vector<float>(s.filtered), to_vector<float>(filtered));
  const auto gate = sig::nms_gate(filtered, 180, {});
  EXPECT_EQ(to_vector<std::uint8_t>(s.gate), to_vector<std::uint8_t>(gate));
  double kernel_sum = 0;
  for (float tap : to_vector<float>(sig::ricker_kernel(30, zf::cpu_device, {}))) kernel_sum += tap;
  const auto positions = sig::drop_weak_peaks(filtered, sig::gate_positions(gate, {}), 180, 0.1,
                                              static_cast<float>(norm.center * kernel_sum), {});
  ASSERT_EQ(s.positions.size(), positions.size());
  EXPECT_EQ(to_vector<std::int64_t>(s.positions), to_vector<std::int64_t>(positions));
  const auto lengths = sig::beat_lengths(positions, {});
  EXPECT_EQ(to_vector<std::int64_t>(s.lengths), to_vector<std::int64_t>(lengths));
  EXPECT_EQ(to_vector<std::int64_t>(s.histogram), to_vector<std::int64_t>(sig::length_histogram(lengths, 513, {})));
  EXPECT_EQ(to_vector<std::int64_t>(s.peaks),
            to_vector<std::int64_t>(sig::locate_peaks(x, positions, 180, 30, norm.center, {})));
  const auto beats = sig::embed_beats(x, positions, lengths, 100, 256, 256, norm, {});
  EXPECT_EQ(to_vector<float>(s.beats.rows.reshape({s.beats.rows.size()})),
            to_vector<float>(beats.rows.reshape({beats.rows.size()})));
  EXPECT_EQ(to_vector<std::int64_t>(s.beats.kept_index), to_vector<std::int64_t>(beats.kept_index));
}

TEST_F(SignalSegment, MillivoltsAndAdcUnitsGiveTheSameBeats) {
  const auto train = make_pulse_train(250, 60, 9);
  std::vector<float> adc(train.samples.size());
  for (std::size_t i = 0; i < adc.size(); ++i) adc[i] = 2048.0f + 400.0f * train.samples[i];
  const auto a = sig::segment_beats(to_array(train.samples), {}, {});
  const auto b = sig::segment_beats(to_array(adc), {}, {});
  EXPECT_EQ(to_vector<std::int64_t>(a.positions), to_vector<std::int64_t>(b.positions));
  EXPECT_EQ(to_vector<std::int64_t>(a.peaks), to_vector<std::int64_t>(b.peaks));
  const auto ra = to_vector<float>(a.beats.rows.reshape({a.beats.rows.size()}));
  const auto rb = to_vector<float>(b.beats.rows.reshape({b.beats.rows.size()}));
  ASSERT_EQ(ra.size(), rb.size());
  for (std::size_t i = 0; i < ra.size(); ++i) ASSERT_NEAR(ra[i], rb[i], 2e-3 * (1 + std::fabs(ra[i]))) << i;
}

TEST_F(SignalSegment, APulseCloserThanHalfAWindowToALargerOneIsSuppressed) {
  // The seed's NMS keeps a peak only when it is the largest within ±90 samples (±0.36 s at
  // 250 Hz). Large pulses every 170 samples (so every window holds one), and a smaller pulse
  // `gap` samples after one of them, 100 samples before the next.
  for (const auto& [gap, found] : {std::pair{80, false}, std::pair{100, true}}) {
    std::vector<std::int64_t> large, all;
    for (std::int64_t q = 120; q <= 970; q += 170) large.push_back(q);
    const std::int64_t small = 970 + gap;
    for (std::int64_t q = small + 100; q < 2200; q += 170) large.push_back(q);
    // The first and the last window must hold a pulse too, or their plain zeros tie for the maximum.
    std::vector<float> x(static_cast<std::size_t>(large.back() + 150), 0.0f);
    auto add = [&x](std::int64_t q, float a) {
      for (std::int64_t i = -10; i <= 10; ++i)
        x[static_cast<std::size_t>(q + i)] += a * std::exp(-0.5f * static_cast<float>(i * i) / 6.25f);
    };
    for (auto q : large) add(q, 1.0f);
    add(small, 0.6f);
    all = large;
    if (found) all.insert(std::upper_bound(all.begin(), all.end(), small), small);
    const auto s = sig::segment_beats(to_array(x), {}, {});
    EXPECT_EQ(to_vector<std::int64_t>(s.peaks), all) << "gap " << gap;
  }
}

TEST_F(SignalSegment, RejectsBadInput) {
  EXPECT_THROW((void)sig::segment_beats(to_array(std::vector<float>(179, 0.0f)), {}, {}), zf::invalid_argument);
  EXPECT_NO_THROW((void)sig::segment_beats(to_array(std::vector<float>(180, 0.0f)), {}, {}));
  EXPECT_THROW((void)sig::segment_beats(to_array(std::vector<float>{}), {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::segment_beats(to_array(std::vector<double>(1000, 0.0)), {}, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::segment_beats(to_array(std::vector<float>(1000, 0.0f)).reshape({10, 100}), {}, {}),
               zf::invalid_argument);
  sig::segment_params p;
  p.sample_rate = -250;
  EXPECT_THROW((void)sig::segment_beats(to_array(std::vector<float>(1000, 0.0f)), p, {}), zf::invalid_argument);
}

TEST_F(SignalSegment, FlatSignalFindsNoBeatsButDoesNotFail) {
  // All equal: every window's centre equals its maximum, so the gate rises once at 0.
  const auto s = sig::segment_beats(to_array(std::vector<float>(5000, 1.0f)), {}, {});
  EXPECT_EQ(to_vector<std::int64_t>(s.positions), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(s.lengths.size(), 0);
  EXPECT_EQ(s.beats.rows.shape(), (zf::shape_t{0, 256}));
  EXPECT_EQ(s.peaks.size(), 1);
  EXPECT_EQ(s.norm.center, 1.0f);
  EXPECT_EQ(s.norm.scale, 1.0f);
}

TEST_F(SignalSegment, LongRecordingsTakeTheirStatisticsFromAStridedSubsample) {
  // 2.5 M samples: every 2nd sample (N >> 20 = 2) gives the median and MAD.
  const auto train = make_pulse_train(250, 10000, 21);
  const zf::array x = to_array(train.samples);
  ASSERT_GE(x.size(), std::int64_t{2} << sig::statistics_sample_bits);
  const std::int64_t stride = x.size() >> sig::statistics_sample_bits;
  const auto s = sig::segment_beats(x, {}, {});
  const auto sub = sig::robust_zscore(x.slice(0, 0, x.size(), stride), {});
  EXPECT_EQ(s.norm.center, sub.center);
  EXPECT_EQ(s.norm.scale, sub.scale);
  const auto exact = sig::robust_zscore(x, {});
  EXPECT_NEAR(s.norm.center, exact.center, 1e-3 * std::abs(exact.center) + 1e-4);
  EXPECT_NEAR(s.norm.scale, exact.scale, 1e-2 * exact.scale);
}

TEST_F(SignalSegment, RawRowsKeepTheSamplesAndTheSameBeats) {
  const auto train = make_pulse_train(250, 60, 4);
  const zf::array x = to_array(train.samples);
  sig::segment_params raw;
  raw.normalize_rows = false;
  const auto s = sig::segment_beats(x, raw, {});
  const auto normalised = sig::segment_beats(x, {}, {});
  EXPECT_EQ(s.norm.center, 0.0f);
  EXPECT_EQ(s.norm.scale, 1.0f);
  EXPECT_EQ(to_vector<std::int64_t>(s.positions), to_vector<std::int64_t>(normalised.positions));
  EXPECT_EQ(to_vector<std::int64_t>(s.beats.kept_index), to_vector<std::int64_t>(normalised.beats.kept_index));
  // Row r of kept beat c holds the raw samples from positions[c] on, zero-padded.
  const auto rows = to_vector<float>(s.beats.rows.reshape({s.beats.rows.size()}));
  const auto kept = to_vector<std::int64_t>(s.beats.kept_index);
  const auto starts = to_vector<std::int64_t>(s.positions);
  const auto lengths = to_vector<std::int64_t>(s.lengths);
  ASSERT_FALSE(kept.empty());
  const std::int64_t w = s.sizes.row_width;
  for (std::size_t r = 0; r < kept.size(); ++r) {
    const auto c = static_cast<std::size_t>(kept[r]);
    for (std::int64_t t = 0; t < w; ++t) {
      const float want = t < lengths[c] ? train.samples[static_cast<std::size_t>(starts[c] + t)] : 0.0f;
      ASSERT_EQ(rows[r * static_cast<std::size_t>(w) + static_cast<std::size_t>(t)], want) << "row " << r << " t " << t;
    }
  }
}
