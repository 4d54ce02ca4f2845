#pragma once
/// @file cuda_kernels.hpp
/// Internal: fused CUDA kernels for the LightVAE's training step (src/model/cuda_kernels.cu),
/// behind a plain C++ interface that names neither torch nor CUDA types, so that the .cu file
/// needs no LibTorch headers. Pointers are device pointers to contiguous float32 (or float64
/// scratch) memory; every function only queues work on `stream`.
///
/// Why: each of these replaces a chain of LibTorch element-wise and reduction kernels (swish:
/// 3 forward and ~7 backward launches; the loss: ~13 forward and ~15 backward), and in a CUDA
/// graph of the step every launch is a node with a fixed cost however little it computes.
/// Reductions use fixed launch shapes and fixed summation orders: results are deterministic.
#include <cstdint>

#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail::cuda_kernels {

/// Entries of the float64 scratch buffer that swish_backward needs for n elements.
[[nodiscard]] std::int64_t swish_scratch_size(std::int64_t n);

/// y = x·σ(α·x) for n elements; `alpha` points to one float.
void swish_forward(const float* x, const float* alpha, float* y, std::int64_t n, stream_view stream);

/// The gradients of swish: gx = gy·(σ + α·x·σ(1−σ)) per element, and galpha[0] = Σ gy·x²·σ(1−σ),
/// with σ = σ(α·x). `scratch` holds swish_scratch_size(n) float64 values.
void swish_backward(const float* x, const float* alpha, const float* gy, float* gx, float* galpha, double* scratch,
                    std::int64_t n, stream_view stream);

/// Entries of the float64 scratch buffer that vae_loss_forward needs.
[[nodiscard]] std::int64_t vae_loss_scratch_size(std::int64_t rows, std::int64_t width, std::int64_t latent);

/// The seed's loss of a batch, written to loss[0]:
///   Σ_rows mean_t (recon − x)² − 0.1 Σ_rows mean_d (1 + logvar − mu² − exp(logvar)),
/// recon and x (rows × width), mu and logvar (rows × latent). Sums run in float64.
void vae_loss_forward(const float* recon, const float* x, const float* mu, const float* logvar, std::int64_t rows,
                      std::int64_t width, std::int64_t latent, float* loss, double* scratch, stream_view stream);

/// The loss's gradients for an upstream gradient grad_loss[0]: grad_recon = g·2(recon − x)/width,
/// grad_mu = g·0.2·mu/latent, grad_logvar = −g·0.1·(1 − exp(logvar))/latent. (The gradient for
/// x is −grad_recon; the caller forms it when it is needed.)
void vae_loss_backward(const float* grad_loss, const float* recon, const float* x, const float* mu, const float* logvar,
                       std::int64_t rows, std::int64_t width, std::int64_t latent, float* grad_recon, float* grad_mu,
                       float* grad_logvar, stream_view stream);

}  // namespace zeroflow::model::detail::cuda_kernels
