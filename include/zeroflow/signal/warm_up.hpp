#pragma once
/// @file warm_up.hpp
/// Loads the segmentation's CUDA kernels before the recording arrives.
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/params.hpp"

namespace zeroflow::signal {

/// @brief Segments a short synthetic recording (two dozen identical beats) on `where`, so that
/// CUDA's lazy module loading, CUB's first launches and the memory pool's first growth happen
/// now instead of inside the first real segment_beats (about 2.7 ms of the 3.6 ms a cold
/// segmentation of 20 M samples took on the H200; the seed warms its kernels the same way).
/// Nothing on the host; a no-op for host devices.
/// @throws zeroflow::invalid_argument for parameters segment_beats would refuse
void warm_up(const segment_params& params, device where, stream_view stream);

}  // namespace zeroflow::signal
