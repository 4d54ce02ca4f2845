// The report's figure inputs (src/pipeline/figures.hpp): the size choices, which rows are
// shipped, and collect_figures against straightforward host re-computations on a segmented
// synthetic ECG; on a GPU, the device path gives exactly the host's figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "../../src/pipeline/figures.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;
namespace fig = zeroflow::pipeline::detail;

namespace {

template <class T>
std::vector<T> host_vector(const zf::array& a) {
  const zf::array h = copy_to(a, zf::cpu_device);
  const auto s = h.span<const T>();
  return {s.begin(), s.end()};
}

zf::array host_array(const std::vector<float>& v) {
  zf::array a = zf::empty({static_cast<std::int64_t>(v.size())}, zf::float32);
  std::memcpy(a.data(), v.data(), v.size() * sizeof(float));
  return a;
}

/// A segmented synthetic recording and the per-beat host results collect_figures reads.
struct fixture {
  std::vector<float> x;
  zf::signal::segmentation seg;
  zf::pipeline::run_result r;
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
  auto& r = f.r;
  r.sample_rate = 250;
  r.samples = static_cast<std::int64_t>(f.x.size());
  r.sizes = f.seg.sizes;
  r.length = host_vector<std::int64_t>(f.seg.lengths);
  r.start = host_vector<std::int64_t>(f.seg.positions);
  r.start.resize(r.length.size());
  r.kept = host_vector<std::uint8_t>(f.seg.beats.kept);
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> u(0, 1);
  r.score.assign(r.length.size(), NAN);
  for (std::size_t c = 0; c < r.kept.size(); ++c)
    if (r.kept[c]) r.score[c] = u(rng);
  return f;
}

zf::pipeline::figure_data collect(const fixture& f, zf::device where) {
  const zf::array signal = copy_to(host_array(f.x), where);
  return fig::collect_figures(signal, f.seg.filtered, f.seg.beats.rows, f.r, {});
}

/// Thumbnails: every kept row, each k-sample bucket's largest-magnitude sample (+x over −x).
void expect_thumbs(const fixture& f, const zf::pipeline::figure_data& fd) {
  const auto rows = host_vector<float>(f.seg.beats.rows.reshape({f.seg.beats.rows.size()}));
  const std::int64_t w = f.r.sizes.row_width, kept = f.seg.beats.rows.shape(0);
  const auto k = fig::thumb_factor(kept, w);
  ASSERT_EQ(fd.thumb_width, w / k);
  ASSERT_EQ(fd.thumbs.size(), static_cast<std::size_t>(kept * (w / k)));
  for (std::int64_t row = 0; row < kept; ++row)
    for (std::int64_t j = 0; j < w / k; ++j) {
      float best = 0;
      for (std::int64_t t = j * k; t < (j + 1) * k; ++t) {
        const float v = rows[static_cast<std::size_t>(row * w + t)];
        if (std::fabs(v) > std::fabs(best) || (std::fabs(v) == std::fabs(best) && v > best)) best = v;
      }
      ASSERT_EQ(fd.thumbs[static_cast<std::size_t>(row * (w / k) + j)], best) << row << ' ' << j;
    }
}

}  // namespace

