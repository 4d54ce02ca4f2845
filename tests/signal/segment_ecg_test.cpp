// segment_beats on realistic synthetic ECGs (zeroflow/synth/ecg.hpp, with PVCs, heart-rate
// variability, baseline wander, mains hum and noise): the detected R-peaks must match the
// generator's within ±150 ms for at least 99.5 % of the beats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "signal/signal_test_helpers.hpp"
#include "zeroflow/eval/metrics.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace sig = zeroflow::signal;
namespace synth = zeroflow::synth;
using namespace zeroflow::signal::testing;

using SignalSegmentEcg = poisoned_host;

TEST_F(SignalSegmentEcg, FindsTheGeneratorsRPeaks) {
  struct variant {
    double rate, bpm, anomalies;
    std::uint64_t seed;
  };
  for (const variant v :
       {variant{250, 70, 0.03, 42}, variant{360, 80, 0.05, 7}, variant{500, 65, 0.03, 3}, variant{250, 110, 0.0, 11}}) {
    synth::ecg_options o;
    o.hours = 0.25;
    o.sample_rate = v.rate;
    o.heart_rate_bpm = v.bpm;
    o.anomaly_rate = v.anomalies;
    o.seed = v.seed;
    const auto ecg = synth::generate_ecg(o);
    sig::segment_params params;
    params.sample_rate = v.rate;
    const auto s = sig::segment_beats(to_array(ecg.samples), params, {});
    auto peaks = to_vector<std::int64_t>(s.peaks);
    std::sort(peaks.begin(), peaks.end());  // ascending in practice; only exact ties could swap two
    const auto tolerance = static_cast<std::int64_t>(std::floor(0.150 * v.rate));
    const auto stats = zeroflow::eval::match_peaks(peaks, ecg.r_peaks, tolerance);
    const auto hits = stats.true_positives;
    const double sensitivity = stats.sensitivity, predictivity = stats.positive_predictivity;
    EXPECT_GE(sensitivity, 0.995) << v.rate << " Hz, " << v.bpm << " bpm: " << hits << " of " << ecg.r_peaks.size();
    // Not the acceptance criterion, but a gate that fires between beats would show here.
    EXPECT_GE(predictivity, 0.95) << v.rate << " Hz, " << v.bpm << " bpm: " << hits << " of " << peaks.size();
    // Most beats survive pruning at these rates.
    EXPECT_GE(s.beats.rows.shape(0), static_cast<std::int64_t>(0.9 * static_cast<double>(ecg.r_peaks.size())));
    std::cout << "[ info ] " << v.rate << " Hz, " << v.bpm << " bpm: " << ecg.r_peaks.size() << " beats, "
              << peaks.size() << " detections, sensitivity " << sensitivity << ", positive predictivity "
              << predictivity << ", kept " << s.beats.rows.shape(0) << "\n";
  }
}
