// P-wave similarity to the recording's dominant beat (features.hpp) and the atrial part of a
// beat's evidence (beat_classes.hpp): the host's measurement; row_measurements.cu has the CUDA one.
#include <algorithm>
#include <cmath>
#include <vector>

#include "features.hpp"
#include "zeroflow/core/error.hpp"

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

std::vector<float> atrial_evidence(std::span<const float> p_similarity, std::span<const std::uint8_t> in_af,
                                   double floor) {
  ZF_EXPECTS(p_similarity.size() == in_af.size(), "expected an AF mark for each of the ", p_similarity.size(),
             " beats, got ", in_af.size());
  ZF_EXPECTS(floor > 0, "the spread's floor must be > 0, got ", floor);
  // The robust z-score of 1 − similarity over the beats outside AF (mostly sinus beats, whose P
  // waves agree): only a P wave unlike most counts, and a record whose P waves all vary (noise,
  // a wandering pacemaker) gets a wide spread and little evidence from them.
  std::vector<double> unlike;
  for (std::size_t b = 0; b < p_similarity.size(); ++b)
    if (!in_af[b]) unlike.push_back(1.0 - static_cast<double>(p_similarity[b]));
  std::vector<float> out(p_similarity.size(), 0.0F);
  if (unlike.empty()) return out;
  const double centre = detail::upper_median(unlike);
  for (double& v : unlike) v = std::abs(v - centre);
  const double spread = std::max(1.4826 * detail::upper_median(unlike), floor);
  for (std::size_t b = 0; b < p_similarity.size(); ++b)
    if (!in_af[b])  // inside AF there is no P wave to compare
      out[b] = static_cast<float>(std::max(0.0, (1.0 - static_cast<double>(p_similarity[b]) - centre) / spread));
  return out;
}

}  // namespace zeroflow::classify
