#include "zeroflow/core/cuda.hpp"

#include <map>
#include <mutex>
#include <vector>

#include "cuda_architectures.hpp"
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

std::string cuda_architectures() { return ZEROFLOW_CUDA_ARCHITECTURES; }

bool cuda_code_runs_on(std::string_view architectures, int major, int minor) {
  const int capability = 10 * major + minor;
  while (!architectures.empty()) {
    const auto comma = architectures.find(',');
    std::string_view entry = architectures.substr(0, comma);
    architectures = comma == std::string_view::npos ? std::string_view{} : architectures.substr(comma + 1);
    bool machine_code = true, ptx = true;
    if (const auto dash = entry.find('-'); dash != std::string_view::npos) {
      machine_code = entry.substr(dash + 1) == "real";
      ptx = entry.substr(dash + 1) == "virtual";
      entry = entry.substr(0, dash);
    }
    int built = 0;
    for (char c : entry) {
      if (c < '0' || c > '9') {
        built = -1;
        break;
      }
      built = 10 * built + (c - '0');
    }
    if (built <= 0) continue;
    if (machine_code && built / 10 == major && built % 10 <= minor) return true;
    if (ptx && built <= capability) return true;
  }
  return false;
}

namespace {

/// Whether this build has code GPU `id` runs; false when it cannot be asked.
[[maybe_unused]] bool has_code_for(int id) {
#if ZEROFLOW_HAS_CUDA
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, id) != cudaSuccess) return false;
  return cuda_code_runs_on(ZEROFLOW_CUDA_ARCHITECTURES, prop.major, prop.minor);
#else
  (void)id;
  return false;
#endif
}

}  // namespace

bool cuda_available() {
  static const bool usable = cuda_device_count() > 0 && has_code_for(0);
  return usable;
}

void require_cuda(const char* what) {
  if (cuda_available()) return;
#if ZEROFLOW_HAS_CUDA
  if (cuda_device_count() > 0) {
    cudaDeviceProp prop{};
    (void)cudaGetDeviceProperties(&prop, 0);
    ZF_THROW(cuda_error, what, " needs a GPU this zeroflow has code for: GPU 0 (", prop.name,
             ") has compute capability ", prop.major, ".", prop.minor, ", and this build carries code for ",
             ZEROFLOW_CUDA_ARCHITECTURES,
             " only; rebuild with -DZEROFLOW_CUDA_ARCHITECTURES=native (or portable), or use `device`=cpu");
  }
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
    gpu_info info{id,
                  prop.name,
                  prop.major,
                  prop.minor,
                  cuda_code_runs_on(ZEROFLOW_CUDA_ARCHITECTURES, prop.major, prop.minor),
                  prop.totalGlobalMem,
                  0};
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
