/// @file cpu_vae_dispatch.cpp
/// cpu_vae_kernels.hpp's entry points: each calls the build of the kernels for the best instruction
/// set this CPU runs (cpu_vae_isa.hpp), decided once per process. Results differ between the
/// builds by rounding only (FMA contracts a multiply and an add into one rounding).
#include "cpu_vae_isa.hpp"

namespace zeroflow::model::detail::cpu_vae {

namespace {

bool runs_x86_64_v3() {
#if defined(ZEROFLOW_CPU_KERNELS_X86_64_V3)
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return supported;
#else
  return false;
#endif
}

}  // namespace

#if defined(ZEROFLOW_CPU_KERNELS_X86_64_V3)
#define ZEROFLOW_CPU_VAE_CALL(function, ...) \
  (runs_x86_64_v3() ? x86_64_v3::function(__VA_ARGS__) : baseline::function(__VA_ARGS__))
#else
#define ZEROFLOW_CPU_VAE_CALL(function, ...) baseline::function(__VA_ARGS__)
#endif

const char* instruction_set() { return runs_x86_64_v3() ? "x86-64-v3 (AVX2, FMA)" : "baseline"; }

double train_step(const step_args& args, int threads) { return ZEROFLOW_CPU_VAE_CALL(train_step, args, threads); }

void score(const float* params, const float* data, std::int64_t width, std::int64_t rows, float* score, float* mu,
           int threads) {
  ZEROFLOW_CPU_VAE_CALL(score, params, data, width, rows, score, mu, threads);
}

void row_losses(const float* params, const float* data, std::int64_t width, const std::int64_t* row_index,
                std::int64_t rows, const float* eps, float* losses, int threads) {
  ZEROFLOW_CPU_VAE_CALL(row_losses, params, data, width, row_index, rows, eps, losses, threads);
}

void decode(const float* params, const float* latents, std::int64_t width, std::int64_t rows, float* decoded,
            int threads) {
  ZEROFLOW_CPU_VAE_CALL(decode, params, latents, width, rows, decoded, threads);
}

}  // namespace zeroflow::model::detail::cpu_vae
