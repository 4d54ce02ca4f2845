// detail_cuda/side_stream.hpp.
#include <cuda_runtime.h>

#include <array>
#include <mutex>

#include "detail_cuda/common.cuh"
#include "detail_cuda/side_stream.hpp"
#include "zeroflow/core/cuda.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::signal::detail {

namespace {
constexpr int max_devices = 64;
}  // namespace

stream_view side_stream_after(device where, stream_view parent) {
  ZF_EXPECTS(where.id >= 0 && where.id < max_devices, "side_stream_after: device ", where.id, " out of range");
  ::zeroflow::detail::cuda_device_guard guard(where.id);
  static std::array<cudaStream_t, max_devices> streams{};
  static std::mutex creating;
  cudaStream_t side = nullptr;
  {
    const std::lock_guard lock(creating);
    auto& slot = streams[static_cast<std::size_t>(where.id)];
    if (slot == nullptr) {
      int least = 0, greatest = 0;
      ZF_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      ZF_CUDA_TRY(cudaStreamCreateWithPriority(&slot, cudaStreamNonBlocking, greatest));
    }
    side = slot;
  }
  wait_for_stream(stream_view{side}, parent);
  return stream_view{side};
}

}  // namespace zeroflow::signal::detail
