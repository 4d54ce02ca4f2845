// Fused CUDA kernels of the LightVAE's training step (see cuda_kernels.hpp): the shared-α swish
// and the seed's loss, forward and backward.
//
// Element-wise parts are grid-stride loops. Reductions (α's gradient, the loss) write one float64
// partial per block, then a single block adds the partials in index order: the launch shape
// depends only on the sizes, so the result does not change from run to run.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "cuda_kernels.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/detail/cuda_launch.hpp"

namespace zeroflow::model::detail::cuda_kernels {

namespace {

constexpr int threads = 256;
// Blocks of a reduction: enough to fill a large GPU several times over, few enough that one block
// adds the partials quickly.
constexpr std::int64_t max_reduction_blocks = 528;
constexpr std::int64_t max_elementwise_blocks = 8192;

std::int64_t reduction_blocks(std::int64_t n) {
  return std::clamp<std::int64_t>((n + threads * 8 - 1) / (threads * 8), 1, max_reduction_blocks);
}

int elementwise_blocks(std::int64_t n) {
  return static_cast<int>(std::clamp<std::int64_t>((n + threads - 1) / threads, 1, max_elementwise_blocks));
}

using zeroflow::detail::launch::raw;

__device__ __forceinline__ std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ std::int64_t grid_stride() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

// σ(v) as LibTorch computes it: 1 / (1 + exp(−v)) with the accurate expf.
__device__ __forceinline__ float sigmoid(float v) { return 1.0F / (1.0F + expf(-v)); }

__global__ void swish_forward_kernel(const float* __restrict__ x, const float* __restrict__ alpha,
                                     float* __restrict__ y, std::int64_t n) {
  const float a = *alpha;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const float v = x[i];
    y[i] = v * sigmoid(a * v);
  }
}

__global__ void swish_backward_kernel(const float* __restrict__ x, const float* __restrict__ alpha,
                                      const float* __restrict__ gy, float* __restrict__ gx,
                                      double* __restrict__ partial, std::int64_t n) {
  using reduce = cub::BlockReduce<double, threads>;
  __shared__ typename reduce::TempStorage temp;
  const float a = *alpha;
  double acc = 0.0;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const float v = x[i];
    const float g = gy[i];
    const float s = sigmoid(a * v);
    const float ds = s * (1.0F - s);
    gx[i] = g * (s + a * v * ds);
    acc += static_cast<double>(g * v * v * ds);
  }
  const double block_sum = reduce(temp).Sum(acc);
  if (threadIdx.x == 0) partial[blockIdx.x] = block_sum;
}

// out[0] = scale_a·Σ a[0..count) + scale_b·Σ b[0..count) (b may be null), summed by one block.
__global__ void finish_sums_kernel(const double* __restrict__ a, const double* __restrict__ b, std::int64_t count,
                                   double scale_a, double scale_b, float* __restrict__ out) {
  using reduce = cub::BlockReduce<double, threads>;
  __shared__ typename reduce::TempStorage temp;
  double acc = 0.0;
  for (std::int64_t i = threadIdx.x; i < count; i += threads) {
    acc += scale_a * a[i];
    if (b != nullptr) acc += scale_b * b[i];
  }
  const double total = reduce(temp).Sum(acc);
  if (threadIdx.x == 0) out[0] = static_cast<float>(total);
}

__global__ void vae_loss_partials_kernel(const float* __restrict__ recon, const float* __restrict__ x,
                                         const float* __restrict__ mu, const float* __restrict__ logvar,
                                         std::int64_t n_recon, std::int64_t n_latent, double* __restrict__ squares,
                                         double* __restrict__ kld_terms) {
  using reduce = cub::BlockReduce<double, threads>;
  __shared__ typename reduce::TempStorage temp;
  double sq = 0.0;
  for (std::int64_t i = first_index(); i < n_recon; i += grid_stride()) {
    const float d = recon[i] - x[i];
    sq += static_cast<double>(d * d);
  }
  double kl = 0.0;
  for (std::int64_t i = first_index(); i < n_latent; i += grid_stride()) {
    const float m = mu[i];
    const float l = logvar[i];
    kl += static_cast<double>(1.0F + l - m * m - expf(l));
  }
  const double sq_sum = reduce(temp).Sum(sq);
  __syncthreads();  // the temporary storage is reused
  const double kl_sum = reduce(temp).Sum(kl);
  if (threadIdx.x == 0) {
    squares[blockIdx.x] = sq_sum;
    kld_terms[blockIdx.x] = kl_sum;
  }
}

