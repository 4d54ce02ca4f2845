// combine_beat_scores against a double-precision re-computation of beat_score.hpp: the median
// and MAD (with normalize.hpp's fall-backs) re-computed here, the scale floors, the sum of the
// positive parts; a non-finite reconstruction error ranks above every finite one; sizes, dtypes
// and the empty case.
#include "zeroflow/signal/beat_score.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "signal/robust_reference.hpp"
#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/error.hpp"

namespace zf = zeroflow;
namespace sig = zeroflow::signal;
using namespace zeroflow::signal::testing;

namespace {

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();

struct ref_scores {
  std::vector<double> score, morphology, rhythm;
};

/// beat_score.hpp's definition: z(v) = (v − median) / max(1.4826·MAD, floor), the morphology floor
/// relative to the median error; a NaN error is the most anomalous shape, a NaN irregularity
/// counts as ordinary.
ref_scores reference(const std::vector<float>& error, const std::vector<float>& irregularity) {
  const auto m = ref_robust_zscore(std::vector<double>(error.begin(), error.end()));
  const auto r = ref_robust_zscore(std::vector<double>(irregularity.begin(), irregularity.end()));
  const double m_scale = std::max({m.scale, 0.05 * std::fabs(m.center), 1e-12});
  const double r_scale = std::max(r.scale, 0.03);
  ref_scores out;
  for (std::size_t i = 0; i < error.size(); ++i) {
    const double zm = std::isnan(error[i]) ? std::numeric_limits<double>::infinity() : (error[i] - m.center) / m_scale;
    const double zr = std::isnan(irregularity[i]) ? 0.0 : (irregularity[i] - r.center) / r_scale;
    out.morphology.push_back(zm);
    out.rhythm.push_back(zr);
    out.score.push_back(std::max(0.0, zm) + std::max(0.0, zr));
  }
  return out;
}

/// Float32 results are the double reference up to the rounding of the centre, the scale (the
/// float MAD may be one ulp off) and the subtraction: relative 1e-5 of the larger of the value
/// and the scale's unit.
bool close(float got, double want) {
  if (std::isinf(want)) return got >= 3.0e38F;  // "largest": infinity or float's maximum
  return std::fabs(static_cast<double>(got) - want) <= 1e-5 * std::max(1.0, std::fabs(want));
}

void expect_scores_match(const sig::beat_scores& got, const std::vector<float>& error,
                         const std::vector<float>& irregularity, const std::string& what) {
  const auto want = reference(error, irregularity);
  const struct {
    const zf::array& got;
    const std::vector<double>& want;
    const char* name;
  } fields[] = {{got.score, want.score, "score"},
                {got.morphology, want.morphology, "morphology"},
                {got.rhythm, want.rhythm, "rhythm"}};
  for (const auto& f : fields) {
    ASSERT_EQ(f.got.type(), zf::float32) << what;
    const auto values = to_vector<float>(f.got);
    ASSERT_EQ(values.size(), error.size()) << what << ": " << f.name;
    int failures = 0;
    for (std::size_t i = 0; i < values.size() && failures < 5; ++i)
      if (!close(values[i], f.want[i])) {
        ++failures;
        ADD_FAILURE() << what << ": " << f.name << "[" << i << "] = " << values[i] << ", want " << f.want[i]
                      << " (error " << error[i] << ", irregularity " << irregularity[i] << ")";
      }
  }
}

}  // namespace

using SignalBeatScore = poisoned_host;

TEST_F(SignalBeatScore, MatchesTheDefinitionOnRandomBeats) {
  std::mt19937_64 rng(831);
  std::lognormal_distribution<float> errors(-3.0F, 0.5F);
  std::uniform_real_distribution<float> unit(0.0F, 1.0F);
  for (int trial = 0; trial < 40; ++trial) {
    const auto n = std::uniform_int_distribution<std::size_t>(1, trial < 30 ? 40 : 20000)(rng);
    std::vector<float> error(n), irregularity(n);
    for (std::size_t i = 0; i < n; ++i) {
      error[i] = errors(rng) * (unit(rng) < 0.03F ? 20.0F : 1.0F);  // a few beats of another shape
      // Mostly a steady rhythm (0: the median and MAD are then 0 and the fall-backs decide),
      // sometimes small variations, rarely a premature beat.
      const float u = unit(rng);
      irregularity[i] = u < (trial % 2 ? 0.6F : 0.2F) ? 0.0F : u < 0.95F ? 0.02F * unit(rng) : 0.5F + unit(rng);
    }
    expect_scores_match(sig::combine_beat_scores(to_array(error), to_array(irregularity), {}), error, irregularity,
                        "trial " + std::to_string(trial) + ", " + std::to_string(n) + " beats");
    if (HasFailure()) return;
  }
}

