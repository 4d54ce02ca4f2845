// The MLP autoencoder's training step in two kernels (see fused_mlp_step.hpp): one
// thread a row runs the forward pass and the deltas of its row; the block then sums each weight's
// gradient over its rows, and sum_partials (partial_sums.cuh) adds the blocks' partial gradients and losses.
#include <cuda_runtime.h>

#include <cstdint>

#include "fused_mlp_step.hpp"
#include "partial_sums.cuh"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::model::detail::fused_mlp {

namespace {

constexpr int max_rows_per_block = 128;  // one thread a row; fewer for wide rows (launch_plan)

/// Offsets of the eight parameters in the packed vector (mlp_forward::weights' order).
struct packing {
  int w1, b1, w2, b2, w3, b3, w4, b4, total;
  __host__ __device__ packing(int f, int h, int c)
      : w1{0},
        b1{h * f},
        w2{b1 + h},
        b2{w2 + c * h},
        w3{b2 + c},
        b3{w3 + h * c},
        w4{b3 + h},
        b4{w4 + f * h},
        total{b4 + f} {}
};

/// Row stride of an activation buffer of `width` values a row: odd, so that threads reading
/// their own rows at the same column, and threads reading one row's consecutive columns, hit
/// different banks.
__host__ __device__ constexpr int padded(int width) { return width | 1; }

constexpr int loss_slot_floats = 2 * (max_rows_per_block / 32);  // a double per warp, first (aligned)

/// How a model's step runs: `rows` rows (threads) a block, the parameters copied to shared memory
/// or read from global memory (through L1) when with the rows' activations they would not fit.
struct launch_plan {
  int rows = 0;
  bool shared_params = true;
  std::int64_t shared_bytes = 0;
};

std::int64_t shared_floats(int f, int h, int c, int rows, bool shared_params) {
  return loss_slot_floats + (shared_params ? packing(f, h, c).total : 0) +
         static_cast<std::int64_t>(rows) * (2 * padded(f) + 2 * padded(h) + padded(c));
}

/// The largest block (128, 64 or 32 rows), parameters in shared memory where they fit, whose
/// shared memory fits a block's on every GPU zeroflow runs on (96 KiB, Volta onwards): the seed's
/// widths take 128 rows and shared parameters; a 256-sample beat row 32 rows and global ones. A
/// function of the widths alone, so that the grid, and so the sums' order, depends on nothing else.
/// rows == 0 when nothing fits.
launch_plan plan_for(std::int64_t f, std::int64_t h, std::int64_t c) {
  constexpr std::int64_t budget_bytes = 96 * 1024;
  if (f < 1 || h < 1 || c < 1 || f > 4096 || h > 4096 || c > 4096) return {};
  for (const bool shared_params : {true, false})
    for (const int rows : {max_rows_per_block, 64, 32}) {
      const std::int64_t bytes =
          shared_floats(static_cast<int>(f), static_cast<int>(h), static_cast<int>(c), rows, shared_params) *
          static_cast<std::int64_t>(sizeof(float));
      if (bytes <= budget_bytes && (shared_params ? rows == max_rows_per_block : true))
        return {rows, shared_params, bytes};
    }
  return {};
}

__device__ __forceinline__ float sigmoid(float v) { return 1.0F / (1.0F + expf(-v)); }

/// gw[o·an + i] = Σ_r d[r][o]·a[r][i] and gb[o] = Σ_r d[r][o] over the block's rows (one a
/// thread), each sum by one thread in row order.
__device__ void block_outer(const float* d, int ds, int dn, const float* a, int as, int an, float* gw, float* gb) {
  const int rows = static_cast<int>(blockDim.x);
  for (int w = static_cast<int>(threadIdx.x); w < dn * an; w += rows) {
    const int o = w / an, i = w - o * an;
    float acc = 0.0F;
    for (int r = 0; r < rows; ++r) acc += d[r * ds + o] * a[r * as + i];
    gw[w] = acc;
  }
  for (int o = static_cast<int>(threadIdx.x); o < dn; o += rows) {
    float acc = 0.0F;
    for (int r = 0; r < rows; ++r) acc += d[r * ds + o];
    gb[o] = acc;
  }
}

/// One layer of one row: out[j] = relu(b[j] + Σ_k w[j·in + k]·v[k]) for j < n_out.
__device__ __forceinline__ void dense_relu(const float* w, const float* b, const float* v, int in, int n_out,
                                           float* out) {
  for (int j = 0; j < n_out; ++j) {
    float acc = b[j];
    for (int k = 0; k < in; ++k) acc += w[j * in + k] * v[k];
    out[j] = acc > 0.0F ? acc : 0.0F;
  }
}

/// delta[j] = (act[j] > 0) · Σ_i w[i·n + j]·upstream[i] for j < n, written over act (its ReLU
/// mask read first): the gradient of a ReLU layer's pre-activation from the next layer's.
__device__ __forceinline__ void relu_delta(const float* w, const float* upstream, int n_up, int n, float* act) {
  for (int j = 0; j < n; ++j) {
    float g = 0.0F;
    for (int i = 0; i < n_up; ++i) g += w[i * n + j] * upstream[i];
    act[j] = act[j] > 0.0F ? g : 0.0F;
  }
}

__global__ void __launch_bounds__(max_rows_per_block)
    step_kernel(mlp_forward::weights weights, bool shared_params, const float* __restrict__ x, std::int64_t n,
                float* __restrict__ partial_grads, double* __restrict__ partial_loss) {
  extern __shared__ float shared[];
  const int F = static_cast<int>(weights.features), H = static_cast<int>(weights.hidden),
            C = static_cast<int>(weights.code);
  const packing pk(F, H, C);
  const int pf = padded(F), ph = padded(H), pc = padded(C);
  const int rows = static_cast<int>(blockDim.x);
  double* loss_slots = reinterpret_cast<double*>(shared);  // a warp's squared errors
  float* prm = shared + loss_slot_floats;
  float* sx = prm + (shared_params ? pk.total : 0);  // rows × pf: the input
  float* s1 = sx + rows * pf;                        // rows × ph: h1, then its delta
  float* s2 = s1 + rows * ph;                        // rows × pc: h2 (the code), then its delta
  float* s3 = s2 + rows * pc;                        // rows × ph: h3, then its delta
  float* s4 = s3 + rows * ph;                        // rows × pf: the output layer's delta
  const int tid = static_cast<int>(threadIdx.x);
  const float* from[8] = {weights.w1, weights.b1, weights.w2, weights.b2,
                          weights.w3, weights.b3, weights.w4, weights.b4};
  const int at[9] = {pk.w1, pk.b1, pk.w2, pk.b2, pk.w3, pk.b3, pk.w4, pk.b4, pk.total};
  const float* p[8];  // each parameter: its shared copy, or the weights in global memory
  for (int s = 0; s < 8; ++s) {
    p[s] = shared_params ? prm + at[s] : from[s];
    if (shared_params)
      for (int i = tid; i < at[s + 1] - at[s]; i += rows) prm[at[s] + i] = from[s][i];
  }
  const float *W1 = p[0], *B1 = p[1], *W2 = p[2], *B2 = p[3], *W3 = p[4], *B3 = p[5], *W4 = p[6], *B4 = p[7];
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * rows + tid;
  const bool valid = row < n;
  float* xr = sx + tid * pf;
  for (int k = 0; k < F; ++k) xr[k] = valid ? x[row * F + k] : 0.0F;
  __syncthreads();  // the parameters

  // ---- forward and the loss's gradient, this thread's row (rows past n: all deltas zero)
  float* h1 = s1 + tid * ph;
  float* h2 = s2 + tid * pc;
  float* h3 = s3 + tid * ph;
  float* d4 = s4 + tid * pf;
  dense_relu(W1, B1, xr, F, H, h1);
  dense_relu(W2, B2, h1, H, C, h2);
  dense_relu(W3, B3, h2, C, H, h3);
  const float scale = 2.0F / static_cast<float>(static_cast<double>(n) * F);
  double sq = 0.0;
  for (int k = 0; k < F; ++k) {
    float acc = B4[k];
    for (int j = 0; j < H; ++j) acc += W4[k * H + j] * h3[j];
    const float out = sigmoid(acc);
    const float e = out - xr[k];
    if (valid) sq += static_cast<double>(e) * e;
    d4[k] = valid ? scale * e * out * (1.0F - out) : 0.0F;
  }
  for (int d = 16; d > 0; d /= 2) sq += __shfl_xor_sync(0xffffffffu, sq, d);
  if (tid % 32 == 0) loss_slots[tid / 32] = sq;
  __syncthreads();
  if (tid == 0) {
    double block_loss = 0.0;
    for (int w = 0; w < rows / 32; ++w) block_loss += loss_slots[w];
    partial_loss[blockIdx.x] = block_loss;
  }

  // ---- backward, layer by layer: a layer's weight gradients (block sums) before its input's
  // delta overwrites the activation they read.
  float* out = partial_grads + static_cast<std::int64_t>(blockIdx.x) * pk.total;
  block_outer(s4, pf, F, s3, ph, H, out + pk.w4, out + pk.b4);
  __syncthreads();
  relu_delta(W4, d4, F, H, h3);
  __syncthreads();
  block_outer(s3, ph, H, s2, pc, C, out + pk.w3, out + pk.b3);
  __syncthreads();
  relu_delta(W3, h3, H, C, h2);
  __syncthreads();
  block_outer(s2, pc, C, s1, ph, H, out + pk.w2, out + pk.b2);
  __syncthreads();
  relu_delta(W2, h2, C, H, h1);
  __syncthreads();
  block_outer(s1, ph, H, sx, pf, F, out + pk.w1, out + pk.b1);
}

/// The step's loss: the blocks' squared errors over every value.
struct mean_loss {
  double* loss;
  double values;
  __device__ void operator()(double sum) const { *loss = sum / values; }
};

__global__ void gather_kernel(const float* __restrict__ x, const std::int64_t* __restrict__ order, std::int64_t first,
                              std::int64_t rows, std::int64_t features, float* __restrict__ out) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows * features) return;
  const std::int64_t r = i / features;
  out[i] = x[order[first + r] * features + (i - r * features)];
}

