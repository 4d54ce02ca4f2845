// Beats located in every lead (joint_detection.hpp): noise one lead alone finds is dropped, a
// beat the first lead lost is taken from another, and nothing else changes.
#include "zeroflow/classify/joint_detection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "synthetic_rows.hpp"
#include "zeroflow/classify/beat_classes.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zc = zeroflow::classify;

namespace {

constexpr double rate = zc::synthetic::rate;
constexpr double t_wave_seconds = 0.36;

/// Beats every 200 samples (0.8 s) from 1000, `n` of them.
std::vector<std::int64_t> regular(int n) {
  std::vector<std::int64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(1000 + 200 * i);
  return out;
}

std::vector<std::int64_t> join(const std::vector<std::int64_t>& first, const std::vector<float>& first_clarity,
                               const std::vector<std::int64_t>& other, const std::vector<float>& other_clarity) {
  const std::vector<zc::lead_beats> others{{other, other_clarity}};
  return zc::join_lead_beats({first, first_clarity}, others, rate, t_wave_seconds, {});
}

}  // namespace

TEST(JointDetection, NoiseNoLeadConfirmsIsDropped) {
  auto first = regular(30);
  std::vector<float> clarity(first.size(), 40);
  // A detection in a burst of noise between two beats: no clearer than noise, and the other lead
  // has nothing there. Another unclear one the other lead confirms (within 150 ms) stays.
  first.insert(first.begin() + 11, 3100);
  clarity.insert(clarity.begin() + 11, 4);
  clarity[20] = 5;
  auto other = regular(30);
  other[19] += 30;  // the other lead's R peak of beat 19 (first's index 20) 120 ms later
  const std::vector<float> other_clarity(other.size(), 40);
  const auto joined = join(first, clarity, other, other_clarity);
  EXPECT_EQ(joined, regular(30));
  // A clear detection is the first lead's own word, confirmed or not.
  clarity[11] = 25;
  auto with_clear = regular(30);
  with_clear.insert(with_clear.begin() + 11, 3100);
  EXPECT_EQ(join(first, clarity, other, other_clarity), with_clear);
}

TEST(JointDetection, ABeatTheFirstLeadLostIsTakenFromAnother) {
  auto first = regular(30);
  first.erase(first.begin() + 15);  // lost to noise: the interval 14 → 16 is 400 samples, twice the rhythm's
  const std::vector<float> clarity(first.size(), 40);
  auto other = regular(30);
  std::vector<float> other_clarity(other.size(), 40);
  EXPECT_EQ(join(first, clarity, other, other_clarity), regular(30));
  // Not when the other lead's beat is no clearer than noise there.
  other_clarity[15] = 6;
  EXPECT_EQ(join(first, clarity, other, other_clarity), first);
}

TEST(JointDetection, AnotherLeadsExtraPeaksInANormalRhythmAreNotBeats) {
  const auto first = regular(30);
  const std::vector<float> clarity(first.size(), 40);
  std::vector<std::int64_t> other;
  for (auto p : regular(30)) {
    other.push_back(p);
    other.push_back(p + 80);  // its T wave, 320 ms on: within the detector's T-wave window
  }
  other.push_back(first[10] + 120);  // 480 ms on: past the window, but the interval is a normal one
  std::sort(other.begin(), other.end());
  const std::vector<float> other_clarity(other.size(), 60);
  EXPECT_EQ(join(first, clarity, other, other_clarity), first);
}

TEST(JointDetection, BeatsBeyondTheFirstLeadsAndFromSeveralLeadsAreTakenOnce) {
  const auto all = regular(30);
  const std::vector<std::int64_t> first(all.begin() + 5, all.end());  // the first 4 s lost in the first lead
  const std::vector<float> clarity(first.size(), 40);
  const std::vector<float> clear(all.size(), 40);
  const std::vector<std::int64_t> shifted = [&] {
    auto s = all;
    for (auto& p : s) p += 10;  // the third lead's R peaks 40 ms later
    return s;
  }();
  const std::vector<zc::lead_beats> others{{all, clear}, {shifted, clear}};
  EXPECT_EQ(zc::join_lead_beats({first, clarity}, others, rate, t_wave_seconds, {}), all);
}

TEST(JointDetection, RefusesWhatItCannotJoin) {
  const auto peaks = regular(5);
  const std::vector<float> short_clarity(3, 40), clarity(5, 40);
  const std::vector<std::int64_t> back{100, 300, 200};
  const std::vector<float> three(3, 40);
  EXPECT_THROW((void)join(peaks, short_clarity, peaks, clarity), zeroflow::invalid_argument);
  EXPECT_THROW((void)join(peaks, clarity, back, three), zeroflow::invalid_argument);
  EXPECT_THROW((void)zc::join_lead_beats({peaks, clarity}, {}, 0, t_wave_seconds, {}), zeroflow::invalid_argument);
  zc::class_params bad;
  bad.quality.missed_beat_ratio = 0.5;
  EXPECT_THROW((void)zc::join_lead_beats({peaks, clarity}, {}, rate, t_wave_seconds, bad), zeroflow::invalid_argument);
}

TEST(JointDetection, ClarityIsTheClassRulesOwn) {
  // beat_clarity on a recording's rows gives the clarity classify_beats reports for them: clean
  // beats and beats drowned in noise alike.
  using zc::synthetic::after, zc::synthetic::before, zc::synthetic::bump, zc::synthetic::width;
  std::mt19937 rng(7);
  std::vector<std::int64_t> peaks;
  zeroflow::array rows = zeroflow::empty({120, width}, zeroflow::float32);
  float* x = rows.data_as<float>();
  for (std::int64_t b = 0; b < 120; ++b) {
    peaks.push_back(500 + 200 * b);
    std::normal_distribution<double> noise(0.0, b % 10 == 3 ? 2.0 : 0.02);
    for (std::int64_t j = 0; j < width; ++j) {
      const double t = static_cast<double>(j - before) / rate;
      x[b * width + j] = static_cast<float>(4 * bump(t, 0, 0.012) + 0.6 * bump(t, 0.28, 0.05) + noise(rng));
    }
  }
  const auto classes = zc::classify_beats(peaks, rows, before, after, rate, {});
  const auto clarity = zc::beat_clarity(rows, before, after, rate, {});
  ASSERT_EQ(clarity.size(), classes.clarity.size());
  for (std::size_t b = 0; b < clarity.size(); ++b) EXPECT_EQ(clarity[b], classes.clarity[b]) << b;
  EXPECT_LT(clarity[3], 10);  // a beat in noise is no clearer than noise
  EXPECT_GT(clarity[4], 30);
}