TEST_F(SignalBeatScore, FloorsKeepAlikeBeatsAlike) {
  // Errors within ±0.1 % of 1: 1.4826·MAD is ~1e-3, below the floor 0.05 · median, so a beat
  // with error 1.1 scores (1.1 − median) / 0.05 ≈ 2, not ~70.
  std::vector<float> error, irregularity;
  for (int i = 0; i < 101; ++i) {
    error.push_back(1.0F + 0.00002F * static_cast<float>(i - 50));
    irregularity.push_back(0.001F * static_cast<float>(i % 5));  // 1.4826·MAD ~ 1.5e-3 < 0.03
  }
  error[7] = 1.1F;
  irregularity[9] = 0.3F;
  const auto s = sig::combine_beat_scores(to_array(error), to_array(irregularity), {});
  expect_scores_match(s, error, irregularity, "floors");
  const auto score = to_vector<float>(s.score);
  const double median_error = ref_median(std::vector<double>(error.begin(), error.end()));
  EXPECT_NEAR(score[7], (1.1 - median_error) / (0.05 * median_error), 1e-4);
  EXPECT_NEAR(score[9], (0.3 - 0.002) / 0.03, 1e-4);  // median irregularity 0.002, floor 0.03
  for (std::size_t i = 0; i < score.size(); ++i)
    if (i != 7 && i != 9) {
      EXPECT_LT(score[i], 0.2F) << i;
    }
}

TEST_F(SignalBeatScore, NonFiniteErrorsRankHighest) {
  std::mt19937_64 rng(832);
  std::lognormal_distribution<float> errors(0.0F, 1.0F);
  std::vector<float> error(500), irregularity(500, 0.0F);
  for (auto& e : error) e = errors(rng);
  error[123] = nan_f;
  error[321] = std::numeric_limits<float>::infinity();
  irregularity[400] = 5.0F;   // a very irregular beat of ordinary shape
  irregularity[401] = nan_f;  // rhythm unknown: no contribution
  error[401] = 0.0F;
  const auto s = sig::combine_beat_scores(to_array(error), to_array(irregularity), {});
  expect_scores_match(s, error, irregularity, "non-finite");
  const auto score = to_vector<float>(s.score);
  const auto morphology = to_vector<float>(s.morphology);
  for (std::size_t i = 0; i < score.size(); ++i) {
    if (i == 123 || i == 321) continue;
    EXPECT_GT(score[123], score[i]) << i;
    EXPECT_GT(morphology[123], morphology[i]) << i;
    EXPECT_GT(score[321], score[i]) << i;
  }
  EXPECT_EQ(to_vector<float>(s.rhythm)[401], 0.0F);
  EXPECT_EQ(score[401], 0.0F);  // error 0 is below the median, rhythm unknown
  // Every error NaN: every beat equally (and maximally) anomalous, nothing thrown.
  const std::vector<float> all_nan(5, nan_f), zeros(5, 0.0F);
  expect_scores_match(sig::combine_beat_scores(to_array(all_nan), to_array(zeros), {}), all_nan, zeros, "all NaN");
}

TEST_F(SignalBeatScore, FewBeatsAndIdenticalBeats) {
  for (const auto& [error, irregularity] : std::vector<std::pair<std::vector<float>, std::vector<float>>>{
           {{0.5F}, {0.0F}},
           {{0.5F, 0.7F}, {0.0F, 0.2F}},
           {{0.3F, 0.3F, 0.3F, 0.3F}, {0.1F, 0.1F, 0.1F, 0.1F}},  // MAD and deviation 0
           {{0.0F, 0.0F, 0.0F}, {0.0F, 0.0F, 0.0F}},              // the 1e-12 floor: a zero median error
           {{0.0F, 0.0F, 0.0F, 1e-6F}, {0.0F, 0.0F, 0.0F, 0.0F}}}) {
    const auto s = sig::combine_beat_scores(to_array(error), to_array(irregularity), {});
    expect_scores_match(s, error, irregularity, std::to_string(error.size()) + " beats");
    for (float v : to_vector<float>(s.score)) EXPECT_GE(v, 0.0F);
  }
  const auto empty = sig::combine_beat_scores(to_array(std::vector<float>{}), to_array(std::vector<float>{}), {});
  EXPECT_EQ(empty.score.shape(), (zf::shape_t{0}));
  EXPECT_EQ(empty.morphology.shape(), (zf::shape_t{0}));
  EXPECT_EQ(empty.rhythm.shape(), (zf::shape_t{0}));
}

TEST_F(SignalBeatScore, RefusesBadArguments) {
  const auto three = to_array(std::vector<float>{1, 2, 3});
  EXPECT_THROW((void)sig::combine_beat_scores(three, to_array(std::vector<float>{1, 2}), {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::combine_beat_scores(to_array(std::vector<double>{1, 2, 3}), three, {}), zf::invalid_argument);
  EXPECT_THROW((void)sig::combine_beat_scores(three, to_array(std::vector<std::int64_t>{1, 2, 3}), {}),
               zf::invalid_argument);
  EXPECT_THROW((void)sig::combine_beat_scores(to_array(std::vector<float>(6, 1.0F)).reshape({2, 3}),
                                              to_array(std::vector<float>(6, 1.0F)).reshape({2, 3}), {}),
               zf::invalid_argument);
}