int step_blocks(std::int64_t rows, const launch_plan& plan) {
  return static_cast<int>((rows + plan.rows - 1) / plan.rows);
}

}  // namespace

bool supported(std::int64_t features, std::int64_t hidden, std::int64_t code) {
  return plan_for(features, hidden, code).rows > 0;
}

std::int64_t parameter_count(std::int64_t features, std::int64_t hidden, std::int64_t code) {
  ZF_EXPECTS(supported(features, hidden, code), "fused MLP step: widths ", features, ", ", hidden, ", ", code,
             " are beyond the kernels' (32 rows' activations must fit 96 KiB of shared memory)");
  return packing(static_cast<int>(features), static_cast<int>(hidden), static_cast<int>(code)).total;
}

std::int64_t scratch_floats(std::int64_t rows, std::int64_t features, std::int64_t hidden, std::int64_t code) {
  ZF_EXPECTS(rows >= 1, "fused MLP step: rows must be >= 1, got ", rows);
  // The partial gradients, then the partial losses (doubles, two floats each, kept aligned).
  const std::int64_t blocks = step_blocks(rows, plan_for(features, hidden, code));
  const std::int64_t grads = blocks * parameter_count(features, hidden, code);
  return grads + (grads % 2) + 2 * blocks;
}

void gather_rows(const float* x, const std::int64_t* order, std::int64_t first, std::int64_t rows,
                 std::int64_t features, float* out, stream_view stream) {
  constexpr int threads = 256;
  const std::int64_t values = rows * features;
  gather_kernel<<<static_cast<unsigned>((values + threads - 1) / threads), threads, 0, stream.value()>>>(
      x, order, first, rows, features, out);
  ZF_CUDA_TRY(cudaGetLastError());
}

