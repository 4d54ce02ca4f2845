#pragma once
/// @file cuda.hpp
/// Whether CUDA can run here. CUDA code is compiled when the toolkit is present and skipped
/// cleanly at run time when no GPU is.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "zeroflow/core/stream.hpp"

namespace zeroflow {

/// True when this build has CUDA paths, at least one GPU answers, and this build carries code
/// GPU 0 can run (cuda_code_runs_on).
[[nodiscard]] bool cuda_available();
/// The GPU code this build carries, as CMake lists it: "80-real,86-real,89-real,90-real,90-virtual"
/// (NN-real machine code for sm_NN, NN-virtual PTX for compute_NN, a bare NN both; "" without CUDA).
[[nodiscard]] std::string cuda_architectures();
/// Whether code built for `architectures` (cuda_architectures()'s form) runs on a GPU of compute
/// capability major.minor: machine code of the same major version and a minor at or below its
/// own, or PTX of a capability at or below its own (compiled by the driver when loaded).
[[nodiscard]] bool cuda_code_runs_on(std::string_view architectures, int major, int minor);
/// Number of visible GPUs (0 without CUDA or a driver).
[[nodiscard]] int cuda_device_count();
/// Throws zeroflow::cuda_error naming `what` when cuda_available() is false.
void require_cuda(const char* what);
/// Creates the CUDA context of `device_id` now (cudaFree(0)), so that its one-off cost is not
/// charged to the first stage that touches the GPU.
void cuda_initialize(int device_id);
/// Blocks until all work queued on `stream` is done (no-op without CUDA).
void synchronize(stream_view stream);

/// Makes `waiting` wait for everything queued on `producer` so far, through an event: no host
/// synchronisation. A no-op when the two are the same stream, and without CUDA.
/// @throws zeroflow::cuda_error on a CUDA failure
void wait_for_stream(stream_view waiting, stream_view producer);

/// A non-blocking stream of GPU `device_id` for one unit of work, such as one recording's run, so
/// that work on different ones overlaps. Taken in turn from a fixed set per GPU that lives as long
/// as the process: memory freed on it after the work has ended still finds it alive, and no stream
/// is created per unit of work. The legacy default stream without CUDA.
/// @throws zeroflow::cuda_error when the stream cannot be created
[[nodiscard]] stream_view pooled_stream(int device_id);

/// What `zeroflow info` shows of one GPU.
struct gpu_info {
  int id = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  bool has_code = false;  ///< this build carries code it can run (cuda_code_runs_on)
  std::size_t total_bytes = 0, free_bytes = 0;
};
/// Every visible GPU (empty without CUDA).
[[nodiscard]] std::vector<gpu_info> cuda_devices();
/// CUDA runtime and driver versions as "13.0" strings ("none" without CUDA).
[[nodiscard]] std::string cuda_runtime_version();
[[nodiscard]] std::string cuda_driver_version();

}  // namespace zeroflow
