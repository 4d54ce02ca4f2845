#pragma once
/// @file training_path.hpp
/// How a model trains: the kernels a step is made of, one choice for both models. The LightVAE
/// (model/vae.hpp) runs its forward passes on it too; choose_training_path decides its path from
/// the model's device, its width and the caller's request, choose_mlp_training_path
/// (model/mlp_autoencoder.hpp) the MLP autoencoder's. vae::train and mlp_autoencoder::train report
/// the path they took, and the pipeline records it in summary.json.
#include <cstdint>

#include "zeroflow/core/device.hpp"

namespace zeroflow::model {

/// The kernels a training step (and a forward pass) is made of.
enum class training_path {
  automatic,      ///< let choose_training_path (choose_mlp_training_path) pick from the device and the model
  fused_kernels,  ///< zeroflow's own kernels: on a GPU forward, loss and backward fused (the VAE: replayed from a
                  ///< graph); on the CPU (the VAE) the same per beat, vectorised, beats over threads
  cuda_graph,     ///< GPU: LibTorch's modules, each step captured once in a CUDA graph and replayed
  eager,          ///< LibTorch's modules one kernel launch at a time: the reference the own kernels are tested
                  ///< against (and the MLP's CPU path)
};

/// "automatic", "fused_kernels", "cuda_graph" or "eager" (as summary.json records it).
[[nodiscard]] const char* training_path_name(training_path path);

/// True when this build and a model of `width` on `where` can take `path` (never for automatic):
/// fused_kernels on the CPU takes any power-of-two width from 16; on a GPU it needs a CUDA build and
/// a width the kernels handle (a power of two from 16 to 1024); cuda_graph needs a CUDA build and a
/// GPU; eager is always possible.
[[nodiscard]] bool training_path_possible(training_path path, device where, std::int64_t width);

/// The one place the path is decided. automatic: fused_kernels when the device and width allow it
/// (the CPU always), else cuda_graph on a GPU, else eager (a GPU model in a build without CUDA).
/// Any other request is returned as it is when it is possible.
/// @param where the model's device. @param width its row width. @param requested the caller's choice.
/// @throws invalid_argument when `requested` is not possible for this build, device and width.
[[nodiscard]] training_path choose_training_path(device where, std::int64_t width,
                                                 training_path requested = training_path::automatic);

}  // namespace zeroflow::model
