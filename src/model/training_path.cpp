/// @file training_path.cpp
/// choose_training_path and choose_mlp_training_path: whether zeroflow's own kernels take a
/// LightVAE or an MLP autoencoder on its device (see training_path.hpp).
#include "zeroflow/model/training_path.hpp"

#include "light_vae_init.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"

#if ZEROFLOW_HAS_CUDA
#include "fused_mlp_step.hpp"
#include "fused_vae_step.hpp"
#endif

namespace zeroflow::model {

namespace {

constexpr bool cuda_build = ZEROFLOW_HAS_CUDA != 0;

bool fused_width(std::int64_t width) {
#if ZEROFLOW_HAS_CUDA
  return detail::fused_vae::supported_width(width);
#else
  (void)width;
  return false;
#endif
}

bool fused_mlp_widths(const mlp_shape& shape) {
#if ZEROFLOW_HAS_CUDA
  return detail::fused_mlp::supported(shape.features, shape.hidden, shape.code);
#else
  (void)shape;
  return false;
#endif
}

/// Refuses a GPU model in a build without CUDA; returns otherwise.
void require_cuda_build(device where) {
  if (!cuda_build)
    ZF_THROW(invalid_argument, "a model on ", where.name(),
             " needs a build of zeroflow with CUDA; this one has none: put the model on the CPU");
}

}  // namespace

const char* training_path_name(training_path path) {
  switch (path) {
    case training_path::automatic:
      return "automatic";
    case training_path::fused_kernels:
      return "fused_kernels";
  }
  return "unknown";
}

bool training_path_possible(training_path path, device where, std::int64_t width) {
  if (path != training_path::fused_kernels) return false;
  // The CPU kernels take every width a LightVAE has (a power of two from 16).
  if (where.type == device_type::cpu) return detail::is_light_vae_width(width);
  return cuda_build && where.type == device_type::cuda && fused_width(width);
}

training_path choose_training_path(device where, std::int64_t width, training_path requested) {
  (void)requested;  // every request is the own kernels now: automatic and fused_kernels alike
  if (training_path_possible(training_path::fused_kernels, where, width)) return training_path::fused_kernels;
  if (where.type != device_type::cpu) require_cuda_build(where);
  ZF_THROW(invalid_argument, "a LightVAE on ", where.name(), " takes rows whose width is a power of two from 16 to ",
           "1024, not ", width, ": train a wider model on the CPU");
}

training_path choose_mlp_training_path(device where, const mlp_shape& shape, training_path requested) {
  (void)requested;
  // The CPU's own engine trains every MLP; the GPU's every MLP its fused step's shared memory takes.
  if (where.type == device_type::cpu || (cuda_build && where.type == device_type::cuda && fused_mlp_widths(shape)))
    return training_path::fused_kernels;
  require_cuda_build(where);
  ZF_THROW(invalid_argument, "an MLP autoencoder on ", where.name(),
           " takes widths whose activations for 32 rows fit 96 KiB of shared memory (2 x features + 2 x hidden + "
           "code up to about 760), not ",
           shape.features, ", ", shape.hidden, " and ", shape.code, ": train a wider model on the CPU");
}

}  // namespace zeroflow::model
