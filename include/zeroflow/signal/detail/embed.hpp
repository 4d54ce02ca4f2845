#pragma once
/// @file detail/embed.hpp
/// Device-specific halves of embed.hpp (contract: see detail/ricker.hpp).
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/embed.hpp"

namespace zeroflow::signal::detail {

/// signal: contiguous 1-D float32; positions, lengths: contiguous 1-D int64 on the same device with
/// positions.size() >= lengths.size(); 0 <= min_length <= max_length <= row_width; norm finite with a
/// non-zero scale. The implementation still checks that every kept span lies inside the signal.
[[nodiscard]] embedding embed_beats_host(const array& signal, const array& positions, const array& lengths,
                                         std::int64_t min_length, std::int64_t max_length, std::int64_t row_width,
                                         normalization norm, stream_view stream);
[[nodiscard]] embedding embed_beats_cuda(const array& signal, const array& positions, const array& lengths,
                                         std::int64_t min_length, std::int64_t max_length, std::int64_t row_width,
                                         normalization norm, stream_view stream);

}  // namespace zeroflow::signal::detail
