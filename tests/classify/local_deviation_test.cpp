// A beat's deviation from the normal beats around it (classify/local_deviation.hpp) against a
// straightforward re-computation with the standard library's sort, and what it says of beats
// built to be normal, shifted or of another shape.
#include "classify/local_deviation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "synthetic_rows.hpp"

namespace zd = zeroflow::classify::detail;

namespace {

using namespace zeroflow::classify::synthetic;

// The QRS window of the class rule (−0.10 s to +0.15 s) and half a QRS of shift, at 250 Hz.
const zd::deviation_window window{before - 25, 63, 13, before + after};

/// The per-sample median of the neighbours' centred segments, their residuals' median, and the
/// beat's smallest residual over the shifts: the definition, written plainly.
float reference_deviation(const std::vector<float>& rows, std::int64_t beats, std::int64_t b,
                          const std::vector<std::uint8_t>& normal, std::int64_t neighbours) {
  const auto segment = [&](std::int64_t beat, std::int64_t shift) {
    std::vector<double> s(static_cast<std::size_t>(window.length));
    for (std::int64_t i = 0; i < window.length; ++i)
      s[static_cast<std::size_t>(i)] = rows[static_cast<std::size_t>(beat * width + window.begin + shift + i)];
    double mean = 0;
    for (double v : s) mean += v;
    mean /= static_cast<double>(s.size());
    for (double& v : s) v -= mean;
    return s;
  };
  const auto upper_median = [](auto values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  std::vector<std::int64_t> candidates, near;
  std::vector<float> spans;
  for (std::int64_t j = std::max<std::int64_t>(0, b - neighbours); j <= std::min(beats - 1, b + neighbours); ++j)
    if (j != b && normal[static_cast<std::size_t>(j)]) {
      candidates.push_back(j);
      const auto s = segment(j, 0);
      const auto [lo, hi] = std::minmax_element(s.begin(), s.end());
      spans.push_back(static_cast<float>(*hi - *lo));
    }
  if (candidates.size() < 4) return std::numeric_limits<float>::quiet_NaN();
  // Neighbours spanning under an eighth of the median span are no normal beats (a lead come loose).
  const double least_span = 0.125 * upper_median(spans);
  for (std::size_t k = 0; k < candidates.size(); ++k)
    if (spans[k] >= least_span) near.push_back(candidates[k]);
  if (near.size() < 4) return std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<double>> segments;
  for (auto j : near) segments.push_back(segment(j, 0));
  std::vector<float> t(static_cast<std::size_t>(window.length));
  for (std::size_t i = 0; i < t.size(); ++i) {
    std::vector<float> column;
    for (const auto& s : segments) column.push_back(static_cast<float>(s[i]));
    t[i] = upper_median(column);
  }
  const auto residual = [&](const std::vector<double>& s) {
    double e = 0;
    for (std::size_t i = 0; i < t.size(); ++i) e += (s[i] - t[i]) * (s[i] - t[i]);
    return e / static_cast<double>(t.size());
  };
  std::vector<double> spreads;
  for (const auto& s : segments) spreads.push_back(residual(s));
  double best = std::numeric_limits<double>::infinity();
  for (std::int64_t shift = -window.max_shift; shift <= window.max_shift; ++shift)
    best = std::min(best, residual(segment(b, shift)));
  return static_cast<float>(best / upper_median(spreads));
}

/// A row: a QRS of the given width and height, a T wave and a sloping baseline, the whole beat
/// `offset` seconds after the R peak the row is cut at; noise.
void add_row(std::vector<float>& rows, double qrs_sigma, double qrs_height, double offset, double noise_mv,
             std::mt19937& rng) {
  std::normal_distribution<double> noise(0.0, noise_mv);
  for (std::int64_t j = 0; j < width; ++j) {
    const double t = static_cast<double>(j - before) / rate - offset;
    rows.push_back(static_cast<float>(qrs_height * bump(t, 0.0, qrs_sigma) + 0.6 * bump(t, 0.28, 0.05) + 0.3 * t +
                                      (noise_mv > 0 ? noise(rng) : 0.0)));
  }
}

}  // namespace

TEST(LocalDeviation, IsTheDefinitionComputedPlainly) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> height(2.0, 4.0), centre(-0.03, 0.03), width_s(0.01, 0.05);
  std::bernoulli_distribution is_normal(0.8);
  const std::int64_t beats = 120;
  std::vector<float> rows;
  std::vector<std::uint8_t> normal;
  for (std::int64_t b = 0; b < beats; ++b) {
    add_row(rows, width_s(rng), height(rng), centre(rng), 0.05, rng);
    normal.push_back(is_normal(rng) ? 1 : 0);
  }
  // Every 13th beat where the lead came loose: a fiftieth of its size, no normal beat.
  for (std::int64_t b = 0; b < beats; b += 13)
    for (std::int64_t j = 0; j < width; ++j) rows[static_cast<std::size_t>(b * width + j)] *= 0.02F;
  std::vector<float> scratch(static_cast<std::size_t>(window.length));
  int measured = 0;
  for (std::int64_t neighbours : {2, 5, 8, 20}) {
    for (std::int64_t b = 0; b < beats; ++b) {
      const float got =
          zd::local_deviation(rows.data(), width, beats, b, normal.data(), neighbours, 0.125, window, scratch.data());
      const float want = reference_deviation(rows, beats, b, normal, neighbours);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << "beat " << b << ", ±" << neighbours;
        continue;
      }
      EXPECT_NEAR(got, want, 1e-5 * want) << "beat " << b << ", ±" << neighbours;
      ++measured;
    }
  }
  EXPECT_GT(measured, 300);
}

