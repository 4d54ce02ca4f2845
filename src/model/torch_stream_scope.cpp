/// @file torch_stream_scope.cpp
/// LibTorch's current stream for the calling thread set to a zeroflow stream (torch_stream_scope.hpp).
#include "zeroflow/model/torch_stream_scope.hpp"

#include <optional>

#include "zeroflow/config.hpp"

#if ZEROFLOW_HAS_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace zeroflow::model {

struct torch_stream_scope::impl {
#if ZEROFLOW_HAS_CUDA
  std::optional<c10::cuda::CUDAStreamGuard> guard;
#endif
};

torch_stream_scope::torch_stream_scope(device where, stream_view stream) : impl_{std::make_unique<impl>()} {
#if ZEROFLOW_HAS_CUDA
  if (where.type != device_type::cuda || stream.is_default()) return;
  const auto index = static_cast<c10::DeviceIndex>(where.id);
  impl_->guard.emplace(c10::cuda::getStreamFromExternal(stream.value(), index));
#else
  (void)where;
  (void)stream;
#endif
}

torch_stream_scope::~torch_stream_scope() = default;

}  // namespace zeroflow::model
