// PNG figures: written, readable back with cairo, the right size, not blank, titled, data on
// the right side of the axes; figures without data skipped; unwritable folders reported.
#include "zeroflow/report/png_figures.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "io/io_test_util.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/signal/params.hpp"

#if ZEROFLOW_HAS_CAIRO
#include <cairo.h>

#include "report/png_axes.hpp"
#endif

namespace zeroflow::report {
namespace {

using pipeline::run_result;
namespace fs = std::filesystem;

const std::vector<std::string> all_figures{"overview.png", "beats.png",        "excerpt.png",   "lengths.png",
                                           "latent.png",   "decoded_grid.png", "anomalies.png", "loss.png"};

/// A run as the pipeline would hand it over, made up from seeded random numbers: 10 minutes at
/// 250 Hz, beats of ~0.86 s with a few too short or too long, 4 % anomalous scores.
run_result synthetic_run(std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  run_result r;
  r.input = "/data/synthetic.csv";
  r.sample_rate = 250;
  r.samples = 250 * 600;
  r.sizes = signal::sizes_for(signal::segment_params{});
  r.norm = {0.1f, 0.3f};
  r.histogram.assign(static_cast<std::size_t>(2 * r.sizes.max_length + 1), 0);
  for (std::int64_t pos = 100; pos + 400 < r.samples;) {
    const double u = uniform(gen);
    const auto length = static_cast<std::int64_t>(u < 0.02   ? 60
                                                  : u < 0.04 ? 330
                                                             : 214 + 20 * normal(gen));  // pruned outliers
    const bool kept = length >= r.sizes.min_length && length <= r.sizes.max_length;
    const bool anomalous = uniform(gen) < 0.04;
    r.start.push_back(pos);
    r.peak.push_back(pos + 40);
    r.detected_peaks.push_back(pos + 40);
    r.length.push_back(length);
    r.kept.push_back(kept ? 1 : 0);
    r.split.push_back(!kept ? '-' : uniform(gen) < 0.75 ? 't' : 'v');
    const auto nan = std::nanf("");
    r.score.push_back(kept ? static_cast<float>(std::exp(-3 + 0.4 * normal(gen) + (anomalous ? 3 : 0))) : nan);
    r.mu0.push_back(kept ? static_cast<float>(normal(gen) + (anomalous ? 2.5 : 0)) : nan);
    r.mu1.push_back(kept ? static_cast<float>(0.7 * normal(gen)) : nan);
    ++r.histogram[static_cast<std::size_t>(std::min(length, 2 * r.sizes.max_length))];
    pos += length;
  }
  for (int e = 0; e < 30; ++e) r.epoch_loss.push_back(20 + 80 * std::exp(-e / 6.0) + 0.5 * normal(gen));
  r.test_loss = 21.5;
  r.trained = true;
  const auto width = static_cast<std::size_t>(r.sizes.row_width);
  auto beat_shape = [&](std::size_t t, double amplitude) {
    const double x = static_cast<double>(t) / static_cast<double>(width);
    return static_cast<float>(amplitude * std::exp(-std::pow((x - 0.2) / 0.03, 2)) +
                              0.3 * std::exp(-std::pow((x - 0.55) / 0.08, 2)));
  };
  for (std::size_t k = 0; k < 25; ++k)
    for (std::size_t t = 0; t < width; ++t) r.decoded_grid.push_back(beat_shape(t, 1 + 0.2 * static_cast<double>(k)));

  auto& fig = r.figures;
  fig.overview_bucket = 4;
  for (std::int64_t b = 0; b * 4 < r.samples; ++b) {
    const double t = static_cast<double>(b * 4) / r.sample_rate;
    const double wave = std::sin(2 * M_PI * t / 90) + 0.2 * normal(gen);
    fig.overview_min.push_back(static_cast<float>(wave - 0.3));
    fig.overview_max.push_back(static_cast<float>(wave + 0.6 + (b % 50 == 0 ? 1.5 : 0)));
  }
  fig.excerpt_start = r.start[10];
  for (int i = 0; i < 2500; ++i) {
    const double x = std::fmod(static_cast<double>(i) / 214.0, 1.0);
    fig.excerpt_signal.push_back(static_cast<float>(std::exp(-std::pow((x - 0.19) / 0.02, 2)) + 0.03 * normal(gen)));
    fig.excerpt_filtered.push_back(
        static_cast<float>(std::sin(2 * M_PI * x) * std::exp(-std::pow((x - 0.2) / 0.1, 2))));
  }
  for (std::size_t c = 0; c < r.score.size(); c += 3) {
    if (!r.kept[c]) continue;
    fig.row_beats.push_back(static_cast<std::int64_t>(c));
    for (std::size_t t = 0; t < width; ++t)
      fig.rows.push_back(t < static_cast<std::size_t>(r.length[c]) ? beat_shape(t, 2 + 10 * r.score[c]) : 0.0f);
  }
  return r;
}

#if ZEROFLOW_HAS_CAIRO

// ---- the axis arithmetic ------------------------------------------------------------------

double multiples_in(double lo, double hi, double step) {
  return std::floor(hi / step + 1e-9) - std::ceil(lo / step - 1e-9) + 1;
}

TEST(PngAxes, NiceStepIsTheSmallestOneTwoFiveStepWithFewEnoughTicks) {
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_int_distribution<int> exponent(-6, 6), ticks(2, 12);
  // Every {1, 2, 5}·10^e step in ascending order: the reference is the first that fits.
  std::vector<double> steps;
  for (int e = -10; e <= 10; ++e)
    for (double m : {1.0, 2.0, 5.0}) steps.push_back(m * std::pow(10.0, e));
  for (int trial = 0; trial < 2000; ++trial) {
    const double scale = std::pow(10.0, exponent(gen));
    double lo = unit(gen) * scale, hi = unit(gen) * scale;
    if (trial % 5 == 0) lo = 0;  // ranges starting at zero are the common case
    if (lo > hi) std::swap(lo, hi);
    if (!(lo < hi)) continue;
    const int max_ticks = ticks(gen);
    const double expected =
        *std::find_if(steps.begin(), steps.end(), [&](double s) { return multiples_in(lo, hi, s) <= max_ticks; });
    const auto t = png::nice_ticks(lo, hi, max_ticks);
    ASSERT_DOUBLE_EQ(t.step, expected) << "[" << lo << ", " << hi << "] max " << max_ticks;
    ASSERT_LE(static_cast<int>(t.values.size()), max_ticks);
    ASSERT_EQ(static_cast<double>(t.values.size()), multiples_in(lo, hi, t.step));
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      EXPECT_GE(t.values[i], lo - 1e-9 * t.step);
      EXPECT_LE(t.values[i], hi + 1e-9 * t.step);
      if (i > 0) {
        EXPECT_NEAR(t.values[i] - t.values[i - 1], t.step, 1e-9 * t.step);
      }
    }
  }
  EXPECT_THROW((void)png::nice_step(1, 1, 5), invalid_argument);
  EXPECT_THROW((void)png::nice_step(0, 1, 1), invalid_argument);
  EXPECT_THROW((void)png::nice_step(0, NAN, 5), invalid_argument);
}

TEST(PngAxes, TickLabelsAreExactAndShort) {
  auto labels = [](double lo, double hi, int max_ticks) {
    const auto t = png::nice_ticks(lo, hi, max_ticks);
    std::vector<std::string> out;
    for (double v : t.values) out.push_back(png::format_tick(v, t.decimals));
    return out;
  };
  EXPECT_EQ(labels(0, 1, 6), (std::vector<std::string>{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}));
  EXPECT_EQ(labels(-0.3, 0.3, 7), (std::vector<std::string>{"-0.3", "-0.2", "-0.1", "0.0", "0.1", "0.2", "0.3"}));
  EXPECT_EQ(labels(0, 100000, 6), (std::vector<std::string>{"0", "20000", "40000", "60000", "80000", "100000"}));
  EXPECT_EQ(labels(0.0012, 0.0031, 5), (std::vector<std::string>{"0.0015", "0.0020", "0.0025", "0.0030"}));
  EXPECT_EQ(png::format_tick(-0.0001, 2), "0.00");  // never "-0.00"
  EXPECT_EQ(png::integer_ticks(0.5, 3.5, 10).values, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(png::clock_time(3725.25), "1:02:05.3");
  EXPECT_EQ(png::clock_time(59.96), "0:01:00.0");
  EXPECT_STREQ(png::time_unit_for(179).name, "s");
  EXPECT_STREQ(png::time_unit_for(600).name, "min");
  EXPECT_STREQ(png::time_unit_for(22 * 3600).name, "h");
  const float values[] = {NAN, 2, -1, INFINITY};
  const auto r = png::padded_range(values, 0.1);
  EXPECT_DOUBLE_EQ(r.lo, -1.3);
  EXPECT_DOUBLE_EQ(r.hi, 2.3);
  EXPECT_DOUBLE_EQ(png::padded_range(std::span<const float>{}).span(), 1.0);
}

// ---- the figures ----------------------------------------------------------------------------

/// A PNG read back with cairo.
class image {
 public:
  explicit image(const fs::path& path) : surface_(cairo_image_surface_create_from_png(path.c_str())) {}
  ~image() { cairo_surface_destroy(surface_); }
  image(const image&) = delete;
  image& operator=(const image&) = delete;
  [[nodiscard]] bool ok() const { return cairo_surface_status(surface_) == CAIRO_STATUS_SUCCESS; }
  [[nodiscard]] int width() const { return cairo_image_surface_get_width(surface_); }
  [[nodiscard]] int height() const { return cairo_image_surface_get_height(surface_); }
  /// 0xRRGGBB of pixel (x, y).
  [[nodiscard]] std::uint32_t rgb(int x, int y) const {
    const auto* row = cairo_image_surface_get_data(surface_) +
                      static_cast<std::ptrdiff_t>(y) * cairo_image_surface_get_stride(surface_);
    return reinterpret_cast<const std::uint32_t*>(row)[x] & 0xffffffu;
  }
  [[nodiscard]] static double luminance(std::uint32_t c) {
    return 0.299 * ((c >> 16) & 255) + 0.587 * ((c >> 8) & 255) + 0.114 * (c & 255);
  }

 private:
  cairo_surface_t* surface_;
};

struct region_stats {
  double variance = 0;
  std::size_t colours = 0, dark = 0;
};

region_stats stats(const image& im, int x0, int y0, int x1, int y1) {
  double sum = 0, sum2 = 0, n = 0;
  std::set<std::uint32_t> distinct;
  region_stats s;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const auto c = im.rgb(x, y);
      const double l = image::luminance(c);
      sum += l, sum2 += l * l, n += 1;
      distinct.insert(c);
      s.dark += l < 90;
    }
  s.variance = sum2 / n - (sum / n) * (sum / n);
  s.colours = distinct.size();
  return s;
}

/// Pixels close to the figures' blue (colours::blue, 41·102·168) in column x.
std::vector<int> blue_rows(const image& im, int x) {
  std::vector<int> rows;
  for (int y = 0; y < im.height(); ++y) {
    const auto c = im.rgb(x, y);
    const int r = (c >> 16) & 255, g = (c >> 8) & 255, b = c & 255;
    if (std::abs(r - 41) < 30 && std::abs(g - 102) < 30 && std::abs(b - 168) < 30) rows.push_back(y);
  }
  return rows;
}

pipeline::run_options options_for(const run_result& r) {
  pipeline::run_options o;
  o.input = r.input;
  return o;
}

TEST(PngFigures, WritesEveryFigureAsAReadableTitledPng) {
  const test::scratch_dir dir;
  const auto r = synthetic_run(1);
  const auto folder = dir.path() / "figures";  // does not exist yet: created
  const auto written = write_png_figures(r, options_for(r), folder);
  std::vector<std::string> expected{"overview.png", "excerpt.png",      "lengths.png",   "beats.png",
                                    "latent.png",   "decoded_grid.png", "anomalies.png", "loss.png"};
  ASSERT_EQ(written.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i]);
    EXPECT_EQ(written[i], folder / expected[i]);
    const image im(written[i]);
    ASSERT_TRUE(im.ok());
    EXPECT_EQ(im.width(), 1600);
    EXPECT_EQ(im.height(), 1000);
    // The plot area drew something: many shades (antialiased data, labels) and contrast.
    const auto plot = stats(im, 150, 130, 1540, 880);
    EXPECT_GT(plot.variance, 50.0);
    EXPECT_GE(plot.colours, 20u);
    // The title row holds dark text, and the margin above it is white.
    EXPECT_GT(stats(im, 60, 24, 900, 60).dark, 300u);
    EXPECT_EQ(stats(im, 0, 0, 1600, 12).colours, 1u);
    EXPECT_EQ(im.rgb(5, 5), 0xffffffu);
  }
  // No temporaries left beside the figures.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(folder)) ++files;
  EXPECT_EQ(files, expected.size());
}

