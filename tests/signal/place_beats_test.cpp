// place_beats (segment.hpp): the robust segmentation placed at given beats derives every field
// from them as segment_recording derives them from its own detections.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "zeroflow/signal/beat_windows.hpp"
#include "zeroflow/signal/rhythm.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

std::vector<float> ecg_samples() {
  zeroflow::synth::ecg_options o;
  o.hours = 5.0 / 60;
  o.sample_rate = 250;
  o.anomaly_rate = 0.05;
  o.seed = 5;
  return zeroflow::synth::generate_ecg(o).samples;
}

}  // namespace

TEST(PlaceBeats, DerivesEveryFieldFromTheGivenBeats) {
  const auto samples = ecg_samples();
  const zeroflow::array x = to_array(samples);
  const sig::segment_params params;
  const auto found = sig::segment_recording(x, params, {});
  // Its own detections: the same segmentation.
  auto same = found;
  sig::place_beats(same, x, found.peaks, params, {});
  EXPECT_EQ(flat_floats(same.beats.rows), flat_floats(found.beats.rows));
  EXPECT_EQ(to_vector<std::int64_t>(same.lengths), to_vector<std::int64_t>(found.lengths));
  // Every other beat: rows, intervals and rhythm of those beats, the filtered signal unchanged.
  std::vector<std::int64_t> half;
  for (const auto p : to_vector<std::int64_t>(found.peaks)) half.push_back(p);
  half.erase(half.begin() + 1, half.begin() + 2);
  half.erase(half.begin() + 10, half.begin() + 14);
  auto placed = found;
  sig::place_beats(placed, x, to_array(half), params, {});
  EXPECT_EQ(to_vector<std::int64_t>(placed.peaks), half);
  EXPECT_EQ(to_vector<std::int64_t>(placed.positions), half);
  const auto lengths = to_vector<std::int64_t>(placed.lengths);
  ASSERT_EQ(lengths.size(), half.size() - 1);
  for (std::size_t b = 0; b + 1 < half.size(); ++b) EXPECT_EQ(lengths[b], half[b + 1] - half[b]);
  const auto sizes = placed.sizes;
  EXPECT_EQ(flat_floats(placed.beats.rows),
            flat_floats(sig::embed_windows(x, to_array(half), sizes.window_before, sizes.window_after, sizes.row_width,
                                           placed.norm, {})));
  EXPECT_EQ(flat_floats(placed.rr.rr_before),
            flat_floats(sig::rhythm_features(to_array(half), params.sample_rate, {}).rr_before));
  EXPECT_EQ(flat_floats(placed.filtered), flat_floats(found.filtered));
  sig::segment_params seed_method = params;
  seed_method.method = sig::segmentation_method::gate_to_gate;
  EXPECT_THROW(sig::place_beats(placed, x, to_array(half), seed_method, {}), zeroflow::invalid_argument);
}
