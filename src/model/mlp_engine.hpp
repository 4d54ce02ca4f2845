#pragma once
/// @file mlp_engine.hpp
/// Internal: the MLP autoencoder behind model::mlp_autoencoder on zeroflow's own kernels, on the
/// CPU or a GPU. One training loop for both: batches in row_order.hpp's per-epoch order, each
/// batch's step (cpu_mlp_step.hpp on the host; fused_mlp_step.hpp's kernels on a GPU, the batch
/// gathered there first), then Adam (adam_update.hpp, the same rounding on both), the scoring
/// pass of mlp_forward.hpp (the same bits on both). The parameters are one packed array
/// (mlp_init.hpp's layout) from the memory manager on the model's device; each GPU call takes
/// the stream the models of the calling thread queue on (model_stream.hpp).
#include <array>
#include <cstdint>
#include <vector>

#include "mlp_init.hpp"
#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/io/safetensors.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"

namespace zeroflow::model::detail {

class mlp_engine {
 public:
  /// An engine on `where` holding `params` (host floats, mlp_initial_parameters' layout).
  /// @throws invalid_argument for widths < 1, a parameter count that does not fit them, or on a
  ///         GPU widths beyond the fused step's; cuda_error when the GPU cannot be used.
  mlp_engine(const mlp_shape& shape, device where, const std::vector<float>& params);

  // As mlp_autoencoder's members of the same names.
  mlp_train_result train(const array& rows, const mlp_train_options& options, stream_view stream);
  [[nodiscard]] array reconstruct(const array& rows, stream_view stream) const;
  [[nodiscard]] array score(const array& rows, stream_view stream) const;
  [[nodiscard]] std::vector<io::safetensor> weights() const;
  [[nodiscard]] const mlp_shape& shape() const { return shape_; }
  [[nodiscard]] device where() const { return where_; }
  [[nodiscard]] std::int64_t parameter_count() const { return offsets_.back(); }

 private:
  /// The rows as a contiguous N × F array on the model's device (a view when they already are),
  /// checked finite.
  [[nodiscard]] array rows_here(const array& rows, stream_view stream) const;
  /// `out` on the rows' device: a copy from the model's device, finished before it returns when it
  /// lands on a GPU (the caller's work there is on a stream of its own).
  [[nodiscard]] array on_rows_device(const array& out, const array& rows, stream_view stream) const;
  /// The scoring pass over every row: `score` and/or `recon` on the model's device, or null.
  void forward(const array& x, float* score, float* recon, stream_view stream) const;

  mlp_shape shape_;
  device where_;
  std::array<std::int64_t, mlp_slots + 1> offsets_;
  array params_;
};

}  // namespace zeroflow::model::detail
