#pragma once
// Private to src/io (CUDA builds): the kernel side of binary_convert.hpp.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "binary_convert.hpp"

namespace zeroflow::io::detail {

/// out[i] = convert_sample(raw, layout, i) for i in [0, count), queued on `stream` of `device_id`.
/// @throws zeroflow::cuda_error when the launch fails
void convert_samples_cuda(const unsigned char* raw, const sample_layout& layout, std::int64_t count, float* out,
                          int device_id, cudaStream_t stream);

}  // namespace zeroflow::io::detail
