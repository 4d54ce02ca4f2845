// The robust segmentation's CUDA stages against their host implementations on seeded random
// inputs, outputs poisoned first: QRS energy, candidates (position, amplitude, slope) and the
// selected beats identical; embed_windows rows and the R–R intervals bit for bit, the
// irregularity within the error of logf; the combined scores within 1e-5. Then detect_qrs and
// segment_recording on GPU arrays against the host on synthetic recordings of several minutes
// (same peaks, same rows), on the legacy default stream and a created one, and with a long
// dropout (stretches with few candidates). Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "signal/cuda_test_helpers.hpp"
#include "signal/qrs_rules.hpp"
#include "signal/qrs_select.hpp"
#include "zeroflow/signal/beat_score.hpp"
#include "zeroflow/signal/beat_windows.hpp"
#include "zeroflow/signal/qrs_detect.hpp"
#include "zeroflow/signal/rhythm.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
namespace synth = zeroflow::synth;
using namespace zeroflow::signal::testing;

namespace {

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();

/// Distance in units in the last place between two finite floats of the same sign (or zeros).
std::int64_t ulps(float a, float b) {
  if (a == b) return 0;
  if (std::isnan(a) || std::isnan(b) || (a < 0) != (b < 0)) return std::numeric_limits<std::int64_t>::max();
  return std::abs(static_cast<std::int64_t>(std::bit_cast<std::int32_t>(a)) -
                  static_cast<std::int64_t>(std::bit_cast<std::int32_t>(b)));
}

/// Empty when every element is within `max_ulps`; otherwise the first that is not.
std::string ulp_mismatch(const std::vector<float>& got, const std::vector<float>& want, std::int64_t max_ulps) {
  if (got.size() != want.size()) return "sizes " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (ulps(got[i], want[i]) > max_ulps)
      return "index " + std::to_string(i) + ": GPU " + std::to_string(got[i]) + " vs host " + std::to_string(want[i]);
  return {};
}

synth::ecg_recording make_ecg(double hours, double rate, double bpm, std::uint64_t seed) {
  synth::ecg_options o;
  o.hours = hours;
  o.sample_rate = rate;
  o.heart_rate_bpm = bpm;
  o.anomaly_rate = 0.05;
  o.apb_rate = 0.03;
  o.noise_bursts_per_hour = 30;
  o.baseline_jumps_per_hour = 20;
  o.seed = seed;
  return synth::generate_ecg(o);
}

/// A synthetic recording of a few minutes to run both sides on.
struct ecg_case {
  double minutes, rate, bpm;
  std::uint64_t seed;