__global__ void vae_loss_backward_kernel(const float* __restrict__ grad_loss, const float* __restrict__ recon,
                                         const float* __restrict__ x, const float* __restrict__ mu,
                                         const float* __restrict__ logvar, std::int64_t n_recon, std::int64_t n_latent,
                                         float recon_scale, float latent_scale, float* __restrict__ grad_recon,
                                         float* __restrict__ grad_mu, float* __restrict__ grad_logvar) {
  const float g = *grad_loss;
  const float cr = g * recon_scale;   // 2/width
  const float ck = g * latent_scale;  // −0.1/latent
  for (std::int64_t i = first_index(); i < n_recon; i += grid_stride()) grad_recon[i] = cr * (recon[i] - x[i]);
  for (std::int64_t i = first_index(); i < n_latent; i += grid_stride()) {
    grad_mu[i] = ck * (-2.0F * mu[i]);
    grad_logvar[i] = ck * (1.0F - expf(logvar[i]));
  }
}

}  // namespace

std::int64_t swish_scratch_size(std::int64_t n) { return reduction_blocks(n); }

void swish_forward(const float* x, const float* alpha, float* y, std::int64_t n, stream_view stream) {
  if (n == 0) return;
  swish_forward_kernel<<<elementwise_blocks(n), threads, 0, raw(stream)>>>(x, alpha, y, n);
  ZF_CUDA_TRY(cudaGetLastError());
}

void swish_backward(const float* x, const float* alpha, const float* gy, float* gx, float* galpha, double* scratch,
                    std::int64_t n, stream_view stream) {
  const std::int64_t blocks = reduction_blocks(n);
  swish_backward_kernel<<<static_cast<int>(blocks), threads, 0, raw(stream)>>>(x, alpha, gy, gx, scratch, n);
  ZF_CUDA_TRY(cudaGetLastError());
  finish_sums_kernel<<<1, threads, 0, raw(stream)>>>(scratch, nullptr, blocks, 1.0, 0.0, galpha);
  ZF_CUDA_TRY(cudaGetLastError());
}

std::int64_t vae_loss_scratch_size(std::int64_t rows, std::int64_t width, std::int64_t) {
  return 2 * reduction_blocks(rows * width);
}

void vae_loss_forward(const float* recon, const float* x, const float* mu, const float* logvar, std::int64_t rows,
                      std::int64_t width, std::int64_t latent, float* loss, double* scratch, stream_view stream) {
  const std::int64_t blocks = reduction_blocks(rows * width);
  double* squares = scratch;
  double* kld_terms = scratch + blocks;
  vae_loss_partials_kernel<<<static_cast<int>(blocks), threads, 0, raw(stream)>>>(recon, x, mu, logvar, rows * width,
                                                                                  rows * latent, squares, kld_terms);
  ZF_CUDA_TRY(cudaGetLastError());
  finish_sums_kernel<<<1, threads, 0, raw(stream)>>>(squares, kld_terms, blocks, 1.0 / static_cast<double>(width),
                                                     -0.1 / static_cast<double>(latent), loss);
  ZF_CUDA_TRY(cudaGetLastError());
}

void vae_loss_backward(const float* grad_loss, const float* recon, const float* x, const float* mu, const float* logvar,
                       std::int64_t rows, std::int64_t width, std::int64_t latent, float* grad_recon, float* grad_mu,
                       float* grad_logvar, stream_view stream) {
  const std::int64_t n = std::max(rows * width, rows * latent);
  if (n == 0) return;
  vae_loss_backward_kernel<<<elementwise_blocks(n), threads, 0, raw(stream)>>>(
      grad_loss, recon, x, mu, logvar, rows * width, rows * latent, 2.0F / static_cast<float>(width),
      -0.1F / static_cast<float>(latent), grad_recon, grad_mu, grad_logvar);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::model::detail::cuda_kernels