TEST(PipelineFigures, OverviewBucketIsTheSmallestPowerOfTwoWithinTheBudget) {
  EXPECT_EQ(fig::overview_bucket(0), 1);
  EXPECT_EQ(fig::overview_bucket(900'000), 1);  // an hour at 250 Hz: raw samples
  EXPECT_EQ(fig::overview_bucket(1 << 20), 1);
  EXPECT_EQ(fig::overview_bucket((1 << 20) + 1), 2);
  EXPECT_EQ(fig::overview_bucket(20'000'000), 32);  // the seed's 22 h recording
  EXPECT_EQ(fig::overview_bucket(100, 10), 16);
  for (std::int64_t n : {1, 7, 1000, 123457, 99'999'999}) {
    const auto b = fig::overview_bucket(n, 1000);
    EXPECT_LE((n + b - 1) / b, 1000) << n;
    if (b > 1) EXPECT_GT((n + b / 2 - 1) / (b / 2), 1000) << n;
  }
}

TEST(PipelineFigures, ThumbFactorKeepsTheBudgetAndDividesTheRow) {
  EXPECT_EQ(fig::thumb_factor(100'000, 256), 16);  // clamped to 16 points
  EXPECT_EQ(fig::thumb_factor(5'400, 256), 2);      // 185 wanted: 128 points
  EXPECT_EQ(fig::thumb_factor(10, 256), 1);
  EXPECT_EQ(fig::thumb_factor(0, 256), 1);
  EXPECT_EQ(fig::thumb_factor(10'000'000, 256), 16);
  for (std::int64_t kept : {1, 50, 3'000, 7'777, 62'500, 62'501, 400'000}) {
    for (std::int64_t width : {16, 64, 256, 512, 300}) {
      const auto k = fig::thumb_factor(kept, width);
      ASSERT_EQ(width % k, 0) << kept << ' ' << width;
      const auto target = std::clamp<std::int64_t>(1'000'000 / kept, std::min<std::int64_t>(16, width), width);
      EXPECT_LE(width / k, target) << kept << ' ' << width;
      for (std::int64_t smaller = 1; smaller < k; ++smaller)  // k is the smallest such divisor
        EXPECT_TRUE(width % smaller != 0 || width / smaller > target) << kept << ' ' << width;
    }
  }
}

TEST(PipelineFigures, FigureRowsAreTheTopScoresThenEvenlySpacedOthers) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> u(0, 10);
  std::vector<float> score(1000);
  for (auto& s : score) s = u(rng);
  score[17] = NAN;
  const auto rows = fig::figure_rows(score, 25, 36);
  ASSERT_EQ(rows.size(), 61u);
  std::vector<std::int64_t> by_score(score.size());
  std::iota(by_score.begin(), by_score.end(), 0);
  std::stable_sort(by_score.begin(), by_score.end(), [&](auto a, auto b) {
    return !std::isnan(score[static_cast<std::size_t>(a)]) &&
           (std::isnan(score[static_cast<std::size_t>(b)]) || score[static_cast<std::size_t>(a)] > score[static_cast<std::size_t>(b)]);
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
  const auto all = fig::figure_rows({1, 5, 3, NAN, 2}, 2, 36);
  EXPECT_EQ(all, (std::vector<std::int64_t>{1, 2, 0, 3, 4}));
  EXPECT_TRUE(fig::figure_rows({}, 25, 36).empty());
}

TEST(PipelineFigures, ExcerptStartsBeforeAGateNearTheMiddle) {
  const std::vector<std::int64_t> gates = {100, 900, 4'000, 5'200, 9'000};
  EXPECT_EQ(fig::excerpt_start(gates, 10'000, 2'500, 60), 4'000 - 60);  // centre 3750: next gate 4000
  EXPECT_EQ(fig::excerpt_start(gates, 10'000, 10'000, 60), 0);          // the whole recording
  EXPECT_EQ(fig::excerpt_start(gates, 20'000, 2'500, 60), 8'940);
  EXPECT_EQ(fig::excerpt_start({}, 10'000, 2'500, 60), 3'750);
  EXPECT_EQ(fig::excerpt_start({10}, 100, 50, 60), 25);  // no gate past the centre: centred
  EXPECT_EQ(fig::excerpt_start(gates, 1'000, 5'000, 60), 0);  // recording shorter than the excerpt
}

TEST(PipelineFigures, CollectedFiguresMatchHostRecomputations) {
  const auto f = make_run(0.1, zf::cpu_device);
  const auto fd = collect(f, zf::cpu_device);
  const auto n = static_cast<std::int64_t>(f.x.size());

  ASSERT_EQ(fd.overview_bucket, 1);  // 90,000 samples: raw
  EXPECT_EQ(fd.overview_min, f.x);
  EXPECT_EQ(fd.overview_max, f.x);

  const auto filtered = host_vector<float>(f.seg.filtered);
  ASSERT_EQ(fd.excerpt_signal.size(), 2'500u);
  ASSERT_EQ(fd.excerpt_filtered.size(), 2'500u);
  EXPECT_EQ(fd.excerpt_start, fig::excerpt_start(f.r.start, n, 2'500, 63));  // 0.25 s lead: 62.5 rounds to 63
  for (std::size_t i = 0; i < 2'500; ++i) {
    ASSERT_EQ(fd.excerpt_signal[i], f.x[static_cast<std::size_t>(fd.excerpt_start) + i]);
    ASSERT_EQ(fd.excerpt_filtered[i], filtered[static_cast<std::size_t>(fd.excerpt_start) + i]);
  }

  // Rows: the selected candidates' embedded rows, bit for bit.
  const auto rows = host_vector<float>(f.seg.beats.rows.reshape({f.seg.beats.rows.size()}));
  const auto kept_index = host_vector<std::int64_t>(f.seg.beats.kept_index);
  const std::int64_t w = f.r.sizes.row_width, kept = static_cast<std::int64_t>(kept_index.size());
  ASSERT_EQ(fd.row_beats.size(), 61u);
  ASSERT_EQ(fd.rows.size(), 61u * static_cast<std::size_t>(w));
  for (std::size_t i = 0; i < fd.row_beats.size(); ++i) {
    const auto row = std::lower_bound(kept_index.begin(), kept_index.end(), fd.row_beats[i]) - kept_index.begin();
    ASSERT_LT(row, kept);
    ASSERT_EQ(kept_index[static_cast<std::size_t>(row)], fd.row_beats[i]);
    for (std::int64_t t = 0; t < w; ++t)
      ASSERT_EQ(fd.rows[i * static_cast<std::size_t>(w) + static_cast<std::size_t>(t)],
                rows[static_cast<std::size_t>(row * w + t)]);
  }
  // The first 25 are the highest scores.
  for (std::size_t i = 1; i < 25; ++i)
    EXPECT_GE(f.r.score[static_cast<std::size_t>(fd.row_beats[i - 1])], f.r.score[static_cast<std::size_t>(fd.row_beats[i])]);

  expect_thumbs(f, fd);
}

TEST(PipelineFigures, LongRecordingsAreBucketed) {
  // 1.3 h at 250 Hz is 1.17 M samples: buckets of 2, each the min and max of its pair.
  const auto f = make_run(1.3, zf::cpu_device);
  const auto fd = collect(f, zf::cpu_device);
  ASSERT_EQ(fd.overview_bucket, 2);
  ASSERT_EQ(fd.overview_min.size(), (f.x.size() + 1) / 2);
  for (std::size_t b = 0; b < fd.overview_min.size(); ++b) {
    const float a = f.x[2 * b], c = 2 * b + 1 < f.x.size() ? f.x[2 * b + 1] : a;
    ASSERT_EQ(fd.overview_min[b], std::min(a, c)) << b;
    ASSERT_EQ(fd.overview_max[b], std::max(a, c)) << b;
  }
  EXPECT_EQ(fd.thumb_width, 128);  // ~7,000 kept beats: 142 points wanted, 256 / 2 given
  expect_thumbs(f, fd);
}

TEST(PipelineFigures, DeviceFiguresEqualTheHostFigures) {
  if (!zf::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto host = make_run(0.4, zf::cpu_device);
  const auto gpu = make_run(0.4, zf::cuda_device(0));
  ASSERT_EQ(gpu.r.start, host.r.start);
  ASSERT_EQ(gpu.r.kept, host.r.kept);
  const auto a = collect(host, zf::cpu_device);
  const auto b = collect(gpu, zf::cuda_device(0));
  EXPECT_EQ(a.overview_bucket, b.overview_bucket);
  EXPECT_EQ(a.overview_min, b.overview_min);
  EXPECT_EQ(a.overview_max, b.overview_max);
  EXPECT_EQ(a.excerpt_start, b.excerpt_start);
  EXPECT_EQ(a.excerpt_signal, b.excerpt_signal);
  EXPECT_EQ(a.row_beats, b.row_beats);
  EXPECT_EQ(a.thumb_width, b.thumb_width);
  // The band-pass and the rows may differ in the last bits between devices (other stages'
  // contracts); the reductions on top of them must not add differences of their own.
  ASSERT_EQ(a.rows.size(), b.rows.size());
  ASSERT_EQ(a.thumbs.size(), b.thumbs.size());
  for (std::size_t i = 0; i < a.thumbs.size(); ++i) ASSERT_NEAR(a.thumbs[i], b.thumbs[i], 1e-4f * (1 + std::fabs(a.thumbs[i]))) << i;
}