  [[nodiscard]] std::vector<float> samples() const { return make_ecg(minutes / 60, rate, bpm, seed).samples; }
  [[nodiscard]] sig::segment_params params() const {
    sig::segment_params p;
    p.sample_rate = rate;
    return p;
  }
  [[nodiscard]] std::string name() const { return std::to_string(minutes) + " min at " + std::to_string(rate) + " Hz"; }
};

sig::detail::qrs_rules rules_of(const sig::segment_params& params) {
  return sig::detail::qrs_rules_for(sig::sizes_for(params));
}

/// Candidates as detect_qrs makes them: ascending positions at least `spacing` apart, with dense
/// stretches, sparse ones and empty ones (a dropout); amplitudes mostly noise-like with QRS-like
/// peaks; slopes to match; backgrounds that put about half the candidates inside a burst of noise.
struct candidate_set {
  std::vector<std::int64_t> position;
  std::vector<float> amplitude, slope, background;
};

candidate_set random_candidates(std::mt19937_64& rng, std::int64_t samples, std::int64_t spacing) {
  candidate_set c;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::lognormal_distribution<float> noise(-2.0F, 0.7F), qrs(1.7F, 0.25F), clearance(0.0F, 1.0F);
  std::int64_t at = std::uniform_int_distribution<std::int64_t>(0, 3 * spacing)(rng);
  while (at < samples) {
    const double u = unit(rng);
    const bool beat = u < 0.45;
    c.position.push_back(at);
    c.amplitude.push_back(beat ? qrs(rng) * (unit(rng) < 0.02 ? 30.0F : 1.0F) : noise(rng));
    c.slope.push_back(beat ? 0.3F + 0.2F * static_cast<float>(unit(rng))
                           : 0.03F + 0.1F * static_cast<float>(unit(rng)));
    c.background.push_back(c.amplitude.back() * clearance(rng) / 8.0F);
    std::int64_t gap = spacing + std::uniform_int_distribution<std::int64_t>(0, 2 * spacing)(rng);
    if (u > 0.997)
      gap *= 200;  // a dropout: no candidate for a long while
    else if (u > 0.99)
      gap *= 12;  // a pause
    at += gap;
  }
  return c;
}

/// qrs_select on both sides with the same candidates.
void expect_same_selection(const candidate_set& c, std::int64_t samples, const sig::detail::qrs_rules& rules,
                           const std::string& what) {
  sig::qrs_detection host, gpu;
  host.candidates = to_array(c.position);
  host.amplitude = to_array(c.amplitude);
  host.slope = to_array(c.slope);
  host.background = to_array(c.background);
  gpu.candidates = to_device(c.position);
  gpu.amplitude = to_device(c.amplitude);
  gpu.slope = to_device(c.slope);
  gpu.background = to_device(c.background);
  const auto want = to_vector<std::int64_t>(sig::detail::qrs_select_host(host, samples, rules, {}));
  const auto got = from_device<std::int64_t>(sig::detail::qrs_select_cuda(gpu, samples, rules, {}));
  EXPECT_EQ(int_mismatch(got, want), "") << what << " (" << c.position.size() << " candidates, " << want.size()
                                         << " beats on the host)";
}

/// Every intermediate of detect_qrs on the GPU against the host.
void expect_same_detection(const sig::qrs_detection& gpu, const sig::qrs_detection& cpu, zf::stream_view stream,
                           const std::string& what) {
  EXPECT_EQ(float_mismatch(from_device<float>(gpu.filtered, stream), to_vector<float>(cpu.filtered)), "")
      << what << ": filtered";
  EXPECT_EQ(float_mismatch(from_device<float>(gpu.energy, stream), to_vector<float>(cpu.energy)), "")
      << what << ": energy";
  EXPECT_EQ(int_mismatch(from_device<std::int64_t>(gpu.candidates, stream), to_vector<std::int64_t>(cpu.candidates)),
            "")
      << what << ": candidates";
  EXPECT_EQ(float_mismatch(from_device<float>(gpu.amplitude, stream), to_vector<float>(cpu.amplitude)), "")
      << what << ": amplitude";
  EXPECT_EQ(float_mismatch(from_device<float>(gpu.slope, stream), to_vector<float>(cpu.slope)), "")
      << what << ": slope";
  EXPECT_EQ(float_mismatch(from_device<float>(gpu.background, stream), to_vector<float>(cpu.background)), "")
      << what << ": background";
  EXPECT_EQ(int_mismatch(from_device<std::int64_t>(gpu.peaks, stream), to_vector<std::int64_t>(cpu.peaks)), "")
      << what << ": peaks";
}

/// Rhythm: the intervals bit for bit; the irregularity is two logf, each within 1 ulp on the GPU
/// and correctly rounded or nearly so on the host, so their sum may differ by 2 ulp.
void expect_same_rhythm(const sig::rhythm& gpu, const sig::rhythm& cpu, zf::stream_view stream,
                        const std::string& what) {
  EXPECT_EQ(float_mismatch(from_device<float>(gpu.rr_before, stream), to_vector<float>(cpu.rr_before)), "")
      << what << ": rr_before";
  EXPECT_EQ(float_mismatch(from_device<float>(gpu.rr_after, stream), to_vector<float>(cpu.rr_after)), "")
      << what << ": rr_after";
  EXPECT_EQ(float_mismatch(from_device<float>(gpu.local_rr, stream), to_vector<float>(cpu.local_rr)), "")
      << what << ": local_rr";
  EXPECT_EQ(ulp_mismatch(from_device<float>(gpu.irregularity, stream), to_vector<float>(cpu.irregularity), 2), "")
      << what << ": irregularity";
}

/// segment_recording on the GPU against the host: every field (the robust method computes no gate).
void expect_same_recording(const sig::segmentation& gpu, const sig::segmentation& cpu, zf::stream_view stream,
                           const std::string& what) {
  expect_same_segmentation_fields(gpu, cpu, stream, what);
  EXPECT_FALSE(gpu.gate.valid()) << what;
  expect_same_rhythm(gpu.rr, cpu.rr, stream, what);
}

}  // namespace

