#pragma once
/// @file mlp_engine.hpp
/// Internal, torch-free: the MLP autoencoder behind model::mlp_autoencoder, implemented by
/// zeroflow's own GPU engine (gpu_mlp_engine.hpp) and by the LibTorch backend (torch_backend.hpp,
/// the CPU and the trainings the GPU engine does not run). Each GPU call takes the stream the
/// models of the calling thread queue on (model_stream.hpp); the backend makes it LibTorch's
/// current one.
#include <cstdint>
#include <vector>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/io/safetensors.hpp"
#include "zeroflow/model/mlp_autoencoder.hpp"

namespace zeroflow::model::detail {

class mlp_engine {
 public:
  virtual ~mlp_engine() = default;
  /// Whether train runs this training; when not, mlp_autoencoder hands the weights to an engine
  /// that does. Options are already checked.
  [[nodiscard]] virtual bool trains(const array& rows, const mlp_train_options& options) const {
    (void)rows, (void)options;
    return true;
  }
  // As mlp_autoencoder's members of the same names.
  virtual mlp_train_result train(const array& rows, const mlp_train_options& options, stream_view stream) = 0;
  [[nodiscard]] virtual array reconstruct(const array& rows, stream_view stream) const = 0;
  [[nodiscard]] virtual array score(const array& rows, stream_view stream) const = 0;
  [[nodiscard]] virtual std::vector<io::safetensor> weights() const = 0;
  [[nodiscard]] virtual const mlp_shape& shape() const = 0;
  [[nodiscard]] virtual device where() const = 0;
  [[nodiscard]] virtual std::int64_t parameter_count() const = 0;
};

}  // namespace zeroflow::model::detail
