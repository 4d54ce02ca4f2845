// The report's figure inputs (src/pipeline/figures.hpp): collect_figures hands over what
// signal::reduce_for_display computes (tests/signal/display_test.cpp checks the reductions),
// with each held row named by its beat candidate.
#include "pipeline/figures.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "signal/signal_test_helpers.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/memory/allocate.hpp"
#include "zeroflow/pipeline/ecg_pipeline.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/synth/ecg.hpp"

namespace zf = zeroflow;
namespace fig = zeroflow::pipeline::detail;

namespace {

using zf::signal::testing::host_vector;

zf::array host_array(const std::vector<float>& v) { return zf::signal::testing::to_array(v); }

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

}  // namespace

TEST(PipelineFigures, HeldRowsAreNamedByTheirCandidates) {
  const auto f = make_run(0.1, zf::cpu_device);
  const auto fd = collect(f, zf::cpu_device);
  EXPECT_EQ(fd.overview_bucket, 1);
  EXPECT_EQ(fd.overview_min, f.x);

  const auto rows = host_vector<float>(f.seg.beats.rows.reshape({f.seg.beats.rows.size()}));
  const auto kept_index = host_vector<std::int64_t>(f.seg.beats.kept_index);
  const std::int64_t w = f.r.sizes.row_width, kept = static_cast<std::int64_t>(kept_index.size());
  ASSERT_EQ(fd.row_beats.size(), 61u);
  ASSERT_EQ(fd.rows.size(), 61u * static_cast<std::size_t>(w));
  for (std::size_t i = 0; i < fd.row_beats.size(); ++i) {
    const auto c = static_cast<std::size_t>(fd.row_beats[i]);
    ASSERT_TRUE(f.r.kept.at(c)) << c;
    const auto row = std::lower_bound(kept_index.begin(), kept_index.end(), fd.row_beats[i]) - kept_index.begin();
    ASSERT_LT(row, kept);
    ASSERT_EQ(kept_index[static_cast<std::size_t>(row)], fd.row_beats[i]);
    for (std::int64_t t = 0; t < w; ++t)
      ASSERT_EQ(fd.rows[i * static_cast<std::size_t>(w) + static_cast<std::size_t>(t)],
                rows[static_cast<std::size_t>(row * w + t)]);
  }
  // The first 25 are the candidates of the highest scores.
  for (std::size_t i = 1; i < 25; ++i)
    EXPECT_GE(f.r.score[static_cast<std::size_t>(fd.row_beats[i - 1])],
              f.r.score[static_cast<std::size_t>(fd.row_beats[i])]);
  EXPECT_EQ(fd.thumbs.size(), static_cast<std::size_t>(kept * fd.thumb_width));
}

// Strips of every lead (figures.hpp's collect_strips and add_other_leads, through pipeline::run): a
// two-channel raw recording whose second channel is the first upside down at half its size; each
// strip's other lead is that channel's samples in the strip's window, as the reader gives them.
TEST(PipelineFigures, StripsCarryEveryLeadOfABinaryRecording) {
  zf::synth::ecg_options o;
  o.hours = 0.05;
  o.heart_rate_bpm = 90;
  o.seed = 3;
  const auto x = zf::synth::generate_ecg(o).samples;
  std::vector<std::int16_t> frames(2 * x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    frames[2 * i] = static_cast<std::int16_t>(std::lround(200.0 * x[i]));
    frames[2 * i + 1] = static_cast<std::int16_t>(std::lround(-100.0 * x[i]));
  }
  const auto path = std::filesystem::temp_directory_path() / ("zf_strips_" + std::to_string(::getpid()) + ".i16");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(frames.data()), static_cast<std::streamsize>(frames.size() * 2));
  }
  zf::pipeline::run_options options;
  options.input = path;
  options.raw.channels = 2;
  options.raw.gain = 200;
  options.segmentation.sample_rate = 250;
  options.sample_rate_explicit = true;
  options.where = zf::pipeline::device_choice::cpu;
  options.epochs = 1;
  options.holter.events.tachycardia_bpm = 60;  // the 90 bpm rhythm is one long event: a strip
  const auto r = zf::pipeline::run(options);
  std::filesystem::remove(path);
  ASSERT_FALSE(r.figures.strips.empty());
  EXPECT_EQ(r.figures.strip_leads, (std::vector<std::string>{"channel 0", "channel 1"}));
  for (const auto& s : r.figures.strips) {
    ASSERT_EQ(s.other_leads.size(), 1U);
    ASSERT_EQ(s.other_leads[0].size(), s.samples.size());
    ASSERT_FALSE(s.samples.empty());
    for (std::size_t i = 0; i < s.samples.size(); ++i) {
      const auto at = static_cast<std::size_t>(s.start) + i;
      ASSERT_EQ(s.samples[i], static_cast<float>(frames[2 * at] / 200.0)) << i;
      ASSERT_EQ(s.other_leads[0][i], static_cast<float>(frames[2 * at + 1] / 200.0)) << i;
    }
  }
}