using SignalRobustCuda = cuda_signal_test;

TEST_F(SignalRobustCuda, EnergyMatchesTheHost) {
  std::mt19937_64 rng(901);
  std::normal_distribution<float> normal(0.3F, 2.0F);
  for (int trial = 0; trial < 30; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, trial < 25 ? 20000 : 3000000)(rng);
    std::vector<float> y(static_cast<std::size_t>(n));
    for (auto& v : y) v = normal(rng);
    // Gaps and overflow: NaN, ±inf and squares past float's range have no energy.
    for (int k = 0; k < 20 && n > 1; ++k) {
      const auto at = std::uniform_int_distribution<std::size_t>(0, y.size() - 1)(rng);
      y[at] = std::vector<float>{nan_f, inf_f, -inf_f, 3.0e19F, -2.0e19F, 1.8e19F}[static_cast<std::size_t>(k % 6)];
    }
    // Windows narrower and wider than the runs the energy is cut into (qrs_energy_run_length).
    const std::int64_t delay = std::uniform_int_distribution<std::int64_t>(0, trial % 3 == 0 ? 1500 : 60)(rng);
    const std::int64_t width = std::uniform_int_distribution<std::int64_t>(1, 2 * delay + 1)(rng);
    const double mean_tap = 0.01 * normal(rng);
    std::vector<float> x(y.size());
    for (auto& v : x) v = normal(rng);
    // Gaps in the raw signal silence the windows that hold them, and only those.
    for (int k = 0; k < 4 && n > 1; ++k)
      x[std::uniform_int_distribution<std::size_t>(0, x.size() - 1)(rng)] = k % 2 ? inf_f : nan_f;
    const auto want =
        to_vector<float>(sig::detail::qrs_energy_host(to_array(x), to_array(y), width, delay, mean_tap, {}));
    const auto got =
        from_device<float>(sig::detail::qrs_energy_cuda(to_device(x), to_device(y), width, delay, mean_tap, {}));
    ASSERT_EQ(float_mismatch(got, want), "") << "trial " << trial << ", n " << n << ", delay " << delay;
  }
}

TEST_F(SignalRobustCuda, CandidatesMatchTheHost) {
  std::mt19937_64 rng(902);
  std::normal_distribution<float> normal(0.0F, 1.0F);
  for (int trial = 0; trial < 30; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(60, trial < 25 ? 20000 : 2000000)(rng);
    std::vector<float> x(static_cast<std::size_t>(n)), energy(static_cast<std::size_t>(n));
    for (auto& v : x) v = normal(rng);
    for (auto& v : energy) v = normal(rng) * normal(rng);
    if (trial % 3 == 0)
      for (int k = 0; k < 10; ++k) x[std::uniform_int_distribution<std::size_t>(0, x.size() - 1)(rng)] = nan_f;
    const std::int64_t offset = std::uniform_int_distribution<std::int64_t>(1, 50)(rng);
    const std::int64_t half_window = std::uniform_int_distribution<std::int64_t>(1, 40)(rng);
    const std::int64_t block = std::uniform_int_distribution<std::int64_t>(1, 60)(rng);
    std::vector<std::int64_t> gate;  // ascending, every candidate inside the energy
    for (std::int64_t g = std::uniform_int_distribution<std::int64_t>(0, 20)(rng); g + offset < n;
         g += std::uniform_int_distribution<std::int64_t>(1, 120)(rng))
      gate.push_back(g);
    sig::qrs_detection host, gpu;
    sig::detail::qrs_candidates_host(to_array(x), to_array(energy), to_array(gate), offset, half_window, block, host,
                                     {});
    sig::detail::qrs_candidates_cuda(to_device(x), to_device(energy), to_device(gate), offset, half_window, block, gpu,
                                     {});
    const std::string what = "trial " + std::to_string(trial);
    ASSERT_EQ(int_mismatch(from_device<std::int64_t>(gpu.candidates), to_vector<std::int64_t>(host.candidates)), "")
        << what;
    ASSERT_EQ(float_mismatch(from_device<float>(gpu.amplitude), to_vector<float>(host.amplitude)), "") << what;
    ASSERT_EQ(float_mismatch(from_device<float>(gpu.slope), to_vector<float>(host.slope)), "") << what;
    ASSERT_EQ(float_mismatch(from_device<float>(gpu.background), to_vector<float>(host.background)), "") << what;
  }
  // No candidates at all.
  sig::qrs_detection host, gpu;
  const std::vector<float> x(500, 1.0F);
  sig::detail::qrs_candidates_cuda(to_device(x), to_device(x), to_device(std::vector<std::int64_t>{}), 5, 5, 5, gpu,
                                   {});
  EXPECT_EQ(gpu.candidates.size(), 0);
  EXPECT_EQ(gpu.amplitude.size(), 0);
  EXPECT_EQ(gpu.slope.size(), 0);
  EXPECT_EQ(gpu.background.size(), 0);
}

