#pragma once
/// @file beat_windows.hpp
/// Every detected beat as a model row: a fixed window around its R peak.
///
/// Why a fixed window and not the seed's span from one peak to the next: a premature beat
/// followed by a compensatory pause makes a long span, which the seed's length filter drops, so
/// exactly the abnormal beats went unscored. A window of fixed duration around the peak gives
/// every beat a row of the same meaning, whatever its rhythm; rhythm is scored separately
/// (rhythm.hpp).
#include <cstdint>

#include "zeroflow/core/array.hpp"
#include "zeroflow/core/stream.hpp"
#include "zeroflow/signal/normalize.hpp"

namespace zeroflow::signal {

/// @brief Row b holds (signal[peaks[b] − before + j] − center) / scale for j in [0, before + after),
///        0 where that sample lies outside the recording (0 is the recording's median after
///        normalisation), and zeros from before + after to row_width.
/// @param signal raw 1-D float32 recording, any stride
/// @param peaks 1-D int64 R-peak samples, on the signal's device (any order, any values)
/// @param before, after samples before and after the peak, before >= 0, after >= 1
/// @param row_width >= before + after
/// @return peaks.size() × row_width float32 on the signal's device
/// @throws zeroflow::invalid_argument on bad shapes, dtypes, devices or sizes
[[nodiscard]] array embed_windows(const array& signal, const array& peaks, std::int64_t before, std::int64_t after,
                                  std::int64_t row_width, normalization norm, stream_view stream);

namespace detail {
array embed_windows_host(const array& signal, const array& peaks, std::int64_t before, std::int64_t after,
                         std::int64_t row_width, normalization norm, stream_view stream);
array embed_windows_cuda(const array& signal, const array& peaks, std::int64_t before, std::int64_t after,
                         std::int64_t row_width, normalization norm, stream_view stream);
}  // namespace detail

}  // namespace zeroflow::signal
