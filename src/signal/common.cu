// Out-of-line pieces of detail_cuda/common.cuh.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "detail_cuda/common.cuh"

namespace zeroflow::signal::detail::gpu {

namespace {
constexpr std::size_t upload_chunk = 2048;  // bytes per launch; kernel parameters may hold 4 KiB

struct upload_payload {
  unsigned char bytes[upload_chunk];
};

// The payload travels in the launch's parameter block, so the host buffer may go at once.
__global__ void upload_kernel(unsigned char* dst, upload_payload payload, unsigned count) {
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) dst[i] = payload.bytes[i];
}
}  // namespace

void upload(void* device_dst, const void* host_src, std::size_t bytes, stream_view stream) {
  auto* dst = static_cast<unsigned char*>(device_dst);
  const auto* src = static_cast<const unsigned char*>(host_src);
  for (std::size_t done = 0; done < bytes; done += upload_chunk) {
    const std::size_t count = std::min(upload_chunk, bytes - done);
    upload_payload payload;
    std::memcpy(payload.bytes, src + done, count);
    upload_kernel<<<1, 256, 0, raw(stream)>>>(dst + done, payload, static_cast<unsigned>(count));
    ZF_SIGNAL_LAUNCH_CHECK();
  }
}

}  // namespace zeroflow::signal::detail::gpu