TEST_F(SignalRobustCuda, SelectionMatchesTheHost) {
  std::mt19937_64 rng(903);
  sig::segment_params params;  // 250 Hz: 300 s stretches learning from the 30 s before them
  const auto defaults = rules_of(params);
  for (int trial = 0; trial < 24; ++trial) {
    const std::int64_t samples = std::uniform_int_distribution<std::int64_t>(1000, trial < 16 ? 400000 : 6000000)(rng);
    const auto c = random_candidates(rng, samples, 40);
    const std::int64_t total = samples + std::uniform_int_distribution<std::int64_t>(0, 500)(rng);
    expect_same_selection(c, total, defaults, "default rules, trial " + std::to_string(trial));
  }
  // Short stretches: many joins, and stretches whose overlap holds more than their own samples.
  for (const auto& [stretch, overlap, learn] :
       {std::tuple{2000.0, 500.0, 200.0}, std::tuple{700.0, 690.0, 300.0}, std::tuple{500.0, 1200.0, 400.0},
        std::tuple{30000.0, 2000.0, 2000.0}}) {
    params.stretch_seconds = stretch / 250;
    params.overlap_seconds = overlap / 250;
    params.learn_seconds = learn / 250;
    const auto rules = rules_of(params);
    for (int trial = 0; trial < 6; ++trial) {
      const auto c = random_candidates(rng, 300000, 30 + 20 * trial);
      expect_same_selection(c, 300000, rules,
                            "stretch " + std::to_string(stretch) + ", overlap " + std::to_string(overlap) + ", trial " +
                                std::to_string(trial));
    }
  }
  // Nothing, one and two candidates.
  expect_same_selection({}, 1000, defaults, "no candidate");
  expect_same_selection({{500}, {1.0F}, {0.2F}, {0.0F}}, 1000, defaults, "one candidate");
  expect_same_selection({{500, 800}, {1.0F, 1.2F}, {0.2F, 0.3F}, {0.5F, 0.5F}}, 1000, defaults, "two candidates");
}

