#pragma once
/// @file cuda_graph_trainer.hpp
/// Internal: the LightVAE's training epochs on a GPU with every optimisation step captured once
/// in a CUDA graph and replayed, so that a step costs one graph launch instead of ~200 kernel
/// launches. Pulls in LibTorch; include it only from src/model/*.cpp and tests/model.
///
/// It runs the two GPU training paths (training_path.hpp): cuda_graph captures LibTorch's modules,
/// fused_kernels the fused step (fused_step.hpp). What is captured: gathering the batch from the
/// device-resident rows (index_select with this epoch's device randperm), forward, the seed's
/// loss, backward, adding the loss to a device accumulator, and a capturable Adam step (step count
/// on the device). A training set whose size
/// is not a multiple of the batch gets a second graph for its last, smaller batch (exactly the
/// eager path's batches; no padding, no mask). Between replays the host only queues work: per
/// epoch one device randperm, the replays and two small copies. The epoch losses stay on the
/// device and are read once, after the last epoch — unless train_options::on_epoch is set, which
/// costs one synchronisation per epoch to hand it each epoch's loss.
///
/// The replayed training is the eager one (vae::train's loop with torch::optim::Adam): same
/// split, same per-epoch permutations, same batches and the same noise draws (the warm-up that
/// precedes capture is undone, generator state included, and a captured draw reads the generator's
/// state at replay time). What differs is the optimiser's rounding (LibTorch's fused Adam kernel
/// against torch::optim::Adam's separate ops) and whatever nondeterminism cuDNN's kernels have, so
/// losses agree closely but not bit for bit (tests/model/cuda_graph_trainer_test.cpp bounds the
/// difference).
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "light_vae.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model::detail {

/// True when this build can capture training steps (a CUDA build of zeroflow).
[[nodiscard]] bool cuda_graph_training_available();

/// Test hooks: called on the host right before the first epoch's work is queued and right after
/// the last epoch's work is queued, before the one synchronisation that reads the losses. Nothing
/// between them may wait for the GPU (unless train_options::on_epoch is set).
struct epoch_loop_hooks {
  std::function<void()> before_first_epoch;
  std::function<void()> after_last_epoch;
};

/// What train_with_cuda_graphs did.
struct graph_training_report {
  std::vector<double> epoch_loss;  ///< as train_result::epoch_loss
  int graphs = 0;                  ///< graphs captured: 1, or 2 with a partial last batch (0 without epochs)
  std::int64_t replays = 0;        ///< graph launches (= optimisation steps)
  int host_syncs = 0;              ///< times the trainer waited for the GPU to read losses
  bool fused = false;              ///< forward and backward ran as the fused kernels (the fused_kernels path)
};

/// Runs options.epochs epochs of training on `net` (already on a CUDA device, in training mode).
/// @param data float32 N×W rows on the model's GPU.
/// @param train_index int64 indices of the training rows into `data`, on the same GPU.
/// @param options epochs, batch, learning rate, on_epoch, fused_ops and path as in vae::train (the
///        split and the seeding are the caller's); path must be fused_kernels (then `data` must be
///        contiguous and the width one the fused kernels handle) or cuda_graph, as chosen by
///        choose_training_path.
/// @param hooks see epoch_loop_hooks.
/// @throws invalid_argument for tensors on the wrong device or of the wrong type, or another path;
///         error when the capture fails (the eager path trains without graphs); cuda_error when
///         this build has no CUDA.
graph_training_report train_with_cuda_graphs(light_vae& net, const torch::Tensor& data,
                                             const torch::Tensor& train_index, const train_options& options,
                                             const epoch_loop_hooks& hooks = {});

}  // namespace zeroflow::model::detail
