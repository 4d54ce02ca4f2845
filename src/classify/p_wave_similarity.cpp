// P-wave similarity to the recording's dominant beat (features.hpp): the host's measurement;
// row_measurements.cu has the CUDA one.
#include <algorithm>
#include <cmath>
#include <vector>

#include "features.hpp"

namespace zeroflow::classify {

namespace detail {

namespace {

/// The segment with the line through its ends removed, then mean-centred.
void detrend_and_centre(const float* x, std::int64_t length, std::vector<double>& out) {
  out.resize(static_cast<std::size_t>(length));
  const double first = x[0], last = x[length - 1];
  double mean = 0;
  for (std::int64_t i = 0; i < length; ++i) {
    const double line = first + (last - first) * static_cast<double>(i) / static_cast<double>(length - 1);
    out[static_cast<std::size_t>(i)] = x[i] - line;
    mean += out[static_cast<std::size_t>(i)];
  }
  mean /= static_cast<double>(length);
  for (double& v : out) v -= mean;
}

}  // namespace

dominant_segment dominant_p_of(std::span<const float> chosen, std::int64_t used, std::int64_t row_width,
                               const p_window& p) {
  const auto median = column_medians(chosen, used, row_width, p.begin, p.length);
  dominant_segment d;
  detrend_and_centre(median.data(), p.length, d.values);
  for (double v : d.values) d.norm += v * v;
  d.norm = std::sqrt(d.norm);
  return d;
}

std::vector<float> p_similarity(const beat_rows& rows, std::int64_t beats, const p_window& p,
                                const dominant_segment& dominant) {
  std::vector<float> out(static_cast<std::size_t>(beats));
  std::vector<double> segment;
  for (std::int64_t b = 0; b < beats; ++b) {
    detrend_and_centre(rows.rows.data() + b * rows.row_width + p.begin, p.length, segment);
    double dot = 0, energy = 0;
    for (std::size_t i = 0; i < segment.size(); ++i) {
      dot += segment[i] * dominant.values[i];
      energy += segment[i] * segment[i];
    }
    const double denominator = std::sqrt(energy) * dominant.norm;
    out[static_cast<std::size_t>(b)] = static_cast<float>(denominator > 0 ? dot / denominator : 0.0);
  }
  return out;
}

}  // namespace detail

}  // namespace zeroflow::classify
