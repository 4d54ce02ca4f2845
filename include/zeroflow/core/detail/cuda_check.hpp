#pragma once
/// @file cuda_check.hpp
/// Macros that turn a failing CUDA runtime call into a zeroflow exception naming the call,
/// the error and file:line, and a scoped current-device switch. Only for translation units of
/// a CUDA build (they include the CUDA runtime header); guard their use with
/// `#if ZEROFLOW_HAS_CUDA`.
#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime_api.h>

#include <cstdio>

#include "zeroflow/core/error.hpp"

namespace zeroflow::detail {

/// Throws `Error` for a failed `call`. The (non-sticky) last-error state is cleared first so
/// that the next, unrelated cudaGetLastError() does not report this failure a second time.
template <class Error>
[[noreturn]] inline void throw_cuda(cudaError_t rc, const char* call, const char* file, int line) {
  (void)cudaGetLastError();
  throw_at<Error>(file, line, call, " failed: ", cudaGetErrorName(rc), " (", cudaGetErrorString(rc), ")");
}

/// Reports a failed `call` on stderr; for destructors and release callbacks, which must not throw.
inline void report_cuda(cudaError_t rc, const char* call, const char* file, int line) {
  (void)cudaGetLastError();
  std::fprintf(stderr, "zeroflow: %s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorName(rc),
               cudaGetErrorString(rc));
}

/// Makes `id` the calling thread's current device for the guard's lifetime and restores the
/// previous one afterwards (CUDA calls on another device's memory or pool need this).
class cuda_device_guard {
 public:
  explicit cuda_device_guard(int id) {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      (void)cudaGetLastError();
      previous_ = id;
    }
    if (previous_ == id) return;
    if (const cudaError_t rc = cudaSetDevice(id); rc != cudaSuccess)
      throw_cuda<cuda_error>(rc, "cudaSetDevice", __FILE__, __LINE__);
  }
  cuda_device_guard(const cuda_device_guard&) = delete;
  cuda_device_guard& operator=(const cuda_device_guard&) = delete;
  ~cuda_device_guard() {
    int current = previous_;
    if (cudaGetDevice(&current) == cudaSuccess && current != previous_) (void)cudaSetDevice(previous_);
  }

 private:
  int previous_ = 0;
};

}  // namespace zeroflow::detail

/// Runs a CUDA runtime call; throws zeroflow::cuda_error with the call text, the error's name
/// and file:line when it does not return cudaSuccess.
#define ZF_CUDA_TRY(call)                                                                             \
  do {                                                                                                \
    if (const cudaError_t zf_cuda_rc_ = (call); zf_cuda_rc_ != cudaSuccess)                           \
      ::zeroflow::detail::throw_cuda<::zeroflow::cuda_error>(zf_cuda_rc_, #call, __FILE__, __LINE__); \
  } while (0)

/// The same for allocation calls: cudaErrorMemoryAllocation becomes zeroflow::out_of_memory
/// (what a resource promises), anything else zeroflow::cuda_error.
#define ZF_CUDA_TRY_ALLOC(call)                                                                          \
  do {                                                                                                   \
    if (const cudaError_t zf_cuda_rc_ = (call); zf_cuda_rc_ == cudaErrorMemoryAllocation)                \
      ::zeroflow::detail::throw_cuda<::zeroflow::out_of_memory>(zf_cuda_rc_, #call, __FILE__, __LINE__); \
    else if (zf_cuda_rc_ != cudaSuccess)                                                                 \
      ::zeroflow::detail::throw_cuda<::zeroflow::cuda_error>(zf_cuda_rc_, #call, __FILE__, __LINE__);    \
  } while (0)

/// Runs a CUDA runtime call where throwing is not allowed (destructors); a failure is printed
/// on stderr, not hidden.
#define ZF_CUDA_REPORT(call)                                                   \
  do {                                                                         \
    if (const cudaError_t zf_cuda_rc_ = (call); zf_cuda_rc_ != cudaSuccess)    \
      ::zeroflow::detail::report_cuda(zf_cuda_rc_, #call, __FILE__, __LINE__); \
  } while (0)

#endif  // ZEROFLOW_HAS_CUDA
