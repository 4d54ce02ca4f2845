// The CUDA forward pass of the MLP autoencoder (mlp_forward.hpp). One warp owns one row: lane
// j computes units j, j + 32, … of each layer with mlp_row::unit (the same sums in the same
// order as the host loop), the layer's outputs go through the warp's slice of shared memory
// to the next layer, and the squared errors of the row are summed in 32 strided partials
// folded by an xor butterfly, the order mlp_row::fold_lanes repeats on the host.
//
// Entry (forward_rows_cuda) → dispatch (the launch shape from the widths alone) → kernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "mlp_forward.hpp"
#include "mlp_forward_row.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::model::detail::mlp_forward {

namespace {

namespace row = mlp_row;

constexpr int warp_size = 32;
static_assert(row::lanes == warp_size, "the host's fold order is a warp's");
constexpr int max_warps_per_block = 8;
// Shared memory a block may use without opting in: the activations of one row must fit.
constexpr std::int64_t shared_limit = 48 * 1024;
constexpr std::int64_t max_blocks = std::int64_t{1} << 20;

std::int64_t row_shared_bytes(std::int64_t hidden, std::int64_t code) {
  return (2 * hidden + code) * static_cast<std::int64_t>(sizeof(double));
}

__global__ void forward_rows_kernel(weights w, const float* __restrict__ x, std::int64_t rows,
                                    float* __restrict__ score, float* __restrict__ recon) {
  extern __shared__ double activations[];
  const int lane = static_cast<int>(threadIdx.x) % warp_size;
  const int warp = static_cast<int>(threadIdx.x) / warp_size;
  const int warps = static_cast<int>(blockDim.x) / warp_size;
  const std::int64_t f = w.features;
  double* h1 = activations + warp * (2 * w.hidden + w.code);
  double* h2 = h1 + w.hidden;
  double* h3 = h2 + w.code;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * warps;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * warps + warp; r < rows; r += stride) {
    const float* xr = x + r * f;
    for (std::int64_t j = lane; j < w.hidden; j += warp_size)
      h1[j] = row::relu(row::unit(w.w1 + j * f, w.b1[j], xr, f));
    __syncwarp();
    for (std::int64_t j = lane; j < w.code; j += warp_size)
      h2[j] = row::relu(row::unit(w.w2 + j * w.hidden, w.b2[j], h1, w.hidden));
    __syncwarp();
    for (std::int64_t j = lane; j < w.hidden; j += warp_size)
      h3[j] = row::relu(row::unit(w.w3 + j * w.code, w.b3[j], h2, w.code));
    __syncwarp();
    double partial = 0.0;
    for (std::int64_t o = lane; o < f; o += warp_size) {
      const double y = row::sigmoid(row::unit(w.w4 + o * w.hidden, w.b4[o], h3, w.hidden));
      if (recon != nullptr) recon[r * f + o] = __double2float_rn(y);
      const double d = row::sub(y, static_cast<double>(xr[o]));
      partial = row::add(partial, row::mul(d, d));
    }
    for (int offset = warp_size / 2; offset >= 1; offset /= 2)
      partial = row::add(partial, __shfl_xor_sync(0xffffffffU, partial, offset));
    if (score != nullptr && lane == 0) score[r] = __double2float_rn(row::div(partial, static_cast<double>(f)));
    __syncwarp();  // the next row overwrites h1 … h3
  }
}

}  // namespace

bool fits_cuda(std::int64_t hidden, std::int64_t code) { return row_shared_bytes(hidden, code) <= shared_limit; }

void forward_rows_cuda(const weights& w, const float* x, std::int64_t rows, float* score, float* recon,
                       stream_view stream) {
  ZF_EXPECTS(fits_cuda(w.hidden, w.code), "the autoencoder's layers are too wide to score on a GPU (hidden ", w.hidden,
             ", code ", w.code, "; 2·hidden + code may be at most ", shared_limit / sizeof(double),
             "): score on the CPU");
  if (rows <= 0) return;
  const std::int64_t per_warp = row_shared_bytes(w.hidden, w.code);
  const int warps = static_cast<int>(std::clamp<std::int64_t>(shared_limit / per_warp, 1, max_warps_per_block));
  const std::int64_t blocks = std::clamp<std::int64_t>((rows + warps - 1) / warps, 1, max_blocks);
  forward_rows_kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(warps * warp_size),
                        static_cast<std::size_t>(warps * per_warp), stream.value()>>>(w, x, rows, score, recon);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::model::detail::mlp_forward
