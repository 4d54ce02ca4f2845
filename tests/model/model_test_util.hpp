#pragma once
// Synthetic rows for the model tests: smooth beats of two shapes, and noise rows as outliers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/memory/allocate.hpp"

namespace zeroflow::model_test {

// Smooth rows of two shapes: a Gaussian bump, or a biphasic (derivative-of-Gaussian) wave, each
// with a random amplitude and a small random shift. Easy for a 2-D latent to reconstruct.
inline std::vector<float> smooth_row(int width, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> amp(0.6, 1.2);
  std::uniform_real_distribution<double> shift(-3.0, 3.0);
  std::bernoulli_distribution shape(0.5);
  const double a = amp(rng);
  const double c = width / 2.0 + shift(rng);
  const double s = width / 10.0;
  const bool biphasic = shape(rng);
  std::vector<float> row(static_cast<std::size_t>(width));
  for (int t = 0; t < width; ++t) {
    const double u = (t - c) / s;
    const double g = std::exp(-0.5 * u * u);
    row[static_cast<std::size_t>(t)] = static_cast<float>(biphasic ? a * 1.6 * u * g : a * g);
  }
  return row;
}

// Uniform noise in [-1, 1]: nothing like the smooth rows.
inline std::vector<float> noise_row(int width, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1.0F, 1.0F);
  std::vector<float> row(static_cast<std::size_t>(width));
  for (auto& v : row) v = u(rng);
  return row;
}

// n rows of width w on the host; the rows listed in `outliers` are noise, the others smooth.
inline array make_rows(int n, int width, std::uint64_t seed, const std::set<int>& outliers = {}) {
  array rows = empty({n, width}, float32);
  std::mt19937_64 rng(seed);
  auto out = rows.span<float>();
  for (int i = 0; i < n; ++i) {
    const std::vector<float> row = outliers.contains(i) ? noise_row(width, rng) : smooth_row(width, rng);
    std::copy(row.begin(), row.end(), out.begin() + static_cast<std::ptrdiff_t>(i) * width);
  }
  return rows;
}

inline std::vector<float> to_vector(const array& a) {
  const auto s = a.span<const float>();
  return {s.begin(), s.end()};
}

/// The message of the `Error` that `fn` throws, checking its type; a test failure, and "", when
/// nothing is thrown.
template <class Error, class Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "nothing was thrown";
  return {};
}

inline std::vector<std::int64_t> to_vector_i64(const array& a) {
  const auto s = a.span<const std::int64_t>();
  return {s.begin(), s.end()};
}

}  // namespace zeroflow::model_test
