#pragma once
// Private to src/model: the state behind vae's pimpl. The weights are one packed
// float32 array (light_vae_layout.hpp's slot order) in the model's memory, which zeroflow's own
// kernels and trainers use in place.
#include <cstdint>
#include <optional>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/model/vae.hpp"

namespace zeroflow::model {

class vae::impl {
 public:
  std::int64_t width = 0;
  device place = cpu_device;
  array params;  ///< packed float32 weights on `place`
  std::optional<row_provenance> rows;
  training_history history;
};

namespace detail {

/// Refuses a description of rows that no pipeline run makes (vae::describe_rows says what).
void check_row_provenance(const row_provenance& rows);

/// Refuses a device a model cannot live on (not the CPU or a CUDA device that exists).
void check_model_place(device where);

/// Waits for `stream` when `where` is a GPU (results are read on the host right after).
void wait_for_stream(stream_view stream, device where);

}  // namespace detail
}  // namespace zeroflow::model
