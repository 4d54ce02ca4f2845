#include "zeroflow/signal/params.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;

TEST(SignalParams, DefaultsAt250HzAreTheSeedsSamples) {
  const auto s = sig::sizes_for({});
  EXPECT_EQ(s.ricker_width, 30);
  EXPECT_EQ(s.nms_window, 180);
  EXPECT_EQ(s.min_length, 100);
  EXPECT_EQ(s.max_length, 256);
  EXPECT_EQ(s.row_width, 256);
}

TEST(SignalParams, ScaleWithTheSampleRate) {
  sig::segment_params p;
  p.method = sig::segmentation_method::gate_to_gate;  // rows as long as the longest kept beat
  p.sample_rate = 360;                                // MIT-BIH
  auto s = sig::sizes_for(p);
  EXPECT_EQ(s.ricker_width, 43);  // 43.2
  EXPECT_EQ(s.nms_window, 259);   // 259.2
  EXPECT_EQ(s.min_length, 144);   // 144
  EXPECT_EQ(s.max_length, 369);   // 368.64
  EXPECT_EQ(s.row_width, 512);
  p.sample_rate = 500;
  s = sig::sizes_for(p);
  EXPECT_EQ(s.ricker_width, 60);
  EXPECT_EQ(s.nms_window, 360);
  EXPECT_EQ(s.min_length, 200);
  EXPECT_EQ(s.max_length, 512);
  EXPECT_EQ(s.row_width, 512);  // already a power of two
  p.sample_rate = 125;
  s = sig::sizes_for(p);
  EXPECT_EQ(s.ricker_width, 15);
  EXPECT_EQ(s.max_length, 128);
  EXPECT_EQ(s.row_width, 128);
}

TEST(SignalParams, RobustRowsHoldTheBeatWindow) {
  sig::segment_params p;  // robust by default: 0.25 s before the peak + 0.45 s after
  p.sample_rate = 360;
  auto s = sig::sizes_for(p);
  EXPECT_EQ(s.window_before, 90);
  EXPECT_EQ(s.window_after, 162);
  EXPECT_EQ(s.row_width, 256);  // 252 samples
  EXPECT_EQ(s.refractory, 72);
  p.sample_rate = 1000;
  s = sig::sizes_for(p);
  EXPECT_EQ(s.window_before + s.window_after, 700);
  EXPECT_EQ(s.row_width, 1024);
  p.window_after_seconds = 0.25;
  EXPECT_EQ(sig::sizes_for(p).row_width, 512);
}

TEST(SignalParams, RowWidthIsAPowerOfTwoOfAtLeast16) {
  sig::segment_params p;
  p.method = sig::segmentation_method::gate_to_gate;
  p.sample_rate = 10;  // max 10.24 -> 10 samples, but the VAE needs >= 16
  p.nms_window_seconds = 1;
  auto s = sig::sizes_for(p);
  EXPECT_EQ(s.max_length, 10);
  EXPECT_EQ(s.row_width, 16);
  p.sample_rate = 250;
  p.max_beat_seconds = 257 / 250.;
  EXPECT_EQ(sig::sizes_for(p).row_width, 512);
}

TEST(SignalParams, MethodsByNameRoundTripAndSeedIsGateToGatesEarlierName) {
  for (auto m : {sig::segmentation_method::robust, sig::segmentation_method::gate_to_gate})
    EXPECT_EQ(sig::segmentation_named(sig::segmentation_name(m)), m);
  EXPECT_EQ(sig::segmentation_name(sig::segmentation_method::gate_to_gate), "gate-to-gate");
  EXPECT_EQ(sig::segmentation_named("seed"), sig::segmentation_method::gate_to_gate);
  for (const char* other : {"", "Robust", "gate_to_gate", "seed ", "random"})
    EXPECT_FALSE(sig::segmentation_named(other).has_value()) << other;
}

TEST(SignalParams, RejectsNonsense) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto bad = [](auto edit) {
    sig::segment_params p;
    edit(p);
    return p;
  };
  EXPECT_THROW((void)sig::sizes_for(bad([](auto& p) { p.sample_rate = 0; })), zf::invalid_argument);
  EXPECT_THROW((void)sig::sizes_for(bad([&](auto& p) { p.sample_rate = nan; })), zf::invalid_argument);
  EXPECT_THROW((void)sig::sizes_for(bad([](auto& p) { p.ricker_seconds = -1; })), zf::invalid_argument);
  EXPECT_THROW((void)sig::sizes_for(bad([](auto& p) { p.ricker_seconds = 0.001; })),
               zf::invalid_argument);  // 0 samples
  EXPECT_THROW((void)sig::sizes_for(bad([](auto& p) { p.nms_window_seconds = 1 / 250.; })), zf::invalid_argument);
  EXPECT_THROW((void)sig::sizes_for(bad([](auto& p) { p.min_beat_seconds = 2; })), zf::invalid_argument);
  EXPECT_THROW((void)sig::sizes_for(bad([](auto& p) { p.max_beat_seconds = 1e300; })), zf::invalid_argument);
}
