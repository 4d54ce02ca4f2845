#pragma once
/// @file mlp_forward.hpp
/// Internal: the MLP autoencoder's forward pass for scoring, F → hidden → code → hidden → F
/// (ReLU, ReLU, ReLU, sigmoid), in double with the float weights widened, and a row's score
/// mean((x̂ − x)²) rounded to float once at the end. One host loop (mlp_forward_host.cpp) and
/// one CUDA kernel (mlp_forward.cu) share the per-row arithmetic of mlp_forward_row.hpp and
/// give the same bits; a row's results depend on that row and the weights alone.
#include <cstdint>

#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail::mlp_forward {

/// The four Linear layers' parameters: contiguous float32, row-major [out, in] weights as
/// torch::nn::Linear keeps them, all on the host or all on one GPU. Not owned.
struct weights {
  const float* w1 = nullptr;  ///< hidden × features
  const float* b1 = nullptr;  ///< hidden
  const float* w2 = nullptr;  ///< code × hidden
  const float* b2 = nullptr;  ///< code
  const float* w3 = nullptr;  ///< hidden × code
  const float* b3 = nullptr;  ///< hidden
  const float* w4 = nullptr;  ///< features × hidden
  const float* b4 = nullptr;  ///< features
  std::int64_t features = 0;
  std::int64_t hidden = 0;
  std::int64_t code = 0;
};

/// The forward pass of rows [begin, end) of `x` (contiguous rows × features float32 on the
/// host). Writes score[row] when `score` is not null and recon[row·features + j] when `recon`
/// is not null (both indexed from row 0 of `x`).
void forward_rows_host(const weights& w, const float* x, std::int64_t begin, std::int64_t end, float* score,
                       float* recon);

/// Whether forward_rows_cuda can run a model of these widths (its activations of one row must
/// fit in a GPU block's shared memory). It and forward_rows_cuda exist in CUDA builds only.
[[nodiscard]] bool fits_cuda(std::int64_t hidden, std::int64_t code);

/// forward_rows_host of all `rows` rows on the GPU: `w`, `x`, `score` and `recon` are device
/// pointers; the work is queued on `stream`.
/// @throws invalid_argument when !fits_cuda(w.hidden, w.code); cuda_error when the launch fails.
void forward_rows_cuda(const weights& w, const float* x, std::int64_t rows, float* score, float* recon,
                       stream_view stream);

}  // namespace zeroflow::model::detail::mlp_forward
