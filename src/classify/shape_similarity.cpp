// Shape similarity to the recording's dominant beat (beat_classes.hpp, step 1).
#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "features.hpp"

namespace zeroflow::classify::detail {

namespace {

/// Mean-centred copy and its norm: a correlation is then one dot product.
struct centred {
  std::vector<double> values;
  double norm = 0;
};

centred centre(const float* x, std::int64_t n) {
  centred c;
  c.values.assign(x, x + n);
  double mean = 0;
  for (double v : c.values) mean += v;
  mean /= static_cast<double>(n);
  for (double& v : c.values) v -= mean, c.norm += v * v;
  c.norm = std::sqrt(c.norm);
  return c;
}

double correlation(const float* x, const centred& t) {
  const auto n = static_cast<std::int64_t>(t.values.size());
  double mean = 0;
  for (std::int64_t i = 0; i < n; ++i) mean += x[i];
  mean /= static_cast<double>(n);
  double dot = 0, energy = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = x[i] - mean;
    dot += v * t.values[static_cast<std::size_t>(i)];
    energy += v * v;
  }
  const double denominator = std::sqrt(energy) * t.norm;
  return denominator > 0 ? dot / denominator : 0.0;
}

}  // namespace

std::vector<float> shape_similarity(const beat_rows& rows, std::int64_t beats, double sample_rate,
                                    std::int64_t template_rows) {
  const std::int64_t width = rows.window_before + rows.window_after;
  // The dominant beat: the per-sample median of evenly spaced rows (most beats are of the
  // dominant shape in any recording a class rule can serve; a median ignores the others).
  const std::int64_t used = std::min(beats, template_rows);
  // The chosen rows transposed first: each column's median then reads contiguous memory.
  std::vector<float> columns(static_cast<std::size_t>(used * width));
  for (std::int64_t i = 0; i < used; ++i) {
    const float* row = rows.rows.data() + (i * beats / used) * rows.row_width;
    for (std::int64_t j = 0; j < width; ++j) columns[static_cast<std::size_t>(j * used + i)] = row[j];
  }
  std::vector<float> dominant(static_cast<std::size_t>(width));
  for (std::int64_t j = 0; j < width; ++j) {
    const auto column = columns.begin() + j * used;
    const auto middle = column + used / 2;
    std::nth_element(column, middle, column + used);
    dominant[static_cast<std::size_t>(j)] = *middle;
  }

  const auto qrs_begin = rows.window_before - static_cast<std::int64_t>(std::lround(0.10 * sample_rate));
  const auto qrs_end = rows.window_before + static_cast<std::int64_t>(std::lround(0.15 * sample_rate));
  const auto max_shift = static_cast<std::int64_t>(std::lround(0.02 * sample_rate));
  const centred qrs = centre(dominant.data() + qrs_begin, qrs_end - qrs_begin);

  // Shifts of up to ±20 ms forgive a detector that places the R peak a little differently on
  // an unusual beat. Most beats are plainly of the dominant shape at the detected peak: their
  // search stops there (a larger value would change nothing the rule decides).
  constexpr double plainly_dominant = 0.95;
  std::vector<float> similarity(static_cast<std::size_t>(beats));
  auto measure = [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t b = first; b < last; ++b) {
      const float* row = rows.rows.data() + b * rows.row_width;
      double best = correlation(row + qrs_begin, qrs);
      for (std::int64_t shift = -max_shift; shift <= max_shift && best < plainly_dominant; ++shift) {
        const std::int64_t begin = qrs_begin + shift;
        if (shift == 0 || begin < 0 || begin + (qrs_end - qrs_begin) > width) continue;
        best = std::max(best, correlation(row + begin, qrs));
      }
      similarity[static_cast<std::size_t>(b)] = static_cast<float>(best);
    }
  };
  // Independent beats: split over the cores (each writes only its own entries).
  const auto workers = static_cast<std::int64_t>(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
  const std::int64_t per_worker = (beats + workers - 1) / workers;
  if (beats < 4096 || workers == 1) {
    measure(0, beats);
  } else {
    std::vector<std::jthread> threads;
    for (std::int64_t w = 0; w < workers; ++w)
      threads.emplace_back(measure, w * per_worker, std::min(beats, (w + 1) * per_worker));
  }
  return similarity;
}

}  // namespace zeroflow::classify::detail
