// Inference with the fused LightVAE kernels (see fused_vae_step.hpp): scoring, per-beat losses
// and decoding, each one kernel of forward_beat's pieces (fused_vae_forward.cuh), no gradients.
#include <cuda_runtime.h>

#include <cstdint>

#include "fused_vae_device.cuh"
#include "fused_vae_forward.cuh"
#include "fused_vae_step.hpp"
#include "zeroflow/core/detail/cuda_check.hpp"
#include "zeroflow/core/error.hpp"

namespace zeroflow::model::detail::fused_vae {

namespace {

struct parameters {
  const float* params[slot_count];
};

/// What one inference kernel computes for each of its rows.
enum class pass {
  score,   ///< x = data[b]; z = mu; score[b] = mean_t (x̂ − x)², mu[b]
  losses,  ///< x = data[rows[b]]; z = mu + eps[b]·σ; losses[b] = mse + the KL term (the seed's loss)
  decode,  ///< z = latents[b]; decoded[b] = x̂
};

struct inference_io {
  const float* data;         ///< score, losses: the rows
  const std::int64_t* rows;  ///< losses: indices into data
  const float* eps;          ///< losses: rows × 2 noise
  const float* latents;      ///< decode: rows × 2
  float* score;              ///< score: rows
  float* mu;                 ///< score: rows × 2
  float* losses;             ///< losses: rows
  float* decoded;            ///< decode: rows × width
};

std::int64_t inference_shared_floats(std::int64_t width) {
  return transposed::floats + (beat_floats + 6) * width + packing(static_cast<int>(width)).total() + small_floats;
}

template <pass mode>
__global__ void __launch_bounds__(threads)
    inference_kernel(parameters ptr, inference_io io, int L, std::int64_t n_rows, int rows_per_block) {
  extern __shared__ float shared[];
  const packing pk(L);
  const int P = pk.total();
  float* kw = shared;                        // transposed::floats
  float* prm = kw + transposed::floats;      // P
  float* heads = prm + P + beat_floats * L;  // 2·L (4·L/8 used) after the activations
  float* swished = heads + 2 * L;            // 4·L
  float* lat = swished + 4 * L;
  float* slots = lat + 32;
  const beat_buffers beat = carve_beat(prm + P, L, heads, swished, lat);
  float* x = beat.x;

  const int tid = static_cast<int>(threadIdx.x);
  for (int s = 0; s < slot_count; ++s)
    for (int i = tid; i < pk.offset[s + 1] - pk.offset[s]; i += threads) prm[pk.offset[s] + i] = ptr.params[s][i];
  transpose_weights(ptr.params, kw);
  __syncthreads();
  const float al = prm[pk.offset[alpha]];
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block;
  const std::int64_t last = first + rows_per_block < n_rows ? first + rows_per_block : n_rows;
  for (std::int64_t b = first; b < last; ++b) {
    if constexpr (mode == pass::decode) {
      if (tid < 2) lat[4 + tid] = io.latents[2 * b + tid];
      __syncthreads();
    } else {
      const std::int64_t row = mode == pass::losses ? io.rows[b] : b;
      const float* src = io.data + row * static_cast<std::int64_t>(L);
      for (int t = tid; t < L; t += threads) x[t] = src[t];
      if (mode == pass::losses && tid < 2) lat[6 + tid] = io.eps[2 * b + tid];
      __syncthreads();
      encode_beat(beat, L, prm, kw, pk, al);
      choose_latent(lat, mode == pass::losses);
    }
    decode_beat(beat, L, prm, kw, pk, al);
    if constexpr (mode == pass::decode) {
      float* out = io.decoded + b * static_cast<std::int64_t>(L);
      for (int t = tid; t < L; t += threads) out[t] = beat.a5[t];
    } else {
      const float mse = reconstruction_mse(beat, L, nullptr, slots);
      if (tid == 0) {
        if constexpr (mode == pass::score) {
          io.score[b] = mse;
          io.mu[2 * b] = lat[0];
          io.mu[2 * b + 1] = lat[1];
        } else {
          io.losses[b] = mse + kl_term(lat);
        }
      }
    }
    __syncthreads();  // x and lat are rewritten by the next beat
  }
}

/// One block per few rows, as many blocks as fit on the GPU at once (each keeps every activation
/// of its beat in shared memory).
template <pass mode>
void launch_inference(const float* const (&params)[slot_count], const inference_io& io, std::int64_t width,
                      std::int64_t rows, stream_view stream, const char* what) {
  ZF_EXPECTS(supported_width(width), what, ": width must be a power of two in [16, 1024], got ", width);
  if (rows <= 0) return;
  const auto shared_bytes = static_cast<std::size_t>(inference_shared_floats(width)) * sizeof(float);
  int device = 0, sms = 0, per_sm = 0;
  ZF_CUDA_TRY(cudaGetDevice(&device));
  ZF_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  ZF_CUDA_TRY(cudaFuncSetAttribute(inference_kernel<mode>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(shared_bytes)));
  ZF_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, inference_kernel<mode>, threads, shared_bytes));
  ZF_EXPECTS(per_sm >= 1, what, ": width ", width, " needs more shared memory than this GPU has");
  const std::int64_t resident = static_cast<std::int64_t>(sms) * per_sm;
  const auto rows_per_block = static_cast<int>((rows + resident - 1) / resident);
  const auto blocks = static_cast<int>((rows + rows_per_block - 1) / rows_per_block);
  parameters ptr{};
  for (int s = 0; s < slot_count; ++s) ptr.params[s] = params[s];
  inference_kernel<mode>
      <<<blocks, threads, shared_bytes, stream.value()>>>(ptr, io, static_cast<int>(width), rows, rows_per_block);
  ZF_CUDA_TRY(cudaGetLastError());
}

}  // namespace

void score(const score_args& a, stream_view stream) {
  inference_io io{};
  io.data = a.data;
  io.score = a.score;
  io.mu = a.mu;
  launch_inference<pass::score>(a.params, io, a.width, a.rows, stream, "fused VAE scoring");
}

void row_losses(const loss_args& a, stream_view stream) {
  inference_io io{};
  io.data = a.data;
  io.rows = a.row_index;
  io.eps = a.eps;
  io.losses = a.losses;
  launch_inference<pass::losses>(a.params, io, a.width, a.rows, stream, "fused VAE losses");
}

void decode(const decode_args& a, stream_view stream) {
  inference_io io{};
  io.latents = a.latents;
  io.decoded = a.decoded;
  launch_inference<pass::decode>(a.params, io, a.width, a.rows, stream, "fused VAE decoding");
}

}  // namespace zeroflow::model::detail::fused_vae
