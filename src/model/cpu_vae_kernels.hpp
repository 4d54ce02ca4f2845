#pragma once
/// @file cpu_vae_kernels.hpp
/// Internal: the LightVAE on the CPU with zeroflow's own kernels — the forward pass,
/// the seed's loss and the backward pass of the fused GPU kernels (fused_vae_step.hpp, whose
/// header comment gives the layers), one beat at a time in loops over time that the compiler
/// vectorises, the beats of a batch spread over threads (OpenMP).
///
/// Why per beat: a beat's activations (31·W floats, 32 KB at W = 256) stay in a core's L1/L2
/// cache from the input to the last weight gradient, as they stay in a GPU block's shared memory;
/// layer-at-a-time code (LibTorch's eager ops) streams every activation of the batch through
/// memory once per op.
///
/// Determinism: a batch is cut into chunks of chunk_rows beats, whatever the thread count; each
/// chunk sums its beats' gradients in beat order and the chunks are added in chunk order (in
/// double), so a step gives the same bits with 1 thread or 16.
#include <cstdint>

namespace zeroflow::model::detail::cpu_vae {

/// Beats of a batch one thread takes at a time, and the unit of the gradients' summation order.
inline constexpr std::int64_t chunk_rows = 16;

/// One training step's forward and backward pass (no optimiser).
struct step_args {
  const float* params = nullptr;       ///< packed parameters (light_vae_slot_offsets(width))
  float* grads = nullptr;              ///< packed like params: overwritten with the batch's gradients
  const float* data = nullptr;         ///< all rows, row-major, `width` floats each
  std::int64_t width = 0;              ///< W: a power of two, at least 16
  const std::int64_t* rows = nullptr;  ///< the batch: indices into data
  std::int64_t batch = 0;
  const float* eps = nullptr;  ///< batch × 2 standard normal draws (the reparameterisation)
};

/// The gradients of Σ over the batch of the seed's loss (mse + KL term of each beat) into
/// args.grads; returns that sum. @param threads at least 1.
double train_step(const step_args& args, int threads);

/// The anomaly score mean_t (x̂ − x)² of each row, x̂ decoded from z = μ, and μ (rows × 2).
void score(const float* params, const float* data, std::int64_t width, std::int64_t rows, float* score, float* mu,
           int threads);

/// Each indexed row's share of the seed's loss (mse + KL term) with the noise `eps` (rows × 2):
/// the training step's forward pass without its backward (a test loss).
void row_losses(const float* params, const float* data, std::int64_t width, const std::int64_t* row_index,
                std::int64_t rows, const float* eps, float* losses, int threads);

/// Which build of the kernels this CPU runs: "baseline", or "x86-64-v3 (AVX2, FMA)".
[[nodiscard]] const char* instruction_set();

/// The decoder alone: rows latent points (rows × 2) → rows × width reconstructions.
void decode(const float* params, const float* latents, std::int64_t width, std::int64_t rows, float* decoded,
            int threads);

}  // namespace zeroflow::model::detail::cpu_vae
