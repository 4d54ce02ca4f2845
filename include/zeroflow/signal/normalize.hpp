#pragma once
/// @file normalize.hpp
/// Per-recording robust z-score, so beats reach the model at unit scale whatever the units.
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal {

/// Rows are (x − center) / scale.
struct normalization {
  float center = 0;
  float scale = 1;
};

/// @brief Robust z-score of a recording: center = median, scale = 1.4826 · MAD
/// (median absolute deviation from the median; 1.4826 makes it the standard deviation for
/// Gaussian noise).
///
/// Why: (x − center)/scale is invariant under x → a·x + b (a > 0), so a recording in millivolts
/// and the same recording in raw ADC units (gain and offset) give the same rows and one model
/// works for both; the seed does not normalise, so its model only fits the units it was trained
/// on. The median and MAD are used rather than mean and standard deviation because they ignore
/// the large R-peaks and the artefacts, which are exactly the outliers the pipeline looks for.
/// When MAD is 0 (more than half the samples equal, e.g. a flat or clipped recording) the scale
/// falls back to the population standard deviation, and to 1 when that is 0 too.
/// Non-finite samples (NaN, ±inf) are ignored; with none finite the result is {0, 1}.
/// Medians of an even count are the mean of the two middle values. Sums and the median are
/// computed in double; the deviations are ranked after rounding to float (monotonic, so the MAD
/// is the exact one rounded to float, up to one ulp when two middle values are averaged).
/// @param signal 1-D float32, any stride, not empty
/// @throws zeroflow::invalid_argument on a non-1-D, non-float32 or empty signal
[[nodiscard]] normalization robust_zscore(const array& signal, stream_view stream);

}  // namespace zeroflow::signal
