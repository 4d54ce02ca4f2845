// The AF strip prior (af_strip.hpp): its measures on rhythms whose values are known, the shipped
// file's content and provenance, and the reader's refusals.
#include "zeroflow/classify/af_strip.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "synthetic_rows.hpp"
#include "zeroflow/classify/af_rhythm.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/safetensors.hpp"

namespace zc = zeroflow::classify;
namespace zio = zeroflow::io;

namespace {

constexpr double rate = 250;

std::vector<std::int64_t> peaks_of(const std::vector<double>& intervals) {
  return zc::synthetic::peaks_of(intervals, rate);
}

zio::safetensor f64(const std::string& name, const std::vector<double>& values) {
  zio::safetensor t{name, "F64", {static_cast<std::int64_t>(values.size())}, std::string(values.size() * 8, '\0')};
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

std::string feature_names() {
  std::string out;
  for (auto name : zc::af_strip_feature_names) out += (out.empty() ? "" : ",") + std::string(name);
  return out;
}

zio::safetensors_content prior_content() {
  zio::safetensors_content c;
  c.metadata = {{"features", feature_names()}, {"source", "a test"}};
  c.tensors = {f64("mean", {0, 0, 0, 0, 0, 0, 0, 0}),
               f64("scale", {1, 1, 1, 1, 1, 1, 1, 1}),
               f64("weight", {1, 0, 0, 0, 0, 0, 0, 0}),
               f64("bias", {-0.5}),
               f64("threshold", {0.5}),
               f64("p_wave_coherence_max", {0.8})};
  return c;
}

}  // namespace

TEST(AfStrip, MeasuresARhythmWhoseValuesAreKnown) {
  // Intervals alternating 0.8 s and 0.9 s: every step is |ln(0.9/0.8)| = 0.118 (irregular, above
  // 0.10); no beat is early and followed by a pause against its local median, so all count.
  std::vector<double> rr;
  for (int i = 0; i < 20; ++i) rr.push_back(i % 2 == 0 ? 0.8 : 0.9);
  const auto peaks = peaks_of(rr);
  const std::vector<double> coherence(peaks.size(), 0.3);
  std::vector<double> similarity(peaks.size(), 0.9);
  similarity[0] = std::nan("");  // unmeasured values are not counted
  // The f-wave rate of the interval before beat b is b's own: 5 + b. Beat 0 has no interval.
  std::vector<double> f_wave(peaks.size());
  for (std::size_t b = 0; b < peaks.size(); ++b) f_wave[b] = 5.0 + static_cast<double>(b);
  f_wave[0] = std::nan("");
  const auto x = zc::measure_af_strip(peaks, rate, {}, {coherence, similarity, f_wave}, {});
  ASSERT_TRUE(x.has_value());
  EXPECT_DOUBLE_EQ((*x)[0], 1.0);
  EXPECT_NEAR((*x)[1], std::log(0.9 / 0.8), 1e-12);
  EXPECT_DOUBLE_EQ((*x)[2], 0.3);
  EXPECT_DOUBLE_EQ((*x)[3], 0.9);
  EXPECT_NEAR((*x)[4], std::log(0.85), 1e-12);  // the median of ten 0.8 s and ten 0.9 s intervals
  EXPECT_NEAR((*x)[5], std::log(19.0), 1e-12);  // 21 beats, 19 steps
  // Signed steps +0.118 and −0.118 alternate: rounded to the 0.10 step, +1 and −1. Of the 18
  // pairs of consecutive steps, 2 are distinct: a repeating pattern, however irregular.
  EXPECT_NEAR((*x)[6], 2.0 / 18.0, 1e-12);
  EXPECT_DOUBLE_EQ((*x)[7], 15.5);  // beats 1..20: 6..25, the median of twenty values
  // A beat left out takes the f-wave rate of its own interval and of the next one with it: the
  // T–Q interval after it follows a T wave that is not the atria's beat's.
  std::vector<std::uint8_t> last_out(peaks.size(), 0);
  last_out[19] = 1;  // rates 24 and 25 leave: 6..23, median 14.5
  EXPECT_DOUBLE_EQ((*zc::measure_af_strip(peaks, rate, last_out, {coherence, similarity, f_wave}, {}))[7], 14.5);
  // Without atrial measures those are NaN; with every beat left out there is nothing to judge.
  const auto bare = zc::measure_af_strip(peaks, rate, {}, {}, {});
  ASSERT_TRUE(bare.has_value());
  EXPECT_TRUE(std::isnan((*bare)[2]) && std::isnan((*bare)[3]) && std::isnan((*bare)[7]));
  const std::vector<std::uint8_t> all(peaks.size(), 1);
  EXPECT_FALSE(zc::measure_af_strip(peaks, rate, all, {}, {}).has_value());
  // Left-out beats take their two steps with them: every other beat out leaves none.
  std::vector<std::uint8_t> every_other(peaks.size(), 0);
  for (std::size_t b = 0; b < peaks.size(); b += 2) every_other[b] = 1;
  EXPECT_FALSE(zc::measure_af_strip(peaks, rate, every_other, {}, {}).has_value());
}

TEST(AfStrip, ProbabilityIsTheLogisticOfTheStandardisedMeasures) {
  const auto prior = zc::af_strip_prior_from_safetensors(zio::to_safetensors(prior_content()));
  zc::af_strip_features x{2, 5, 5, 5, 5, 5, 5, 5};
  EXPECT_NEAR(zc::af_strip_probability(x, prior), 1 / (1 + std::exp(-1.5)), 1e-12);
  x[0] = std::nan("");  // a measure not taken adds no evidence
  EXPECT_NEAR(zc::af_strip_probability(x, prior), 1 / (1 + std::exp(0.5)), 1e-12);
  // The call: the threshold, and a coherent P wave vetoes however likely the rhythm makes AF.
  x = {2, 5, 0.5, 5, 5, 5, 5, 5};
  EXPECT_TRUE(zc::af_strip_is_af(x, prior));
  x[0] = 0;
  EXPECT_FALSE(zc::af_strip_is_af(x, prior));  // p = σ(−0.5), under the threshold
  x = {20, 5, 0.8, 5, 5, 5, 5, 5};
  EXPECT_FALSE(zc::af_strip_is_af(x, prior));  // coherence at the bound
  x[2] = std::nan("");
  EXPECT_TRUE(zc::af_strip_is_af(x, prior));  // an unmeasured P wave vetoes nothing
  EXPECT_EQ(prior.provenance.at("source"), "a test");
}

TEST(AfStrip, TheShippedPriorSaysWhereItCameFrom) {
  const auto& prior = zc::default_af_strip_prior();
  EXPECT_NE(prior.provenance.at("source").find("Challenge 2017"), std::string::npos);
  EXPECT_NE(prior.provenance.at("license").find("ODC-By"), std::string::npos);
  EXPECT_NE(prior.provenance.at("procedure").find("bench/af_cinc.py"), std::string::npos);
  EXPECT_GT(prior.threshold, 0);
  EXPECT_LT(prior.threshold, 1);
  // Irregularity is evidence for AF and a P wave like the dominant beat's against it.
  EXPECT_GT(prior.weight[0], 0);
  EXPECT_LT(prior.weight[3], 0);
  // So is a rhythm whose pairs of steps do not repeat (irregularly irregular).
  EXPECT_GT(prior.weight[6], 0);
  // And the slower zero crossings of fibrillatory waves between the beats.
  EXPECT_LT(prior.weight[7], 0);
  EXPECT_GT(prior.p_wave_coherence_max, 0.4);
  EXPECT_LE(prior.p_wave_coherence_max, 1.0);
}

TEST(AfStrip, DistinctStepPairsTellAPatternFromAnIrregularlyIrregularRhythm) {
  // A trigeminy-like cycle of 0.6, 0.9, 0.9 s repeats three pairs of steps; intervals that
  // cycle through eight pairs of steps make a larger share distinct.
  std::vector<double> pattern, scattered;
  for (int i = 0; i < 30; ++i) pattern.push_back(i % 3 == 0 ? 0.6 : 0.9);
  double r = 0.5;
  for (int i = 0; i < 30; ++i) {
    const int bins = i % 2 == 0 ? 1 + (i / 2) % 4 : -(1 + (i / 2) % 4);  // +1 −1 +2 −2 … ±4: eight pairs
    r *= std::exp(0.1 * bins + (i % 5) * 0.001);
    scattered.push_back(r);
  }
  zc::af_params no_timing;
  no_timing.ectopic_early_ratio = 0.01;  // no beat is that early: every interval counts
  const auto repeating = zc::measure_af_strip(peaks_of(pattern), rate, {}, {}, no_timing);
  ASSERT_TRUE(repeating.has_value());
  EXPECT_LT((*repeating)[6], 0.15);
  const auto irregular = zc::measure_af_strip(peaks_of(scattered), rate, {}, {}, no_timing);
  ASSERT_TRUE(irregular.has_value());
  EXPECT_GT((*irregular)[6], 0.25);
  // Without an irregular step there are no bins: no evidence either way.
  no_timing.irregular_step_log_ratio = 0;
  EXPECT_TRUE(std::isnan((*zc::measure_af_strip(peaks_of(pattern), rate, {}, {}, no_timing))[6]));
}

TEST(AfStrip, RefusesAPriorItCannotRead) {
  const auto refused = [](auto change) {
    auto c = prior_content();
    change(c);
    EXPECT_THROW((void)zc::af_strip_prior_from_safetensors(zio::to_safetensors(c)), zeroflow::parse_error);
  };
  refused([](zio::safetensors_content& c) { c.metadata["features"] = "irregular_share"; });
  refused([](zio::safetensors_content& c) { c.tensors.pop_back(); });
  refused([](zio::safetensors_content& c) { c.tensors[1] = f64("scale", {1, 1, 1, 1, 1, 1, 1, 0}); });
  refused([](zio::safetensors_content& c) { c.tensors[2] = f64("weight", {1, 0, 0}); });
  refused([](zio::safetensors_content& c) { c.tensors[4] = f64("threshold", {1.0}); });
  refused([](zio::safetensors_content& c) { c.tensors[3] = f64("bias", {std::nan("")}); });
  refused([](zio::safetensors_content& c) { c.tensors[5] = f64("p_wave_coherence_max", {0.0}); });
  refused([](zio::safetensors_content& c) { c.tensors[5] = f64("p_wave_coherence_max", {1.5}); });
  EXPECT_THROW((void)zc::af_strip_prior_from_safetensors("not a safetensors file"), zeroflow::parse_error);
}
