#pragma once
// A second stream for work that can overlap the main one (plain C++ header; CUDA builds only).
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal::detail {

/// @brief The signal layer's side stream on `where` (non-blocking, highest priority, created once
/// per device and kept for the process), made to wait for everything queued on `parent` so far.
///
/// Latency-bound chains of small kernels (the median/MAD selection) queued on it run beside the
/// bandwidth-bound kernels of `parent` instead of after them; high priority lets their few blocks
/// start as soon as an SM frees up. The caller joins it (a host read-back, or an event) before
/// `parent` uses what it wrote. Concurrent callers share it: correct, merely serialised.
/// @throws zeroflow::cuda_error on a CUDA failure
[[nodiscard]] stream_view side_stream_after(device where, stream_view parent);

}  // namespace zeroflow::signal::detail
