// A recording reduced for display (zeroflow/signal/display.hpp): the size choices, which rows are
// held, and reduce_for_display against straightforward host re-computations on a segmented
// synthetic ECG; on a GPU, the device path gives exactly the host's reductions.
#include "zeroflow/signal/display.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;

namespace {

const zf::signal::display_sizes defaults{};

std::int64_t bucket(std::int64_t samples, std::int64_t budget = defaults.overview_budget) {
  return zf::signal::overview_bucket(samples, budget);
}
std::int64_t factor(std::int64_t rows, std::int64_t width) {
  return zf::signal::thumb_factor(rows, width, defaults.thumb_budget, defaults.min_thumb_width);
}

using zf::signal::testing::host_vector;

zf::array host_array(const std::vector<float>& v) { return zf::signal::testing::to_array(v); }

/// A segmented synthetic recording with a random score per kept row.
struct fixture {
  std::vector<float> x;
  zf::signal::segmentation seg;
  std::vector<std::int64_t> gates;
  std::vector<float> score;
};

fixture make_run(double hours, zf::device where) {
  fixture f;
  zf::synth::ecg_options o;
  o.hours = hours;
  o.heart_rate_bpm = 90;
  o.seed = 5;
  f.x = zf::synth::generate_ecg(o).samples;
  const zf::array signal = copy_to(host_array(f.x), where);
  f.seg = zf::signal::segment_beats(signal, zf::signal::segment_params{}, {});
  f.gates = host_vector<std::int64_t>(f.seg.positions);
  f.gates.resize(static_cast<std::size_t>(f.seg.lengths.size()));
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> u(0, 1);
  f.score.resize(static_cast<std::size_t>(f.seg.beats.rows.shape(0)));
  for (auto& s : f.score) s = u(rng);
  return f;
}

zf::signal::display_data reduce(const fixture& f, zf::device where) {
  const zf::array signal = copy_to(host_array(f.x), where);
  return zf::signal::reduce_for_display(signal, f.seg.filtered, f.seg.beats.rows, f.score, f.gates, 250, {});
}

/// Thumbnails: every row, each k-sample bucket's largest-magnitude sample (+x over −x).
void expect_thumbs(const fixture& f, const zf::signal::display_data& d) {
  const auto rows = host_vector<float>(f.seg.beats.rows.reshape({f.seg.beats.rows.size()}));
  const std::int64_t w = f.seg.beats.rows.shape(1), kept = f.seg.beats.rows.shape(0);
  const auto k = factor(kept, w);
  ASSERT_EQ(d.thumb_width, w / k);
  ASSERT_EQ(d.thumbs.size(), static_cast<std::size_t>(kept * (w / k)));
  for (std::int64_t row = 0; row < kept; ++row)
    for (std::int64_t j = 0; j < w / k; ++j) {
      float best = 0;
      for (std::int64_t t = j * k; t < (j + 1) * k; ++t) {
        const float v = rows[static_cast<std::size_t>(row * w + t)];
        if (std::fabs(v) > std::fabs(best) || (std::fabs(v) == std::fabs(best) && v > best)) best = v;
      }
      ASSERT_EQ(d.thumbs[static_cast<std::size_t>(row * (w / k) + j)], best) << row << ' ' << j;
    }
}

}  // namespace

