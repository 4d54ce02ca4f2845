#include "binary_convert_cuda.hpp"
#include "zeroflow/core/detail/cuda_launch.hpp"

namespace zeroflow::io::detail {

namespace {

__global__ void convert_samples_kernel(const unsigned char* raw, sample_layout layout, std::int64_t count, float* out) {
  const std::int64_t stride = std::int64_t{blockDim.x} * gridDim.x;
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = convert_sample(raw, layout, i);
}

}  // namespace

void convert_samples_cuda(const unsigned char* raw, const sample_layout& layout, std::int64_t count, float* out,
                          int device_id, cudaStream_t stream) {
  if (count == 0) return;
  constexpr int threads = 256;
  const int blocks = ::zeroflow::detail::launch::grid_for(count, threads, device_id, 8);
  convert_samples_kernel<<<blocks, threads, 0, stream>>>(raw, layout, count, out);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::io::detail