TEST(LocalDeviation, SeparatesAnotherShapeFromANormalBeatMovedWithinItsQrs) {
  // Normal beats with a little noise; beat 20 the normal QRS 40 ms off the R peak it was cut at
  // (noise moved the detected peak), beat 30 a ventricular QRS (wide and inverted).
  std::mt19937 rng(11);
  const std::int64_t beats = 50;
  std::vector<float> rows;
  for (std::int64_t b = 0; b < beats; ++b) {
    if (b == 20)
      add_row(rows, 0.012, 3.0, 0.04, 0.0, rng);
    else if (b == 30)
      add_row(rows, 0.045, -2.5, 0.0, 0.02, rng);
    else
      add_row(rows, 0.012, 3.0, 0.0, 0.02, rng);
  }
  std::vector<std::uint8_t> normal(static_cast<std::size_t>(beats), 1);
  normal[20] = normal[30] = 0;
  std::vector<float> scratch(static_cast<std::size_t>(window.length));
  const auto deviation = [&](std::int64_t b) {
    return zd::local_deviation(rows.data(), width, beats, b, normal.data(), 8, 0.125, window, scratch.data());
  };
  EXPECT_LT(deviation(20), 1.0F);    // the normal QRS, found by the shift
  EXPECT_GT(deviation(30), 100.0F);  // another QRS: far beyond the normal beats' spread
  zd::deviation_window unshifted = window;
  unshifted.max_shift = 0;
  EXPECT_GT(zd::local_deviation(rows.data(), width, beats, 20, normal.data(), 8, 0.125, unshifted, scratch.data()),
            10.0F);
  // Too few normal beats near: no measurement.
  std::fill(normal.begin(), normal.begin() + 40, 0);
  EXPECT_TRUE(std::isnan(deviation(30)));
}

TEST(LocalDeviation, AGapInTheSignalIsNoNormalBeatAndNoMeasurement) {
  // Rows of a lead with gaps (NaN: WFDB's missing samples, empty CSV cells).
  std::mt19937 rng(5);
  const std::int64_t beats = 40;
  std::vector<float> rows;
  for (std::int64_t b = 0; b < beats; ++b) add_row(rows, b == 20 ? 0.045 : 0.012, b == 20 ? -2.5 : 3.0, 0.0, 0.02, rng);
  const auto row = [&](std::int64_t b) { return rows.begin() + b * width; };
  std::vector<std::uint8_t> normal(static_cast<std::size_t>(beats), 1);
  normal[20] = 0;
  std::vector<float> scratch(static_cast<std::size_t>(window.length));
  const auto deviation = [&](const std::vector<float>& r, std::int64_t b) {
    return zd::local_deviation(r.data(), width, beats, b, normal.data(), 8, 0.125, window, scratch.data());
  };
  const float clean = deviation(rows, 20);
  ASSERT_GT(clean, 100.0F);

  // A neighbour with a gap in its QRS is left out: the same as that neighbour not being normal.
  std::vector<float> gapped = rows;
  gapped[static_cast<std::size_t>((17 * width) + window.begin + 10)] = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::uint8_t> without_17 = normal;
  without_17[17] = 0;
  EXPECT_EQ(deviation(gapped, 20),
            zd::local_deviation(rows.data(), width, beats, 20, without_17.data(), 8, 0.125, window, scratch.data()));

  // The beat's own first shifts reach into a gap: the shifts that do not still measure it.
  std::vector<float> early_gap = rows;
  early_gap[static_cast<std::size_t>((20 * width) + window.begin - window.max_shift)] =
      std::numeric_limits<float>::quiet_NaN();
  const float shifted = deviation(early_gap, 20);
  EXPECT_FALSE(std::isnan(shifted));
  EXPECT_GT(shifted, 100.0F);

  // A lead that is all gap measures nothing: NaN, never "like the normal beats" (0).
  std::fill(rows.begin(), rows.end(), std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(deviation(rows, 20)));
  std::fill(row(0), row(beats), 0.0F);
  std::fill(row(20), row(21), std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(deviation(rows, 20)));
}