TEST(SignalDisplay, OverviewBucketIsTheSmallestPowerOfTwoWithinTheBudget) {
  EXPECT_EQ(bucket(0), 1);
  EXPECT_EQ(bucket(900'000), 1);  // an hour at 250 Hz: raw samples
  EXPECT_EQ(bucket(1 << 20), 1);
  EXPECT_EQ(bucket((1 << 20) + 1), 2);
  EXPECT_EQ(bucket(20'000'000), 32);  // the seed's 22 h recording
  EXPECT_EQ(bucket(100, 10), 16);
  for (std::int64_t n : {1, 7, 1000, 123457, 99'999'999}) {
    const auto b = bucket(n, 1000);
    EXPECT_LE((n + b - 1) / b, 1000) << n;
    if (b > 1) EXPECT_GT((n + b / 2 - 1) / (b / 2), 1000) << n;
  }
}

TEST(SignalDisplay, ThumbFactorKeepsTheBudgetAndDividesTheRow) {
  EXPECT_EQ(factor(100'000, 256), 16);  // clamped to 16 points
  EXPECT_EQ(factor(5'400, 256), 2);     // 185 wanted: 128 points
  EXPECT_EQ(factor(10, 256), 1);
  EXPECT_EQ(factor(0, 256), 1);
  EXPECT_EQ(factor(10'000'000, 256), 16);
  for (std::int64_t kept : {1, 50, 3'000, 7'777, 62'500, 62'501, 400'000}) {
    for (std::int64_t width : {16, 64, 256, 512, 300}) {
      const auto k = factor(kept, width);
      ASSERT_EQ(width % k, 0) << kept << ' ' << width;
      const auto target = std::clamp<std::int64_t>(1'000'000 / kept, std::min<std::int64_t>(16, width), width);
      EXPECT_LE(width / k, target) << kept << ' ' << width;
      for (std::int64_t smaller = 1; smaller < k; ++smaller)  // k is the smallest such divisor
        EXPECT_TRUE(width % smaller != 0 || width / smaller > target) << kept << ' ' << width;
    }
  }
}

TEST(SignalDisplay, DisplayRowsAreTheTopScoresThenEvenlySpacedOthers) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> u(0, 10);
  std::vector<float> score(1000);
  for (auto& s : score) s = u(rng);
  score[17] = NAN;
  const auto rows = zf::signal::display_rows(score, 25, 36);
  ASSERT_EQ(rows.size(), 61u);
  std::vector<std::int64_t> by_score(score.size());
  std::iota(by_score.begin(), by_score.end(), 0);
  std::stable_sort(by_score.begin(), by_score.end(), [&](auto a, auto b) {
    return !std::isnan(score[static_cast<std::size_t>(a)]) &&
           (std::isnan(score[static_cast<std::size_t>(b)]) ||
            score[static_cast<std::size_t>(a)] > score[static_cast<std::size_t>(b)]);
  });
  for (std::size_t i = 0; i < 25; ++i) EXPECT_EQ(rows[i], by_score[i]) << i;
  const std::set<std::int64_t> top(rows.begin(), rows.begin() + 25);
  std::set<std::int64_t> seen(top);
  for (std::size_t i = 25; i < rows.size(); ++i) {
    EXPECT_FALSE(top.count(rows[i])) << rows[i];
    EXPECT_TRUE(seen.insert(rows[i]).second) << "duplicate row " << rows[i];
    if (i > 25) EXPECT_GT(rows[i], rows[i - 1]);
  }
  // Spread over the recording: no gap between consecutive others exceeds twice the even spacing.
  EXPECT_LT(rows[25], 2 * 975 / 36);
  EXPECT_GT(rows.back(), 1000 - 2 * 975 / 36);
  // Few rows: every one, top first.
  const auto all = zf::signal::display_rows({1, 5, 3, NAN, 2}, 2, 36);
  EXPECT_EQ(all, (std::vector<std::int64_t>{1, 2, 0, 3, 4}));
  EXPECT_TRUE(zf::signal::display_rows({}, 25, 36).empty());
}

TEST(SignalDisplay, ExcerptStartsBeforeAGateNearTheMiddle) {
  const std::vector<std::int64_t> gates = {100, 900, 4'000, 5'200, 9'000};
  EXPECT_EQ(zf::signal::excerpt_start(gates, 10'000, 2'500, 60), 4'000 - 60);  // centre 3750: next gate 4000
  EXPECT_EQ(zf::signal::excerpt_start(gates, 10'000, 10'000, 60), 0);          // the whole recording
  EXPECT_EQ(zf::signal::excerpt_start(gates, 20'000, 2'500, 60), 8'940);
  EXPECT_EQ(zf::signal::excerpt_start({}, 10'000, 2'500, 60), 3'750);
  EXPECT_EQ(zf::signal::excerpt_start({10}, 100, 50, 60), 25);       // no gate past the centre: centred
  EXPECT_EQ(zf::signal::excerpt_start(gates, 1'000, 5'000, 60), 0);  // recording shorter than the excerpt
}

TEST(SignalDisplay, ReductionsMatchHostRecomputations) {
  const auto f = make_run(0.1, zf::cpu_device);
  const auto d = reduce(f, zf::cpu_device);
  const auto n = static_cast<std::int64_t>(f.x.size());

  ASSERT_EQ(d.overview_bucket, 1);  // 90,000 samples: raw
  EXPECT_EQ(d.overview_min, f.x);
  EXPECT_EQ(d.overview_max, f.x);

  const auto filtered = host_vector<float>(f.seg.filtered);
  ASSERT_EQ(d.excerpt_signal.size(), 2'500u);
  ASSERT_EQ(d.excerpt_filtered.size(), 2'500u);
  EXPECT_EQ(d.excerpt_start, zf::signal::excerpt_start(f.gates, n, 2'500, 63));  // 0.25 s lead: 62.5 rounds to 63
  for (std::size_t i = 0; i < 2'500; ++i) {
    ASSERT_EQ(d.excerpt_signal[i], f.x[static_cast<std::size_t>(d.excerpt_start) + i]);
    ASSERT_EQ(d.excerpt_filtered[i], filtered[static_cast<std::size_t>(d.excerpt_start) + i]);
  }

  // Rows: the chosen rows, bit for bit, the first 25 the highest scores.
  const auto rows = host_vector<float>(f.seg.beats.rows.reshape({f.seg.beats.rows.size()}));
  const std::int64_t w = f.seg.beats.rows.shape(1), kept = f.seg.beats.rows.shape(0);
  ASSERT_EQ(d.row_index, zf::signal::display_rows(f.score, 25, 36));
  ASSERT_EQ(d.rows.size(), 61u * static_cast<std::size_t>(w));
  for (std::size_t i = 0; i < d.row_index.size(); ++i) {
    const auto row = d.row_index[i];
    ASSERT_LT(row, kept);
    for (std::int64_t t = 0; t < w; ++t)
      ASSERT_EQ(d.rows[i * static_cast<std::size_t>(w) + static_cast<std::size_t>(t)],
                rows[static_cast<std::size_t>(row * w + t)]);
  }
  for (std::size_t i = 1; i < 25; ++i)
    EXPECT_GE(f.score[static_cast<std::size_t>(d.row_index[i - 1])], f.score[static_cast<std::size_t>(d.row_index[i])]);

  expect_thumbs(f, d);
}

TEST(SignalDisplay, LongRecordingsAreBucketed) {
  // 1.3 h at 250 Hz is 1.17 M samples: buckets of 2, each the min and max of its pair.
  const auto f = make_run(1.3, zf::cpu_device);
  const auto d = reduce(f, zf::cpu_device);
  ASSERT_EQ(d.overview_bucket, 2);
  ASSERT_EQ(d.overview_min.size(), (f.x.size() + 1) / 2);
  for (std::size_t b = 0; b < d.overview_min.size(); ++b) {
    const float a = f.x[2 * b], c = 2 * b + 1 < f.x.size() ? f.x[2 * b + 1] : a;
    ASSERT_EQ(d.overview_min[b], std::min(a, c)) << b;
    ASSERT_EQ(d.overview_max[b], std::max(a, c)) << b;
  }
  EXPECT_EQ(d.thumb_width, 128);  // ~7,000 kept beats: 142 points wanted, 256 / 2 given
  expect_thumbs(f, d);
}

TEST(SignalDisplay, ScoresMustMatchTheRows) {
  const auto f = make_run(0.05, zf::cpu_device);
  const zf::array signal = host_array(f.x);
  auto fewer = f.score;
  fewer.pop_back();
  EXPECT_THROW((void)zf::signal::reduce_for_display(signal, f.seg.filtered, f.seg.beats.rows, fewer, f.gates, 250, {}),
               zf::invalid_argument);
  // No rows at all: the overview and the excerpt only.
  const auto d = zf::signal::reduce_for_display(signal, zf::array{}, zf::array{}, {}, f.gates, 250, {});
  EXPECT_EQ(d.overview_min, f.x);
  EXPECT_TRUE(d.excerpt_filtered.empty());
  EXPECT_TRUE(d.rows.empty());
  EXPECT_EQ(d.thumb_width, 0);
}

TEST(SignalDisplay, DeviceReductionsEqualTheHostReductions) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto host = make_run(0.4, zf::cpu_device);
  const auto gpu = make_run(0.4, zf::cuda_device(0));
  ASSERT_EQ(gpu.gates, host.gates);
  const auto a = reduce(host, zf::cpu_device);
  const auto b = reduce(gpu, zf::cuda_device(0));
  EXPECT_EQ(a.overview_bucket, b.overview_bucket);
  EXPECT_EQ(a.overview_min, b.overview_min);
  EXPECT_EQ(a.overview_max, b.overview_max);
  EXPECT_EQ(a.excerpt_start, b.excerpt_start);
  EXPECT_EQ(a.excerpt_signal, b.excerpt_signal);
  EXPECT_EQ(a.row_index, b.row_index);
  EXPECT_EQ(a.thumb_width, b.thumb_width);
  // The band-pass and the rows may differ in the last bits between devices (other stages'
  // contracts); the reductions on top of them must not add differences of their own.
  ASSERT_EQ(a.rows.size(), b.rows.size());
  ASSERT_EQ(a.thumbs.size(), b.thumbs.size());
  for (std::size_t i = 0; i < a.thumbs.size(); ++i)
    ASSERT_NEAR(a.thumbs[i], b.thumbs[i], 1e-4f * (1 + std::fabs(a.thumbs[i]))) << i;
}

TEST(SignalDisplay, ExcerptsAreTheSignalsOwnSamplesClippedToIt) {
  std::vector<float> x(1000);
  std::iota(x.begin(), x.end(), 0.0F);
  const auto got = zf::signal::excerpts(host_array(x), {{100, 5}, {-3, 5}, {998, 10}, {2000, 4}}, {});
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], (std::vector<float>{100, 101, 102, 103, 104}));
  EXPECT_EQ(got[1], (std::vector<float>{0, 1}));  // from −3: the two samples inside
  EXPECT_EQ(got[2], (std::vector<float>{998, 999}));
  EXPECT_TRUE(got[3].empty());
  EXPECT_THROW((void)zf::signal::excerpts(host_array(x).reshape({10, 100}), {{0, 1}}, {}), zf::invalid_argument);
}