TEST(PngFigures, DataLandsWhereTheAxesSay) {
  const test::scratch_dir dir;
  auto r = synthetic_run(2);
  // Overview: a wide band (±2) in the first half of the recording, a narrow one (±0.2) after.
  auto& fig = r.figures;
  const auto n = fig.overview_min.size();
  for (std::size_t i = 0; i < n; ++i) {
    const float half = i < n / 2 ? 2.0f : 0.2f;
    fig.overview_min[i] = -half;
    fig.overview_max[i] = half;
  }
  for (auto& s : r.score) s = std::isfinite(s) ? 0.01f : s;  // no anomaly markers over the band
  // Loss: falls from 100 to 10.
  r.epoch_loss.clear();
  for (int e = 0; e < 20; ++e) r.epoch_loss.push_back(100 - 90.0 * e / 19);
  r.trained = false;
  (void)write_png_figures(r, options_for(r), dir.path());

  const image overview(dir.path() / "overview.png");
  ASSERT_TRUE(overview.ok());
  // Plot area x in [150, 1540): 30 % and 60 % through it (clear of the legend at the top right).
  const auto wide = blue_rows(overview, 150 + 1390 * 3 / 10), narrow = blue_rows(overview, 150 + 1390 * 6 / 10);
  ASSERT_FALSE(wide.empty());
  ASSERT_FALSE(narrow.empty());
  const auto extent = [](const std::vector<int>& rows) { return rows.back() - rows.front() + 1; };
  // The y range is ±2 padded by 5 %: the wide band spans ~750/2.2·4/2 px, the narrow one a tenth.
  EXPECT_GT(extent(wide), 600);
  EXPECT_NEAR(static_cast<double>(extent(wide)) / extent(narrow), 10.0, 1.5);
  // Both centred on the same y (0).
  EXPECT_NEAR((wide.front() + wide.back()) / 2.0, (narrow.front() + narrow.back()) / 2.0, 3.0);

  const image loss(dir.path() / "loss.png");
  ASSERT_TRUE(loss.ok());
  // The first epoch's point is high on the image (small y), the last one low.
  const auto first = blue_rows(loss, static_cast<int>(150 + 1390 * (0.5 / 20))),
             last = blue_rows(loss, static_cast<int>(150 + 1390 * (19.5 / 20)));
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(last.empty());
  EXPECT_LT(first.front(), 200);
  EXPECT_GT(last.back(), 780);
}

