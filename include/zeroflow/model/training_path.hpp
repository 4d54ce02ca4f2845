#pragma once
/// @file training_path.hpp
/// How a model trains: the kernels a step is made of, one choice for both models. Both devices
/// have one implementation, zeroflow's own kernels, so the choice is whether the model's device
/// and widths fit them; choose_training_path decides the LightVAE's (model/vae.hpp),
/// choose_mlp_training_path (model/mlp_autoencoder.hpp) the MLP autoencoder's. vae::train and
/// mlp_autoencoder::train report the path they took, and the pipeline records it in summary.json.
#include <cstdint>

#include "zeroflow/core/device.hpp"

namespace zeroflow::model {

/// The kernels a training step (and a forward pass) is made of.
enum class training_path {
  automatic,      ///< let choose_training_path (choose_mlp_training_path) decide from the device and the model
  fused_kernels,  ///< zeroflow's own kernels: on a GPU forward, loss and backward fused (the VAE: replayed from a
                  ///< graph); on the CPU the same per beat, vectorised, beats over threads
};

/// "automatic" or "fused_kernels" (as summary.json records it).
[[nodiscard]] const char* training_path_name(training_path path);

/// True when this build and a LightVAE of `width` on `where` can take `path` (never for
/// automatic): the CPU takes any power-of-two width from 16; a GPU needs a CUDA build and a width
/// the kernels handle (a power of two from 16 to 1024).
[[nodiscard]] bool training_path_possible(training_path path, device where, std::int64_t width);

/// The one place the LightVAE's path is decided: fused_kernels when the device and width allow it.
/// @param where the model's device. @param width its row width. @param requested the caller's choice.
/// @throws invalid_argument, saying what would work, when this build, device and width cannot
///         take the kernels (a GPU model in a build without CUDA; a GPU model wider than 1024).
[[nodiscard]] training_path choose_training_path(device where, std::int64_t width,
                                                 training_path requested = training_path::automatic);

}  // namespace zeroflow::model
