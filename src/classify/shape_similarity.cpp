// Shape similarity to the recording's dominant beat (beat_classes.hpp, step 1): the windows and
// the dominant beat, shared by the host and CUDA measurements, and the host's measurement.
#include <algorithm>
#include <cmath>
#include <vector>

#include "features.hpp"
#include "zeroflow/core/detail/parallel_chunks.hpp"

namespace zeroflow::classify::detail {

qrs_window qrs_window_of(const beat_rows& rows, double sample_rate) {
  return {rows.window_before - static_cast<std::int64_t>(std::lround(0.10 * sample_rate)),
          rows.window_before + static_cast<std::int64_t>(std::lround(0.15 * sample_rate)),
          static_cast<std::int64_t>(std::lround(0.02 * sample_rate))};
}

deviation_window deviation_window_of(const beat_rows& rows, double sample_rate) {
  const qrs_window qrs = qrs_window_of(rows, sample_rate);
  return {qrs.begin, qrs.end - qrs.begin, static_cast<std::int64_t>(std::lround(0.05 * sample_rate)),
          rows.window_before + rows.window_after};
}

p_window p_window_of(const beat_rows& rows, double sample_rate) {
  const auto begin = std::max<std::int64_t>(0, rows.window_before - std::lround(0.25 * sample_rate));
  const auto end = rows.window_before - std::lround(0.07 * sample_rate);
  return {begin, end - begin};
}

double upper_median(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

std::vector<float> column_medians(std::span<const float> chosen, std::int64_t used, std::int64_t row_width,
                                  std::int64_t begin, std::int64_t length) {
  std::vector<float> column(static_cast<std::size_t>(used)), out(static_cast<std::size_t>(length));
  for (std::int64_t j = 0; j < length; ++j) {
    for (std::int64_t i = 0; i < used; ++i)
      column[static_cast<std::size_t>(i)] = chosen[static_cast<std::size_t>(i * row_width + begin + j)];
    const auto middle = column.begin() + used / 2;
    std::nth_element(column.begin(), middle, column.end());
    out[static_cast<std::size_t>(j)] = *middle;
  }
  return out;
}

double dominant_bound(std::span<const float> similarity, const class_params& p) {
  const double centre = upper_median({similarity.begin(), similarity.end()});
  std::vector<double> alike;
  for (float s : similarity)
    if (s >= p.shape.dominant_min_correlation) alike.push_back(s);
  double spread = 0;
  if (alike.size() > 10) {
    const double m = upper_median(alike);
    for (double& s : alike) s = std::abs(s - m);
    spread = 1.4826 * upper_median(alike);
  }
  return std::clamp(centre - p.shape.dominant_spread_deviations * spread, p.shape.dominant_min_correlation,
                    p.shape.dominant_max_correlation);
}

std::int64_t template_rows_used(std::int64_t beats, std::int64_t template_rows) {
  return std::min(beats, template_rows);
}

std::vector<float> chosen_rows(const beat_rows& rows, std::int64_t beats, std::int64_t used) {
  std::vector<float> chosen(static_cast<std::size_t>(used * rows.row_width));
  for (std::int64_t i = 0; i < used; ++i) {
    const float* row = rows.rows.data() + (i * beats / used) * rows.row_width;
    std::copy(row, row + rows.row_width, chosen.begin() + i * rows.row_width);
  }
  return chosen;
}

dominant_segment dominant_qrs_of(std::span<const float> chosen, std::int64_t used, std::int64_t row_width,
                                 const qrs_window& qrs) {
  // The per-sample median of evenly spaced rows (most beats are of the dominant shape in any
  // recording a class rule can serve; a median ignores the others), over the QRS window only.
  const std::int64_t length = qrs.end - qrs.begin;
  const auto median = column_medians(chosen, used, row_width, qrs.begin, length);
  dominant_segment d;
  d.values.assign(median.begin(), median.end());
  double mean = 0;
  for (double v : d.values) mean += v;
  mean /= static_cast<double>(length);
  for (double& v : d.values) v -= mean, d.norm += v * v;
  d.norm = std::sqrt(d.norm);
  return d;
}

namespace {

double correlation(const float* x, const dominant_segment& t) {
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

class host_rows final : public row_measurements {
 public:
  host_rows(const beat_rows& rows, std::int64_t beats, double sample_rate, std::int64_t template_rows)
      : rows_(rows), beats_(beats), rate_(sample_rate), template_rows_(template_rows) {}

  std::vector<float> similarity() override {
    const qrs_window qrs = qrs_window_of(rows_, rate_);
    const std::int64_t used = template_rows_used(beats_, template_rows_);
    const dominant_segment dominant = dominant_qrs_of(chosen_rows(rows_, beats_, used), used, rows_.row_width, qrs);
    const std::int64_t width = rows_.window_before + rows_.window_after, length = qrs.end - qrs.begin;

    // Shifts of up to ±20 ms forgive a detector that places the R peak a little differently on
    // an unusual beat; the search stops once a beat is plainly of the dominant shape.
    std::vector<float> similarity(static_cast<std::size_t>(beats_));
    auto measure = [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t b = first; b < last; ++b) {
        const float* row = rows_.rows.data() + b * rows_.row_width;
        double best = correlation(row + qrs.begin, dominant);
        for (std::int64_t shift = -qrs.max_shift; shift <= qrs.max_shift && best < plainly_dominant; ++shift) {
          const std::int64_t begin = qrs.begin + shift;
          if (shift == 0 || begin < 0 || begin + length > width) continue;
          best = std::max(best, correlation(row + begin, dominant));
        }
        similarity[static_cast<std::size_t>(b)] = static_cast<float>(best);
      }
    };
    // Independent beats: split over the cores (each writes only its own entries).
    zeroflow::detail::parallel_chunks(beats_, 4096, measure);
    return similarity;
  }

  std::vector<double> p_wave_coherence(std::span<const std::uint8_t> left_out, std::int64_t neighbours) override {
    return detail::p_wave_coherence(rows_, beats_, rate_, left_out, neighbours);
  }

  std::vector<float> p_similarity() override {
    const p_window p = p_window_of(rows_, rate_);
    const std::int64_t used = template_rows_used(beats_, template_rows_);
    return detail::p_similarity(rows_, beats_, p,
                                dominant_p_of(chosen_rows(rows_, beats_, used), used, rows_.row_width, p));
  }

  std::vector<float> clarity() override { return detail::clarity(rows_, beats_, clarity_window_of(rows_, rate_)); }
  std::vector<float> echo() override { return detail::echo(rows_, beats_, echo_window_of(rows_, rate_)); }

  std::vector<float> local_deviation(std::span<const std::int64_t> beats, std::span<const std::uint8_t> normal,
                                     std::int64_t neighbours, double min_span_fraction) override {
    const deviation_window w = deviation_window_of(rows_, rate_);
    std::vector<float> out(beats.size());
    // Each beat's local normal beat is a few thousand operations: a few hundred beats a thread.
    zeroflow::detail::parallel_chunks(
        static_cast<std::int64_t>(beats.size()), 256, [&](std::int64_t first, std::int64_t last) {
          std::vector<float> local_normal(static_cast<std::size_t>(w.length));
          for (auto i = static_cast<std::size_t>(first); i < static_cast<std::size_t>(last); ++i)
            out[i] = detail::local_deviation(rows_.rows.data(), rows_.row_width, beats_, beats[i], normal.data(),
                                             neighbours, min_span_fraction, w, local_normal.data());
        });
    return out;
  }

  std::vector<float> qrs_segments(std::span<const std::int64_t> beats) override {
    const qrs_window w = qrs();
    const std::int64_t length = w.end - w.begin;
    std::vector<float> out(beats.size() * static_cast<std::size_t>(length));
    for (std::size_t i = 0; i < beats.size(); ++i) {
      const float* row = rows_.rows.data() + beats[i] * rows_.row_width + w.begin;
      std::copy(row, row + length, out.begin() + static_cast<std::ptrdiff_t>(i) * length);
    }
    return out;
  }

  [[nodiscard]] qrs_window qrs() const override { return qrs_window_of(rows_, rate_); }

 private:
  beat_rows rows_;
  std::int64_t beats_;
  double rate_;
  std::int64_t template_rows_;
};

}  // namespace

std::unique_ptr<row_measurements> host_measurements(const beat_rows& rows, std::int64_t beats, double sample_rate,
                                                    std::int64_t template_rows) {
  return std::make_unique<host_rows>(rows, beats, sample_rate, template_rows);
}

}  // namespace zeroflow::classify::detail