TEST_F(SignalRobustCuda, RhythmCheckMatchesTheHost) {
  // A regular rhythm (beats every 290-310 samples, clear of their background) with noise peaks
  // in about one interval in five (less steep, in noise) and stretches of irregular rhythm: the
  // rhythm check drops beats on the host, and the GPU drops the same ones; some beats are displaced
  // by an earlier noise peak, and the GPU moves the same ones back; the rhythm paths between
  // clear beats re-decide the noisy stretches, and the GPU's paths are the same.
  std::mt19937_64 rng(905);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto rules = rules_of({});
  for (int trial = 0; trial < 6; ++trial) {
    candidate_set c;
    const auto add = [&](std::int64_t at, float amplitude, float slope, float background) {
      c.position.push_back(at);
      c.amplitude.push_back(amplitude);
      c.slope.push_back(slope);
      c.background.push_back(background);
    };
    std::int64_t at = 100;
    while (at < 2000000) {
      const bool irregular = (at / 60000) % 4 == 3;
      const std::int64_t interval = irregular ? std::uniform_int_distribution<std::int64_t>(180, 420)(rng)
                                              : std::uniform_int_distribution<std::int64_t>(290, 310)(rng);
      const bool noisy = unit(rng) < 0.3;
      if (noisy && unit(rng) < 0.2) {
        // A displaced beat: a noise peak 100 samples early wins, the beat itself is weak.
        add(at - 100, 10.0F + static_cast<float>(unit(rng)), 0.5F, 0.5F);
        add(at, 3.0F + static_cast<float>(unit(rng)), 1.0F, 0.5F);
      } else {
        // In the irregular stretches some beats stand deep in noise (under 5 times their
        // background), where the rhythm paths take the range of the clear intervals.
        const float deep = irregular && noisy && unit(rng) < 0.5 ? 3.0F : 0.5F;
        add(at, 10.0F + static_cast<float>(unit(rng)), 1.0F, noisy ? deep : 0.1F);
      }
      if (noisy && unit(rng) < 0.6)
        add(at + interval / 2, 9.0F + static_cast<float>(unit(rng)), 0.3F + 0.6F * static_cast<float>(unit(rng)), 0.5F);
      at += interval;
    }
    sig::qrs_detection host;
    host.candidates = to_array(c.position);
    host.amplitude = to_array(c.amplitude);
    host.slope = to_array(c.slope);
    host.background = to_array(c.background);
    auto no_check = rules;
    no_check.rhythm.noisy_snr = 0;
    no_check.path_trigger.anchor_slope_fraction = 1e30F;
    const auto with = sig::detail::qrs_select_host(host, 2000000, rules, {});
    const auto without = sig::detail::qrs_select_host(host, 2000000, no_check, {});
    EXPECT_LT(with.size() + 100, without.size()) << "trial " << trial << ": the check dropped too few to tell";
    auto no_path = rules;
    no_path.path_trigger.anchor_slope_fraction = 1e30F;  // no beat anchors a rhythm path
    auto no_move = no_path;
    no_move.recentre.slope_fraction = 1e30F;
    const auto kept = to_vector<std::int64_t>(sig::detail::qrs_select_host(host, 2000000, no_move, {}));
    const auto unpathed = to_vector<std::int64_t>(sig::detail::qrs_select_host(host, 2000000, no_path, {}));
    const auto moved = to_vector<std::int64_t>(with);
    std::vector<std::int64_t> only_moved, only_pathed;
    std::set_difference(unpathed.begin(), unpathed.end(), kept.begin(), kept.end(), std::back_inserter(only_moved));
    EXPECT_GE(only_moved.size(), 20u) << "trial " << trial << ": the check moved too few beats to tell";
    std::set_symmetric_difference(moved.begin(), moved.end(), unpathed.begin(), unpathed.end(),
                                  std::back_inserter(only_pathed));
    EXPECT_GE(only_pathed.size(), 20u) << "trial " << trial << ": the rhythm paths changed too few beats to tell";
    auto regular_only = rules;
    regular_only.path_trigger.irregular_snr = 0;  // no path where the rhythm is irregular
    const auto regular = to_vector<std::int64_t>(sig::detail::qrs_select_host(host, 2000000, regular_only, {}));
    std::vector<std::int64_t> only_irregular;
    std::set_symmetric_difference(moved.begin(), moved.end(), regular.begin(), regular.end(),
                                  std::back_inserter(only_irregular));
    EXPECT_GE(only_irregular.size(), 10u) << "trial " << trial << ": too few paths in the irregular rhythm to tell";
    expect_same_selection(c, 2000000, rules, "rhythm check, trial " + std::to_string(trial));
  }
}

TEST_F(SignalRobustCuda, SparseCandidatesAcrossStretches) {
  // Fewer than 16 candidates in a stretch make its levels learn from candidates that the next
  // stretch learns from too (each stretch thread sorts them in the shared scratch): the GPU must
  // still decide exactly as the host, which decides one stretch after another.
  std::mt19937_64 rng(904);
  sig::segment_params params;
  params.stretch_seconds = 8;  // 2000 samples
  params.overlap_seconds = 2;
  params.learn_seconds = 0.8;
  const auto rules = rules_of(params);
  for (int trial = 0; trial < 10; ++trial) {
    candidate_set c;
    std::lognormal_distribution<float> amplitude(0.0F, 1.0F);
    for (std::int64_t at = 17; at < 400000; at += std::uniform_int_distribution<std::int64_t>(150, 400)(rng)) {
      c.position.push_back(at);
      c.amplitude.push_back(amplitude(rng));
      c.slope.push_back(0.1F * amplitude(rng));
      c.background.push_back(0.1F * amplitude(rng));
    }
    expect_same_selection(c, 400000, rules, "sparse, trial " + std::to_string(trial));
  }
}

