#pragma once
/// @file detail/nms.hpp
/// Device-specific halves of nms.hpp (contract: see detail/ricker.hpp).
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"

namespace zeroflow::signal::detail {

/// filtered: contiguous 1-D float32; 2 <= window <= size.
[[nodiscard]] array nms_gate_host(const array& filtered, std::int64_t window, stream_view stream);
[[nodiscard]] array nms_gate_cuda(const array& filtered, std::int64_t window, stream_view stream);

}  // namespace zeroflow::signal::detail
