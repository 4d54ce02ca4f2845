#pragma once
// Private to src/model's LibTorch code: for a backend call's lifetime, the weights' GPU is
// LibTorch's current device and the call's stream its current stream (nothing for the CPU or the
// default stream). Pulls in LibTorch.
#include <optional>

#include "torch_backend.hpp"
#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace zeroflow::model::detail {

class torch_stream_guard {
 public:
  explicit torch_stream_guard(const packed_vae& weights) : torch_stream_guard(weights.where, weights.stream) {}
  torch_stream_guard(device where, stream_view stream) {
#if ZEROFLOW_HAS_CUDA
    if (where.type != device_type::cuda) return;
    const auto index = static_cast<c10::DeviceIndex>(where.id);
    device_.emplace(index);
    if (!stream.is_default()) stream_.emplace(c10::cuda::getStreamFromExternal(stream.value(), index));
#else
    (void)where;
    (void)stream;
#endif
  }

 private:
#if ZEROFLOW_HAS_CUDA
  std::optional<c10::cuda::CUDAGuard> device_;
  std::optional<c10::cuda::CUDAStreamGuard> stream_;
#endif
};

}  // namespace zeroflow::model::detail