TEST_F(SignalRobustCuda, EmbedWindowsMatchesTheHost) {
  std::mt19937_64 rng(905);
  std::normal_distribution<float> normal(2.0F, 3.0F);
  for (int trial = 0; trial < 30; ++trial) {
    const std::int64_t n = std::uniform_int_distribution<std::int64_t>(1, trial < 25 ? 30000 : 4000000)(rng);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = normal(rng);
    for (int k = 0; k < 5; ++k)
      x[std::uniform_int_distribution<std::size_t>(0, x.size() - 1)(rng)] = k % 2 ? nan_f : inf_f;
    const std::int64_t before = std::uniform_int_distribution<std::int64_t>(0, 150)(rng);
    const std::int64_t after = std::uniform_int_distribution<std::int64_t>(1, 250)(rng);
    const std::int64_t width = before + after + std::uniform_int_distribution<std::int64_t>(0, 60)(rng);
    std::vector<std::int64_t> peaks;
    const auto count = std::uniform_int_distribution<std::size_t>(0, trial < 25 ? 400 : 20000)(rng);
    for (std::size_t i = 0; i < count; ++i)
      peaks.push_back(std::uniform_int_distribution<std::int64_t>(-before - after - 5, n + before + 5)(rng));
    if (trial == 0)
      peaks.insert(peaks.end(), {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                                 std::numeric_limits<std::int64_t>::max() - after, -1, 0, n - 1, n});
    const sig::normalization norm{normal(rng), std::uniform_real_distribution<float>(0.05F, 8.0F)(rng)};
    const auto want = sig::embed_windows(to_array(x), to_array(peaks), before, after, width, norm, {});
    const auto got = sig::embed_windows(to_device(x), to_device(peaks), before, after, width, norm, {});
    ASSERT_EQ(got.where(), gpu0);
    ASSERT_EQ(got.shape(), want.shape()) << "trial " << trial;
    ASSERT_EQ(float_mismatch(flat_floats(got), flat_floats(want)), "") << "trial " << trial;
  }
}

TEST_F(SignalRobustCuda, RhythmMatchesTheHost) {
  std::mt19937_64 rng(906);
  for (int trial = 0; trial < 30; ++trial) {
    const auto count = std::uniform_int_distribution<std::size_t>(0, trial < 25 ? 300 : 200000)(rng);
    std::vector<std::int64_t> peaks;
    std::int64_t at = std::uniform_int_distribution<std::int64_t>(0, 500)(rng);
    for (std::size_t i = 0; i < count; ++i) {
      peaks.push_back(at);
      const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
      at += u < 0.3 ? 250 : std::uniform_int_distribution<std::int64_t>(u < 0.4 ? 60 : 150, u > 0.97 ? 2000 : 400)(rng);
    }
    const double rate = std::vector<double>{128, 250, 360, 500, 977.5}[static_cast<std::size_t>(trial % 5)];
    const auto want = sig::rhythm_features(to_array(peaks), rate, {});
    const auto got = sig::rhythm_features(to_device(peaks), rate, {});
    ASSERT_EQ(got.irregularity.where(), gpu0);
    expect_same_rhythm(got, want, {}, "trial " + std::to_string(trial) + ", " + std::to_string(count) + " beats");
    if (HasFailure()) return;
  }
}

TEST_F(SignalRobustCuda, CombinedScoresMatchTheHost) {
  std::mt19937_64 rng(907);
  std::lognormal_distribution<float> errors(-3.0F, 0.6F);
  std::uniform_real_distribution<float> unit(0.0F, 1.0F);
  for (int trial = 0; trial < 20; ++trial) {
    const auto n = std::uniform_int_distribution<std::size_t>(1, trial < 15 ? 500 : 300000)(rng);
    std::vector<float> error(n), irregularity(n);
    for (std::size_t i = 0; i < n; ++i) {
      error[i] = errors(rng);
      irregularity[i] = unit(rng) < 0.5F ? 0.0F : 0.05F * unit(rng);
    }
    error[0] = trial % 4 == 1 ? nan_f : error[0];
    irregularity[n - 1] = trial % 4 == 2 ? nan_f : irregularity[n - 1];
    const auto want = sig::combine_beat_scores(to_array(error), to_array(irregularity), {});
    const auto got = sig::combine_beat_scores(to_device(error), to_device(irregularity), {});
    for (const auto& [g, w, name] :
         {std::tuple{&got.score, &want.score, "score"}, std::tuple{&got.morphology, &want.morphology, "morphology"},
          std::tuple{&got.rhythm, &want.rhythm, "rhythm"}}) {
      ASSERT_EQ(g->where(), gpu0);
      const auto a = from_device<float>(*g);
      const auto b = to_vector<float>(*w);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i)
        ASSERT_LE(std::fabs(static_cast<double>(a[i]) - b[i]),
                  1e-5 * std::max(1.0, std::fabs(static_cast<double>(b[i]))))
            << "trial " << trial << ", " << name << "[" << i << "]: GPU " << a[i] << ", host " << b[i];
    }
  }
}

