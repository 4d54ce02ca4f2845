#pragma once
/// @file fused_mlp_step.hpp
/// Internal: one training step of the MLP autoencoder (mlp_autoencoder.hpp) on a batch of rows —
/// forward, the mean squared error and backward for every weight — as two CUDA kernels of our own,
/// behind an interface that names no CUDA types.
///
/// Why: the seed-004 network (1 → 32 → 32 → 32 → 1) on ~26 k rows is a few hundred MFLOP a step.
/// Through LibTorch a step is a few dozen kernels, and the first one of a process pays cuBLAS's
/// start-up and the loading of every kernel it uses, which together cost more than the 100
/// epochs themselves. Here a thread block takes 128 rows, one thread a row, keeps the rows'
/// activations in shared memory from the input to the last weight gradient and writes one partial
/// gradient per block; a second kernel adds the blocks' partials in block order and the loss.
///
/// Determinism: the grid depends only on the row count; every sum has a fixed owner and order
/// (no atomics). Same inputs, same device: same bits.
#include <cstdint>

#include "mlp_forward.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail::fused_mlp {

/// Whether the kernels handle a model of these widths: a block's rows (128, or 64 or 32 for wide
/// rows) must fit their activations, 2·features + 2·hidden + code floats a row, in 96 KiB of shared
/// memory (the parameters too when they fit beside them, else they are read from global memory):
/// the seed's widths, and a 256-sample beat row with 64 hidden and code units.
[[nodiscard]] bool supported(std::int64_t features, std::int64_t hidden, std::int64_t code);

/// The parameter count of the widths (the gradient's length).
[[nodiscard]] std::int64_t parameter_count(std::int64_t features, std::int64_t hidden, std::int64_t code);

/// Floats of scratch train_step needs for `rows` rows (the blocks' partial gradients and losses).
[[nodiscard]] std::int64_t scratch_floats(std::int64_t rows, std::int64_t features, std::int64_t hidden,
                                          std::int64_t code);

/// Where the gradients go: the layout of mlp_forward::weights, device pointers.
struct gradients {
  float* w1 = nullptr;
  float* b1 = nullptr;
  float* w2 = nullptr;
  float* b2 = nullptr;
  float* w3 = nullptr;
  float* b3 = nullptr;
  float* w4 = nullptr;
  float* b4 = nullptr;
};

struct step_args {
  mlp_forward::weights w;  ///< device pointers to the current weights
  gradients grads;         ///< overwritten with the step's gradients of the mean squared error
  const float* x;          ///< rows × features, contiguous, on the device
  std::int64_t rows;
  double* loss;    ///< overwritten with the mean squared error over every value (before the step)
  float* scratch;  ///< scratch_floats(rows, ...) floats on the device
};

/// Queues out[r·features + c] = x[order[first + r]·features + c] for the `rows` rows of one batch
/// on `stream` (device pointers): the batch's rows in the epoch's order, contiguous for the step.
/// @throws cuda_error when the launch fails.
void gather_rows(const float* x, const std::int64_t* order, std::int64_t first, std::int64_t rows,
                 std::int64_t features, float* out, stream_view stream);

/// Queues the step's two kernels on `stream`.
/// @throws invalid_argument for unsupported widths or rows < 1; cuda_error when a launch fails.
void train_step(const step_args& args, stream_view stream);

}  // namespace zeroflow::model::detail::fused_mlp
