#pragma once
/// @file cpu_vae_isa.hpp
/// Internal: the LightVAE's CPU kernels (cpu_vae_kernels.hpp) as each instruction set's build of
/// cpu_vae_kernels.cpp declares them: one namespace per instruction set, the functions of
/// cpu_vae_kernels.hpp in each. cpu_vae_dispatch.cpp calls the best one the CPU runs.
#include "cpu_vae_kernels.hpp"

#ifndef ZEROFLOW_CPU_ISA
#define ZEROFLOW_CPU_ISA baseline  // the build of cpu_vae_kernels.cpp for any CPU of the target
#endif

#define ZEROFLOW_DECLARE_CPU_VAE_KERNELS(isa)                                                                        \
  namespace zeroflow::model::detail::cpu_vae::isa {                                                                  \
  double train_step(const step_args& args, int threads);                                                             \
  void score(const float* params, const float* data, std::int64_t width, std::int64_t rows, float* score, float* mu, \
             int threads);                                                                                           \
  void row_losses(const float* params, const float* data, std::int64_t width, const std::int64_t* row_index,         \
                  std::int64_t rows, const float* eps, float* losses, int threads);                                  \
  void decode(const float* params, const float* latents, std::int64_t width, std::int64_t rows, float* decoded,      \
              int threads);                                                                                          \
  }

ZEROFLOW_DECLARE_CPU_VAE_KERNELS(baseline)
ZEROFLOW_DECLARE_CPU_VAE_KERNELS(x86_64_v3)
