// Families of QRS shapes among the beats unlike the dominant one (beat_classes.hpp, step 4): a
// leader clustering in beat order, so that the families do not depend on a random start.
#include <cmath>
#include <vector>

#include "features.hpp"

namespace zeroflow::classify::detail {

namespace {

/// The segment mean-centred and scaled to unit norm (zero where it is flat).
std::vector<double> unit(const float* x, std::int64_t length) {
  std::vector<double> v(x, x + length);
  double mean = 0, norm = 0;
  for (double s : v) mean += s;
  mean /= static_cast<double>(length);
  for (double& s : v) s -= mean, norm += s * s;
  norm = std::sqrt(norm);
  for (double& s : v) s = norm > 0 ? s / norm : 0.0;
  return v;
}

}  // namespace

std::vector<std::int32_t> shape_families(std::span<const float> segments, std::int64_t length, double correlation,
                                         std::int64_t max_families) {
  const auto count = static_cast<std::int64_t>(segments.size()) / length;
  std::vector<std::int32_t> family(static_cast<std::size_t>(count));
  // Each family's sum of unit segments: its direction is the family's mean shape.
  std::vector<std::vector<double>> sums;
  std::vector<double> norms;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto v = unit(segments.data() + i * length, length);
    std::int64_t joined = -1, best = -1;
    double best_correlation = -2;
    for (std::size_t f = 0; f < sums.size(); ++f) {
      double dot = 0;
      for (std::int64_t j = 0; j < length; ++j)
        dot += sums[f][static_cast<std::size_t>(j)] * v[static_cast<std::size_t>(j)];
      const double c = norms[f] > 0 ? dot / norms[f] : 0.0;
      if (c >= correlation) {
        joined = static_cast<std::int64_t>(f);
        break;
      }
      if (c > best_correlation) best_correlation = c, best = static_cast<std::int64_t>(f);
    }
    if (joined < 0 && static_cast<std::int64_t>(sums.size()) < max_families) {
      sums.push_back(v);
      norms.push_back(1.0);
      family[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(sums.size() - 1);
      continue;
    }
    if (joined < 0) joined = best;
    auto& sum = sums[static_cast<std::size_t>(joined)];
    double norm = 0;
    for (std::int64_t j = 0; j < length; ++j) {
      sum[static_cast<std::size_t>(j)] += v[static_cast<std::size_t>(j)];
      norm += sum[static_cast<std::size_t>(j)] * sum[static_cast<std::size_t>(j)];
    }
    norms[static_cast<std::size_t>(joined)] = std::sqrt(norm);
    family[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(joined);
  }
  return family;
}

}  // namespace zeroflow::classify::detail
