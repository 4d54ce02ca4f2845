#pragma once
// segment_beats on a GPU (plain C++ header; CUDA builds only).
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/segment.hpp"

namespace zeroflow::signal::detail {

/// @brief segment_beats for a contiguous signal on a CUDA device, with two host synchronisations
/// in all: the number of gate positions (it sizes the buffers of the stages after it), and one
/// read-back at the end of every other count and of the normalisation. The median/MAD selection
/// runs on a side stream beside the band-pass; see segment.cu.
/// @param kernel_sum Σ of the float Ricker taps (as the host adds them)
/// @param stride the statistics' subsample stride (segment.cpp)
[[nodiscard]] segmentation segment_beats_cuda(const array& x, const segment_params& params, segment_sizes sizes,
                                              double kernel_sum, std::int64_t stride, stream_view stream);

}  // namespace zeroflow::signal::detail