TEST_F(SignalRobustCuda, DetectQrsEqualsTheHost) {
  for (const ecg_case c : {ecg_case{12, 250, 70, 1}, ecg_case{7, 360, 110, 2}, ecg_case{6, 500, 45, 3}}) {
    const auto samples = c.samples();
    const float center = sig::robust_zscore(to_array(samples), {}).center;
    const auto cpu = sig::detect_qrs(to_array(samples), c.params(), center, {});
    const auto gpu = sig::detect_qrs(to_device(samples), c.params(), center, {});
    ASSERT_GT(cpu.peaks.size(), 200);
    expect_same_detection(gpu, cpu, {}, c.name());
  }
}

TEST_F(SignalRobustCuda, SegmentRecordingEqualsTheHost) {
  for (const ecg_case c : {ecg_case{11, 250, 75, 11}, ecg_case{6, 360, 95, 12}, ecg_case{40, 250, 60, 13}}) {
    const auto samples = c.samples();
    const auto cpu = sig::segment_recording(to_array(samples), c.params(), {});
    const auto gpu = sig::segment_recording(to_device(samples), c.params(), {});
    ASSERT_GT(cpu.peaks.size(), 300);
    expect_same_recording(gpu, cpu, {}, c.name());
  }
}

TEST_F(SignalRobustCuda, SegmentRecordingOnACreatedStream) {
  const auto ecg = make_ecg(0.15, 250, 80, 21);
  const auto cpu = sig::segment_recording(to_array(ecg.samples), {}, {});
  on_created_stream([&](zf::stream_view stream) {
    const zf::array x = to_device(ecg.samples, stream);
    const auto gpu = sig::segment_recording(x, {}, stream);
    expect_same_recording(gpu, cpu, stream, "created stream");
  });
}

TEST_F(SignalRobustCuda, LongDropoutEqualsTheHost) {
  // Twenty minutes with a six-minute flat line (electrode off) and a four-minute gap of NaN: whole
  // 300 s stretches with almost no candidates.
  auto samples = make_ecg(20.0 / 60, 250, 70, 31).samples;
  std::fill(samples.begin() + 250 * 200, samples.begin() + 250 * 560, 0.0F);
  std::fill(samples.begin() + 250 * 800, samples.begin() + 250 * 1040, nan_f);
  const auto cpu = sig::segment_recording(to_array(samples), {}, {});
  const auto gpu = sig::segment_recording(to_device(samples), {}, {});
  ASSERT_GT(cpu.peaks.size(), 500);
  expect_same_recording(gpu, cpu, {}, "dropout");
}

TEST_F(SignalRobustCuda, PlaceBeatsEqualsTheHost) {
  // The beats of a joint detection (classify/joint_detection.hpp) placed on the GPU: every other
  // detection, as the host places them.
  const ecg_case c{8, 360, 80, 41};
  const auto samples = c.samples();
  auto cpu = sig::segment_recording(to_array(samples), c.params(), {});
  auto gpu = sig::segment_recording(to_device(samples), c.params(), {});
  const auto all = to_vector<std::int64_t>(cpu.peaks);
  std::vector<std::int64_t> half;
  for (std::size_t b = 0; b < all.size(); b += 2) half.push_back(all[b]);
  sig::place_beats(cpu, to_array(samples), to_array(half), c.params(), {});
  sig::place_beats(gpu, to_device(samples), to_device(half), c.params(), {});
  ASSERT_EQ(cpu.peaks.size(), static_cast<std::int64_t>(half.size()));
  expect_same_recording(gpu, cpu, {}, "placed");
}