TEST(PngFigures, FiguresWithoutDataAreSkippedAndStaleOnesRemoved) {
  const test::scratch_dir dir;
  // An earlier run's loss.png must not survive a run without training.
  { std::ofstream(dir.path() / "loss.png") << "stale"; }
  auto r = synthetic_run(3);
  r.epoch_loss.clear();
  r.trained = false;
  r.decoded_grid.clear();
  r.figures = {};
  const auto written = write_png_figures(r, options_for(r), dir.path());
  EXPECT_EQ(written, (std::vector<fs::path>{dir.path() / "lengths.png", dir.path() / "latent.png"}));
  EXPECT_FALSE(fs::exists(dir.path() / "loss.png"));
  for (const auto& name : all_figures)
    EXPECT_EQ(fs::exists(dir.path() / name), name == "lengths.png" || name == "latent.png") << name;

  // Nothing at all (and no sample rate in the result: the options' one is used).
  const auto none = write_png_figures(run_result{}, pipeline::run_options{}, dir.path() / "empty");
  EXPECT_TRUE(none.empty());

  // Inconsistent sizes: rows without a row width, rows naming candidates that do not exist.
  auto odd = synthetic_run(4);
  odd.figures.row_beats.assign(odd.figures.row_beats.size(), 1 << 30);
  odd.figures.overview_max.resize(3);
  odd.split.clear();
  EXPECT_NO_THROW((void)write_png_figures(odd, options_for(odd), dir.path() / "odd"));
  odd.sizes.row_width = 0;
  const auto without_width = write_png_figures(odd, options_for(odd), dir.path() / "odd2");
  EXPECT_FALSE(fs::exists(dir.path() / "odd2" / "beats.png"));
  EXPECT_FALSE(fs::exists(dir.path() / "odd2" / "decoded_grid.png"));
  EXPECT_TRUE(fs::exists(dir.path() / "odd2" / "latent.png"));
}

