#pragma once
/// @file quantile.hpp
/// Order statistics of a set of scores on the host: quantiles as NumPy computes them, and Tukey's
/// fences (the box plot's outlier rule). `zeroflow timeseries` flags points above the upper fence
/// of their scores; zeroflow.sklearn's detectors set offset_ from the lower fence of theirs.
/// Arrays on a GPU are sorted there: only the order statistics cross to the host.
#include <span>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::eval {

/// Tukey's k: a value more than this many interquartile ranges beyond a quartile is an outlier.
inline constexpr double tukey_k = 1.5;

/**
 * @brief The q-quantile of `values` by linear interpolation between the order statistics around
 *        q (n - 1): numpy.quantile's default method ("linear"), rounded as NumPy rounds it, in
 *        double precision (float values are widened first).
 * @param values the values, in any order; not modified.
 * @param q in [0, 1].
 * @return the quantile; NaN when a value is NaN (as NumPy).
 * @throws zeroflow::invalid_argument when `values` is empty or q lies outside [0, 1].
 */
[[nodiscard]] double quantile(std::span<const float> values, double q);

/// @copydoc quantile(std::span<const float>, double)
[[nodiscard]] double quantile(std::span<const double> values, double q);

/// The quartiles of a set of values and the fences k interquartile ranges beyond them.
struct tukey_fence {
  double q1 = 0;  ///< first quartile (quantile 0.25)
  double q3 = 0;  ///< third quartile (quantile 0.75)
  double k = tukey_k;
  /// q1 - k (q3 - q1): values below it are low outliers.
  [[nodiscard]] double lower() const { return q1 - k * (q3 - q1); }
  /// q3 + k (q3 - q1): values above it are high outliers.
  [[nodiscard]] double upper() const { return q3 + k * (q3 - q1); }
};

/**
 * @brief Tukey's fences of `values`: their quartiles by quantile() and the factor k.
 * @throws zeroflow::invalid_argument when `values` is empty or k is negative or not finite.
 */
[[nodiscard]] tukey_fence tukey_fence_of(std::span<const float> values, double k = tukey_k);

/// @copydoc tukey_fence_of(std::span<const float>, double)
[[nodiscard]] tukey_fence tukey_fence_of(std::span<const double> values, double k = tukey_k);

/**
 * @brief quantile() of a 1-D float32 or float64 array (any stride) where it lives: on the host,
 *        as the span overload; on a GPU, sorted on `stream` there, with one read-back of the two
 *        order statistics (the same rounding either way).
 * @throws zeroflow::invalid_argument for another shape or dtype, no values, or q outside [0, 1];
 *         cuda_error for a GPU array in a build without CUDA.
 */
[[nodiscard]] double quantile(const array& values, double q, stream_view stream);

/// tukey_fence_of() of a 1-D float32 or float64 array where it lives (see quantile(const array&, ...)).
[[nodiscard]] tukey_fence tukey_fence_of(const array& values, double k, stream_view stream);

}  // namespace zeroflow::eval
