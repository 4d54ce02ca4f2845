#pragma once
// Private to src/model: the stream the models' GPU work queues on for the calling thread — the one
// a model_stream_scope set for that GPU, else the legacy default stream.
#include "zeroflow/core/device.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::model::detail {

[[nodiscard]] stream_view model_stream(device where);

}  // namespace zeroflow::model::detail