TEST(PngFigures, UnwritableFolderThrowsNamingIt) {
  const test::scratch_dir dir;
  const auto r = synthetic_run(5);
  const auto file = dir.write("not-a-folder", "x");
  const auto below_file = file / "figures";
  try {
    (void)write_png_figures(r, options_for(r), below_file);
    FAIL() << "expected zeroflow::error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find(below_file.string()), std::string::npos) << e.what();
  }
  if (::geteuid() != 0) {  // root writes anywhere
    const auto locked = dir.path() / "locked";
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    try {
      (void)write_png_figures(r, options_for(r), locked);
      ADD_FAILURE() << "expected zeroflow::error";
    } catch (const error& e) {
      EXPECT_NE(std::string(e.what()).find(locked.string()), std::string::npos) << e.what();
    }
    fs::permissions(locked, fs::perms::owner_all);
  }
}

TEST(PngFigures, AmplitudeUnitFollowsTheColumnName) {
  // Not visible in pixels cheaply; checked through the writer not failing on both paths and the
  // overview differing (the y label changes).
  const test::scratch_dir dir;
  const auto r = synthetic_run(6);
  auto options = options_for(r);
  (void)write_png_figures(r, options, dir.path() / "raw");
  options.lead = "ECG_mV";
  (void)write_png_figures(r, options, dir.path() / "mv");
  const image raw(dir.path() / "raw" / "overview.png"), mv(dir.path() / "mv" / "overview.png");
  ASSERT_TRUE(raw.ok() && mv.ok());
  std::size_t differing = 0;
  for (int y = 130; y < 880; ++y)
    for (int x = 0; x < 150; ++x) differing += raw.rgb(x, y) != mv.rgb(x, y);
  EXPECT_GT(differing, 100u);  // the y-axis label
  std::size_t elsewhere = 0;
  for (int y = 130; y < 880; ++y)
    for (int x = 150; x < 1600; ++x) elsewhere += raw.rgb(x, y) != mv.rgb(x, y);
  EXPECT_EQ(elsewhere, 0u);
}

#else  // built without cairo

TEST(PngFigures, WithoutCairoSaysSo) {
  const auto r = synthetic_run(1);
  try {
    (void)write_png_figures(r, pipeline::run_options{}, fs::temp_directory_path() / "zeroflow-no-figures");
    FAIL() << "expected zeroflow::error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("built without cairo"), std::string::npos) << e.what();
  }
}

#endif

}  // namespace
}  // namespace zeroflow::report
