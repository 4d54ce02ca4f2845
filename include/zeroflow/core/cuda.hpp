#pragma once
/// @file cuda.hpp
/// Whether CUDA can run here. CUDA code is compiled when the toolkit is present and skipped
/// cleanly at run time when no GPU is.
#include "zeroflow/core/stream.hpp"

namespace zeroflow {

/// True when this build has CUDA paths and at least one GPU answers.
[[nodiscard]] bool cuda_available();
/// Number of visible GPUs (0 without CUDA or a driver).
[[nodiscard]] int cuda_device_count();
/// Throws zeroflow::cuda_error naming `what` when cuda_available() is false.
void require_cuda(const char* what);
/// Blocks until all work queued on `stream` is done (no-op without CUDA).
void synchronize(stream_view stream);

}  // namespace zeroflow
