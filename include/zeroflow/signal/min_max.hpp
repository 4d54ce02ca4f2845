#pragma once
/// @file min_max.hpp
/// Min-max scaling of columns on the device where they live (the seed-004 pipeline's
/// preprocessing, which its notebook had to do on the CPU because cuDF lacked it).
///
/// The arithmetic is scikit-learn's MinMaxScaler, in the input's dtype and in the same order, so
/// results agree with it bit for bit on the host and on a GPU:
///   range  = max − min                 (per column; NaN ignored, as numpy.nanmin / nanmax)
///   scale  = (hi − lo) / range', where range' = 1 when range < 10·ε of the dtype (a constant column)
///   offset = lo − min·scale
///   y      = x·scale + offset          (then clipped to [lo, hi] when asked)
///   x      = (y − offset) / scale      (the inverse)
/// Every multiply and add is rounded on its own (no fused multiply-add on either side).
#include <optional>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal {

/// The target interval of the scaled values (scikit-learn's feature_range); lo < hi.
struct feature_range {
  double lo = 0.0;
  double hi = 1.0;
};

/// What min_max_fit learns, one element per column, in the input's dtype and on its device.
struct min_max_scaling {
  array data_min;    ///< smallest non-NaN value of each column (NaN for a column of NaN only)
  array data_max;    ///< largest non-NaN value of each column
  array data_range;  ///< data_max − data_min
  array scale;       ///< (hi − lo) / range (range taken as 1 for a constant column)
  array offset;      ///< lo − data_min·scale (scikit-learn's min_)
};

/// @brief Per-column minimum and maximum, and the scale and offset that map them to `range`.
/// Runs where `x` lives (host or CUDA device); the CUDA version does not synchronise.
/// @param x float32 or float64, 1-D (one column of N values) or 2-D (N rows × F columns), any
///        strides, at least one row; NaN is ignored, ±inf is taken as a value.
/// @param range the interval the columns are mapped to.
/// @param stream the stream the work is queued on (CUDA).
/// @throws zeroflow::invalid_argument for another dtype or rank, no rows, or lo >= hi.
[[nodiscard]] min_max_scaling min_max_fit(const array& x, feature_range range, stream_view stream);

/// @brief y = x·scale + offset, column by column; clipped to `clip` when given (NaN stays NaN).
/// @param x as min_max_fit, with as many columns as `scale` has elements (zero rows allowed).
/// @param scale, offset 1-D, x's dtype, on x's device (from min_max_fit).
/// @return a new C-contiguous array of x's shape, dtype and device.
/// @throws zeroflow::invalid_argument for mismatched shapes, dtypes or devices.
[[nodiscard]] array min_max_transform(const array& x, const array& scale, const array& offset,
                                      std::optional<feature_range> clip, stream_view stream);

/// @brief x = (y − offset) / scale, column by column (undoes min_max_transform without clipping).
/// @throws zeroflow::invalid_argument as min_max_transform.
[[nodiscard]] array min_max_inverse(const array& y, const array& scale, const array& offset, stream_view stream);

}  // namespace zeroflow::signal
