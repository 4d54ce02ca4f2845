#pragma once
/// @file population.hpp
/// One LightVAE trained on the beats of many recordings (a population model) with zeroflow's own
/// trainers, on the CPU or on GPUs (the same steps on both): the rows of every recording in one
/// array, shuffled together every epoch; on a GPU each optimisation step a CUDA graph replayed
/// without waiting for the host. Several processes train one model data-parallel: each takes its
/// slice of every global batch and a gradient_group sums the gradients (on GPUs nccl_group.hpp,
/// inside the step's graph), so the steps of N processes are those of one with the same global
/// batch, up to the order of floating-point sums.
///
/// A run of many hours keeps a checkpoint (weights, Adam's moments, the step counters, the losses
/// so far and the settings they belong to) after every few epochs; a run resumed from it takes
/// the same steps as one never stopped, bit for bit on the same GPUs (the shuffles and the noise
/// are counter-based: a pure function of the seed, the epoch and the step).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model {

/// The processes that train one model together: sums and broadcasts across them, every process
/// calling the same operations in the same order. For GPU models the data is on this process's
/// GPU and the operations are queued on `stream` (graph-capturable: nccl_group.hpp); for CPU
/// models the data is in host memory and the operations are done when they return (the stream is
/// the default one and means nothing).
class gradient_group {
 public:
  virtual ~gradient_group() = default;
  [[nodiscard]] virtual int rank() const = 0;  ///< this process, 0 … size() − 1
  [[nodiscard]] virtual int size() const = 0;  ///< processes in the group
  /// Replaces `data` (n floats where the model lives) by its sum over the group.
  virtual void sum(float* data, std::int64_t n, stream_view stream) = 0;
  /// Replaces `data` (n doubles where the model lives) by its sum over the group.
  virtual void sum(double* data, std::int64_t n, stream_view stream) = 0;
  /// Copies `root`'s n floats at `data` to every other process's `data`.
  virtual void broadcast(float* data, std::int64_t n, int root, stream_view stream) = 0;
};

/// How train_population runs. The defaults are vae::train's.
struct population_options {
  int epochs = 30;              ///< passes over the training rows (the total, also when resuming)
  std::int64_t batch = 1024;    ///< rows per optimisation step over all processes (a multiple of their number)
  double test_fraction = 0.25;  ///< share of rows held out, in [0, 1)
  std::uint64_t seed = 42;      ///< seeds the split, the per-epoch shuffles and the noise
  double learning_rate = 1e-3;  ///< Adam's step size
  /// What the rows are (e.g. the recordings and their beat counts): kept in the checkpoint, and a
  /// checkpoint of other rows is refused on resume.
  std::string rows_identity;
  /// Where the run keeps its checkpoint (empty: none); written by rank 0, atomically.
  std::filesystem::path checkpoint;
  int checkpoint_every = 1;  ///< epochs between checkpoints (0: none)
  /// Continue from `checkpoint`, which must hold a run of these rows and settings (epochs may be
  /// more than the checkpoint's).
  bool resume = false;
  /// Called on rank 0 after every epoch with its index (from 0) and loss (one synchronisation each).
  std::function<void(int epoch, double train_loss)> on_epoch;
};

/// What train_population did.
struct population_result {
  /// Per epoch: Σ of the batch losses / rows trained that epoch (whole global batches only: the
  /// rows a batch would leave over wait for the next epoch's shuffle), over all processes.
  std::vector<double> epoch_loss;
  double test_loss = 0.0;       ///< the held-out rows' loss after training (NaN without test rows)
  std::int64_t train_rows = 0;  ///< over all processes
  std::int64_t test_rows = 0;
  std::int64_t steps = 0;      ///< optimisation steps taken by this call (not those resumed past)
  int first_epoch = 0;         ///< epochs the checkpoint had done (0 for a fresh run)
  int host_syncs = 0;          ///< waits for the GPU (losses and checkpoints; none per step)
  double train_seconds = 0.0;  ///< the epochs this call trained, checkpoints included
};

/// Trains `model` (on the CPU or a GPU) on `rows`: every process of `group` (none: this process
/// alone) holds the same rows and model and calls this with the same options. The split, the
/// shuffles and the noise are those of one process with the same global batch, on either device.
/// @param rows float32 N×W contiguous, W the model's width, where the model is: host memory for
///        the CPU; on a GPU its memory, or page-locked host memory mapped into its address space
///        (mapped_resource.hpp) when they exceed it.
/// @throws invalid_argument for rows of another shape or place, a batch
///         that is not a multiple of the processes or larger than the training rows, bad options,
///         or a checkpoint to resume that is missing or belongs to other rows or settings
///         (naming the setting); error when an epoch's loss is not finite or a checkpoint cannot
///         be written.
population_result train_population(vae& model, const array& rows, const population_options& options,
                                   gradient_group* group = nullptr);

}  // namespace zeroflow::model
