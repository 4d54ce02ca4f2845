#include "zeroflow/core/cuda.hpp"

#include <map>
#include <mutex>
#include <vector>

#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime_api.h>

#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow {

int cuda_device_count() {
#if ZEROFLOW_HAS_CUDA
  // Asked once: the answer does not change during a process, and the call costs a driver init.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky "no driver" error
      return 0;
    }
    return n;
  }();
  return count;
#else
  return 0;
#endif
}

bool cuda_available() { return cuda_device_count() > 0; }

void require_cuda(const char* what) {
  if (cuda_available()) return;
#if ZEROFLOW_HAS_CUDA
  ZF_THROW(cuda_error, what, " needs a CUDA GPU, and none is visible");
#else
  ZF_THROW(cuda_error, what, " needs CUDA, and this build of zeroflow has none (configure with ZEROFLOW_CUDA=ON)");
#endif
}

void cuda_initialize(int device_id) {
  require_cuda("cuda_initialize");
#if ZEROFLOW_HAS_CUDA
  if (auto rc = cudaSetDevice(device_id); rc != cudaSuccess)
    ZF_THROW(cuda_error, "cudaSetDevice(", device_id, "): ", cudaGetErrorString(rc));
  if (auto rc = cudaFree(nullptr); rc != cudaSuccess) ZF_THROW(cuda_error, "cudaFree(0): ", cudaGetErrorString(rc));
#else
  (void)device_id;
#endif
}

void synchronize(stream_view stream) {
#if ZEROFLOW_HAS_CUDA
  if (!cuda_available()) return;
  if (auto rc = cudaStreamSynchronize(stream.value()); rc != cudaSuccess)
    ZF_THROW(cuda_error, "cudaStreamSynchronize: ", cudaGetErrorString(rc));
#else
  (void)stream;
#endif
}

void wait_for_stream(stream_view waiting, stream_view producer) {
  if (waiting == producer) return;
#if ZEROFLOW_HAS_CUDA
  // Destroying the event right after the wait is queued is allowed: CUDA frees it once it fires.
  cudaEvent_t ready = nullptr;
  if (auto rc = cudaEventCreateWithFlags(&ready, cudaEventDisableTiming); rc != cudaSuccess)
    ZF_THROW(cuda_error, "cudaEventCreateWithFlags: ", cudaGetErrorString(rc));
  cudaError_t rc = cudaEventRecord(ready, producer.value());
  if (rc == cudaSuccess) rc = cudaStreamWaitEvent(waiting.value(), ready, 0);
  cudaEventDestroy(ready);
  if (rc != cudaSuccess) ZF_THROW(cuda_error, "wait_for_stream: ", cudaGetErrorString(rc));
#endif
}

stream_view pooled_stream(int device_id) {
#if ZEROFLOW_HAS_CUDA
  require_cuda("pooled_stream");
  ZF_EXPECTS(device_id >= 0 && device_id < cuda_device_count(), "pooled_stream: no GPU ", device_id);
  // More streams than concurrent runs are ever useful; past that, runs share a stream (in order).
  constexpr std::size_t per_device = 32;
  struct device_streams {
    std::vector<cudaStream_t> made;
    std::size_t turns = 0;
  };
  static std::mutex creating;
  static std::map<int, device_streams> by_device;
  const std::lock_guard lock(creating);
  device_streams& streams = by_device[device_id];
  const std::size_t turn = streams.turns++ % per_device;
  if (turn < streams.made.size()) return stream_view{streams.made[turn]};
  const detail::cuda_device_guard on_device(device_id);
  cudaStream_t s = nullptr;
  ZF_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  streams.made.push_back(s);
  return stream_view{s};
#else
  (void)device_id;
  return stream_view{};
#endif
}

std::vector<gpu_info> cuda_devices() {
  std::vector<gpu_info> out;
#if ZEROFLOW_HAS_CUDA
  for (int id = 0; id < cuda_device_count(); ++id) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, id) != cudaSuccess) continue;
    gpu_info info{id, prop.name, prop.major, prop.minor, prop.totalGlobalMem, 0};
    int previous = 0;
    cudaGetDevice(&previous);
    if (cudaSetDevice(id) == cudaSuccess) {
      std::size_t free = 0, total = 0;
      if (cudaMemGetInfo(&free, &total) == cudaSuccess) info.free_bytes = free;
      cudaSetDevice(previous);
    }
    out.push_back(info);
  }
#endif
  return out;
}

namespace {
[[maybe_unused]] std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}
}  // namespace

std::string cuda_runtime_version() {
#if ZEROFLOW_HAS_CUDA
  int v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) return version_text(v);
#endif
  return "none";
}

std::string cuda_driver_version() {
#if ZEROFLOW_HAS_CUDA
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0) return version_text(v);
#endif
  return "none";
}

}  // namespace zeroflow
