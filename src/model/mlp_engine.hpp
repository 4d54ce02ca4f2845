#pragma once
/// @file mlp_engine.hpp
/// Internal: the MLP autoencoder behind model::mlp_autoencoder, one engine per device on
/// zeroflow's own kernels (cpu_mlp_engine.hpp, gpu_mlp_engine.hpp). Each GPU call takes the stream
/// the models of the calling thread queue on (model_stream.hpp).
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
