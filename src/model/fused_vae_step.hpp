#pragma once
/// @file fused_vae_step.hpp
/// Internal: the LightVAE's whole training step — forward, the seed's loss and backward for every
/// parameter — as two CUDA kernels (fused_vae_step.cu), and the forward pass alone for scoring
/// (fused_vae_inference.cu), behind an interface that names no CUDA types.
///
/// Why: the network is tiny (1→4→8→16 channels, ~1.6 k parameters at width 256) and a batch of
/// 1024 beats is ~0.35 GFLOP per step, a few microseconds of a data-centre GPU's arithmetic.
/// Through LibTorch the step is ~70 kernels (cuDNN convolutions with 1–16 channels, element-wise
/// ops, reductions), each moving whole activations through global memory, and so takes far longer
/// than its arithmetic even as a CUDA graph (docs/performance.md has the figures).
/// Here one thread block takes a few beats and keeps every activation of a beat in shared memory
/// from the input to the last weight gradient; only the input rows are read from and the
/// per-block gradient sums written to global memory.
///
/// Determinism: the grid depends only on the batch, the width and the device; within a block
/// every sum has a fixed owner and order (warp shuffles, no atomics), and a second kernel adds the
/// blocks' partial gradients in block order. Same inputs, same device: same bits.
#include <cstdint>

#include "light_vae_layout.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail::fused_vae {

/// Widths the kernels handle: powers of two from 16 to 1024 (the activations of one beat must
/// fit in a block's shared memory).
[[nodiscard]] bool supported_width(std::int64_t width);

/// How a batch is spread over the GPU; fixed for (batch, width, device).
struct launch_plan {
  int blocks = 0;          ///< thread blocks of the step kernel
  int rows_per_block = 0;  ///< consecutive batch rows each block trains on
  std::int64_t shared_bytes = 0;
  [[nodiscard]] std::int64_t partial_floats(std::int64_t width) const;  ///< blocks × parameters
};

/// The plan for `batch` rows on the current CUDA device (host-side queries only; call it before
/// a stream capture, not inside one). @throws invalid_argument for an unsupported width or batch < 1.
[[nodiscard]] launch_plan plan(std::int64_t batch, std::int64_t width);

struct step_args {
  const float* params[slot_count];  ///< device pointers to the contiguous parameters
  float* grads[slot_count];         ///< overwritten with this batch's gradients
  const float* data;                ///< all rows, row-major, `width` floats each
  std::int64_t width;
  const std::int64_t* rows;  ///< the batch: indices into data
  std::int64_t batch;
  const float* eps;      ///< batch × 2 standard normal draws (the reparameterisation)
  double* loss_total;    ///< += Σ over the batch of mse + kld (the seed's loss)
  float* partial_grads;  ///< plan.partial_floats(width) floats of scratch
  double* partial_loss;  ///< plan.blocks doubles of scratch
};

/// Queues the step (two kernels) on `stream`; graph-capturable. `p` must come from plan() with
/// the same batch and width.
void train_step(const step_args& args, const launch_plan& p, stream_view stream);

struct score_args {
  const float* params[slot_count];  ///< device pointers to the contiguous parameters
  const float* data;                ///< rows × width floats, row-major
  std::int64_t width;
  std::int64_t rows;
  float* score;  ///< rows: mean_t (x̂ − x)² with x̂ decoded from z = μ (no sampling)
  float* mu;     ///< rows × 2: the encoder's μ
};

/// Queues the scoring pass (one kernel: the forward pass above, one block per few beats) on
/// `stream`. @throws invalid_argument for an unsupported width.
void score(const score_args& args, stream_view stream);

struct loss_args {
  const float* params[slot_count];  ///< device pointers to the contiguous parameters
  const float* data;                ///< all rows, row-major, `width` floats each
  std::int64_t width;
  const std::int64_t* row_index;  ///< which rows of data: `rows` indices
  std::int64_t rows;
  const float* eps;  ///< rows × 2 standard normal draws (the reparameterisation)
  float* losses;     ///< rows: mse + the KL term, each row's share of the seed's loss
};

/// Queues the seed's loss of each indexed row, the training step's forward pass without its
/// backward (one kernel), on `stream`: the test rows' loss after training.
/// @throws invalid_argument for an unsupported width.
void row_losses(const loss_args& args, stream_view stream);

struct decode_args {
  const float* params[slot_count];  ///< device pointers to the contiguous parameters
  const float* latents;             ///< rows × 2 latent points z
  std::int64_t width;
  std::int64_t rows;
  float* decoded;  ///< rows × width: the decoder's output for each z
};

/// Queues the decoder alone (one kernel) on `stream`. @throws invalid_argument for an unsupported width.
void decode(const decode_args& args, stream_view stream);

}  // namespace zeroflow::model::detail::fused_vae
