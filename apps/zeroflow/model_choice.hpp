#pragma once
// `zeroflow run --model`: which model the run trains. The names, their defaults and the refusals
// of names that are no model this tool can train (MONAI's, which is Python's; a model file, which
// is `score`'s).
#include <CLI/CLI.hpp>
#include <string>

namespace zeroflow::cli {

/// What --help says of `run --model`.
inline constexpr const char* model_help =
    "the model that scores the beats' shapes: lightvae (the seed's LightVAE) or mlp (the seed-004 MLP autoencoder "
    "on min-max scaled beats; 100 full-batch epochs unless --epochs or --batch say otherwise). MONAI's "
    "VarAutoEncoder is Python's: zeroflow.sklearn.VAEOutlierDetector(model=\"monai\")";

/// @brief Accepts lightvae and mlp. monai is refused with where it runs (Python), a file name with
/// the command that scores with a saved model, anything else with the names there are.
CLI::Validator model_name();

/// Epochs of a training run when --epochs is not given: the LightVAE's are the seed's 30
/// (run_options' default), the MLP autoencoder's its notebook's 100.
inline constexpr int mlp_default_epochs = 100;

}  // namespace zeroflow::cli
