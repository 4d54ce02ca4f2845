/// @file training_path.cpp
/// choose_training_path and choose_mlp_training_path: which kernels train the LightVAE and the MLP
/// autoencoder (see training_path.hpp).
#include "zeroflow/model/training_path.hpp"

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

/// Refuses a GPU path on a build without CUDA or a model elsewhere than on a GPU; returns otherwise.
void require_gpu(training_path requested, device where) {
  if (!cuda_build)
    ZF_THROW(invalid_argument, "the ", training_path_name(requested),
             " training path needs a build of zeroflow with CUDA; this one has none: use eager or automatic");
  if (where.type != device_type::cuda)
    ZF_THROW(invalid_argument, "the ", training_path_name(requested), " training path runs on a GPU; this model is on ",
             where.name(), ": use eager or automatic");
}

}  // namespace

const char* training_path_name(training_path path) {
  switch (path) {
    case training_path::automatic:
      return "automatic";
    case training_path::fused_kernels:
      return "fused_kernels";
    case training_path::cuda_graph:
      return "cuda_graph";
    case training_path::eager:
      return "eager";
  }
  return "unknown";
}

bool training_path_possible(training_path path, device where, std::int64_t width) {
  const bool gpu = cuda_build && where.type == device_type::cuda;
  switch (path) {
    case training_path::automatic:
      return false;
    case training_path::fused_kernels:
      // The CPU kernels take every width a LightVAE has (a power of two from 16).
      return where.type == device_type::cpu ? (width >= 16 && (width & (width - 1)) == 0) : gpu && fused_width(width);
    case training_path::cuda_graph:
      return gpu;
    case training_path::eager:
      return true;
  }
  return false;
}

training_path choose_training_path(device where, std::int64_t width, training_path requested) {
  if (requested == training_path::automatic) {
    if (training_path_possible(training_path::fused_kernels, where, width)) return training_path::fused_kernels;
    if (training_path_possible(training_path::cuda_graph, where, width)) return training_path::cuda_graph;
    return training_path::eager;
  }
  if (training_path_possible(requested, where, width)) return requested;
  require_gpu(requested, where);
  ZF_THROW(invalid_argument, "the fused_kernels training path handles rows whose width is a power of two from 16 to ",
           "1024, not ", width, ": use cuda_graph, eager or automatic");
}

training_path choose_mlp_training_path(device where, const mlp_shape& shape, bool one_step_an_epoch,
                                       training_path requested) {
  const bool gpu = cuda_build && where.type == device_type::cuda;
  // The CPU's own engine trains every MLP, batched or not.
  const bool fused = where.type == device_type::cpu || (gpu && one_step_an_epoch && fused_mlp_widths(shape));
  const bool graph = gpu && one_step_an_epoch;
  switch (requested) {
    case training_path::automatic:
      return fused ? training_path::fused_kernels : graph ? training_path::cuda_graph : training_path::eager;
    case training_path::eager:
      return requested;
    case training_path::fused_kernels:
    case training_path::cuda_graph:
      if (requested == training_path::fused_kernels ? fused : graph) return requested;
      require_gpu(requested, where);
      if (!one_step_an_epoch)
        ZF_THROW(invalid_argument, "the ", training_path_name(requested),
                 " training path trains the MLP with every epoch one step on all rows (batch 0, or at least the "
                 "number of rows): use eager or automatic for batches");
      ZF_THROW(invalid_argument,
               "the fused_kernels training path handles MLPs of at most 16 features and 64 hidden and code units, "
               "not ",
               shape.features, ", ", shape.hidden, " and ", shape.code, ": use cuda_graph, eager or automatic");
  }
  return training_path::eager;
}

}  // namespace zeroflow::model