void train_step(const step_args& a, stream_view stream) {
  const std::int64_t P = parameter_count(a.w.features, a.w.hidden, a.w.code);
  const launch_plan plan = plan_for(a.w.features, a.w.hidden, a.w.code);
  ZF_EXPECTS(a.rows >= 1 && a.rows <= std::int64_t{plan.rows} * 0x7fffffff,
             "fused MLP step: rows must be >= 1 and fit a grid, got ", a.rows);
  const int f = static_cast<int>(a.w.features), h = static_cast<int>(a.w.hidden), c = static_cast<int>(a.w.code);
  const int blocks = step_blocks(a.rows, plan);
  const std::int64_t grads = static_cast<std::int64_t>(blocks) * P;
  double* partial_loss = reinterpret_cast<double*>(a.scratch + grads + (grads % 2));
  const auto bytes = static_cast<std::size_t>(plan.shared_bytes);
  ZF_CUDA_TRY(cudaFuncSetAttribute(step_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  step_kernel<<<blocks, plan.rows, bytes, stream.value()>>>(a.w, plan.shared_params, a.x, a.rows, a.scratch,
                                                            partial_loss);
  ZF_CUDA_TRY(cudaGetLastError());
  const packing pk(f, h, c);
  const gradient_slots<8> to{
      {a.grads.w1, a.grads.b1, a.grads.w2, a.grads.b2, a.grads.w3, a.grads.b3, a.grads.w4, a.grads.b4},
      {pk.w1, pk.b1, pk.w2, pk.b2, pk.w3, pk.b3, pk.w4, pk.b4, pk.total}};
  sum_partials<<<partial_sum_blocks(pk.total), partial_sum_threads, 0, stream.value()>>>(
      to, blocks, a.scratch, partial_loss, mean_loss{a.loss, static_cast<double>(a.rows) * static_cast<double>(f)});
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace zeroflow::model::detail::fused_mlp
