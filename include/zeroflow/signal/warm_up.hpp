#pragma once
/// @file warm_up.hpp
/// Warms the GPU segmentation up: its kernels loaded and the memory pool grown, before the timing.
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/params.hpp"

namespace zeroflow::signal {

/// @brief Segments a synthetic recording (8192 identical beats, ~1.5 M samples at 250 Hz) on
/// `where`, so that CUDA's lazy module loading, CUB's first launches of the kernels it picks for
/// long inputs and the memory pool's first growth happen now instead of inside the first real
/// segment_beats (most of a cold segmentation's time; the seed warms its kernels the same way).
/// A no-op for host devices.
/// @throws zeroflow::invalid_argument for parameters segment_beats would refuse
void warm_up(const segment_params& params, device where, stream_view stream);

/// @brief Segments `signal` once and drops the result, so that a segmentation of it that
/// follows finds its kernels loaded and the memory pool grown to its working set (the pool keeps
/// what it grew). This is how the seed times its segmentation: once untimed on the same data,
/// then timed. A no-op for host arrays.
/// @throws what segment_beats(signal, params) throws
void warm_up(const array& signal, const segment_params& params, stream_view stream);

}  // namespace zeroflow::signal
