#pragma once
// The median/MAD selection of normalize.cu without its host read-back, for callers that keep the
// result on the device until they synchronise anyway (plain C++ header; CUDA builds only).
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/normalize.hpp"

namespace zeroflow::signal::detail {

/// What the selection finds, in device memory until read back.
struct robust_moments {
  unsigned long long finite;  ///< finite samples
  double median;              ///< their median (0 when there are none)
  double mad;                 ///< their median absolute deviation from it
};

/// @brief Queues the median and MAD selections of robust_zscore_cuda on `stream`; the last kernel
/// writes *out (device memory). No host synchronisation.
/// @param signal contiguous 1-D float32 on a CUDA device, not empty
void robust_moments_cuda(const array& signal, robust_moments* out, stream_view stream);

/// @brief robust_zscore's answer from the moments read back: the median and 1.4826·MAD, or the
/// host's fallback chain computed from `signal` when that scale is 0 or not a finite float.
[[nodiscard]] normalization normalization_of(const robust_moments& m, const array& signal, stream_view stream);

}  // namespace zeroflow::signal::detail
