/// @file page_locked.cpp
/// Giving back page-locked host memory (page_locked.hpp).
#include "page_locked.hpp"

#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include <cuda_runtime_api.h>

#include "zeroflow/core/detail/cuda_check.hpp"

namespace zeroflow::memory {

void free_page_locked(void* p, stream_view stream) {
  if (cudaStreamSynchronize(stream.value()) != cudaSuccess) {
    (void)cudaGetLastError();
    ZF_CUDA_TRY(cudaDeviceSynchronize());
  }
  ZF_CUDA_TRY(cudaFreeHost(p));
}

}  // namespace zeroflow::memory
#endif
